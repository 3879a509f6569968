#if canImport(Glibc)
import Glibc
#endif

/// The CPU time one thread of this process has used: its POSIX CPU-time clock
/// (`pthread_getcpuclockid`), readable from any thread of the process and exact to the
/// nanosecond, where `/proc/<pid>/task/<tid>/stat` advances in scheduler ticks (10 ms) and
/// charges a thread only when a tick finds it running — too coarse to compare the audio
/// thread's ~1 % of a core with and without a load.
package struct ThreadCPUClock: Sendable {
    let clock: clockid_t

    /// The calling thread's clock (nil if the system has none).
    package static var current: ThreadCPUClock? {
        var id = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &id) == 0 else { return nil }
        return ThreadCPUClock(clock: id)
    }

    /// A clock by its id (from `pthread_getcpuclockid`).
    package init(clock: clockid_t) { self.clock = clock }
    package var clockID: clockid_t { clock }

    /// CPU seconds the thread has used; NaN once it has ended.
    package var seconds: Double {
        var t = timespec()
        guard clock_gettime(clock, &t) == 0 else { return .nan }
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
