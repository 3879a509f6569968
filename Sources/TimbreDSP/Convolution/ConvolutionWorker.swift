import Atomics
import CFFTW
import CTimbreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The thread that computes a ``PartitionedConvolver``'s deferred levels ahead of their
/// deadlines (zita-convolver's scheme, one thread per kernel). The render thread posts a job
/// (``ConvolutionLevels``' job states) and posts the semaphore — `sem_post`, which neither
/// blocks nor allocates (RealtimeSanitizer allows it); the worker takes posted jobs smallest
/// level first (the nearest deadline) until none is left, then waits again.
final class ConvolutionWorker: @unchecked Sendable {
    /// What the thread reads: the levels, its scratch, the counters, the stop flag.
    private struct Context {
        let levels: ConvolutionLevels
        let wake: UnsafeMutablePointer<sem_t>
        let stopping: UnsafeAtomic<Bool>
        let runs: UnsafeAtomic<Int>
        let scratch: ConvolutionScratch
        let realtimePriority: Int32?
    }

    /// Posted by the render thread for every job (through this pointer: no reference counted).
    let wake: UnsafeMutablePointer<sem_t>
    private let stopping: UnsafeAtomic<Bool>
    private let scratch: ConvolutionScratch
    private var thread: pthread_t?

    /// Starts the thread for `levels`' deferred levels; `largest` is the largest partition.
    /// Nil when the system refuses a thread (the kernel then computes on its caller).
    init?(levels: ConvolutionLevels, largest: Int, runs: UnsafeAtomic<Int>, realtimePriority: Int32?) {
        wake = .allocate(capacity: 1)
        sem_init(wake, 0, 0)
        stopping = .create(false)
        scratch = ConvolutionScratch(largest: largest)
        let context = UnsafeMutablePointer<Context>.allocate(capacity: 1)
        context.initialize(to: Context(levels: levels, wake: wake, stopping: stopping, runs: runs, scratch: scratch,
                                       realtimePriority: realtimePriority))
        var id = pthread_t()
        guard pthread_create(&id, nil, { raw in
            let context = raw!.assumingMemoryBound(to: Context.self)
            ConvolutionWorker.main(context.pointee)
            context.deinitialize(count: 1); context.deallocate()
            return nil
        }, context) == 0 else {
            context.deinitialize(count: 1); context.deallocate()
            return nil  // deinit frees the rest
        }
        thread = id
    }

    /// The worker's priority: SCHED_FIFO at `realtimePriority` (under the audio thread's) when
    /// given and allowed; else the default policy at nice 10, so that where no thread is real
    /// time (a JACK server run without it, a desktop without rtprio) the audio thread still
    /// wins the core from the worker, which has several blocks of time for each job.
    private static func setPriority(_ realtimePriority: Int32?) {
        if let priority = realtimePriority, priority > 0 {
            var parameter = sched_param(); parameter.sched_priority = priority
            if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameter) == 0 { return }
        }
        _ = timbre_set_this_thread_nice(10)
    }

    /// Stops the thread (after its job in hand) and waits for it; the kernel calls this before
    /// freeing the memory the levels point to.
    func stop() {
        guard let id = thread else { return }
        stopping.store(true, ordering: .releasing)
        sem_post(wake)
        pthread_join(id, nil)
        thread = nil
    }

    deinit { stop(); release() }

    private func release() {
        sem_destroy(wake); wake.deallocate(); stopping.destroy()
        scratch.free()
    }

    private static func main(_ c: Context) {
        timbre_name_this_thread("timbre-conv")
        setPriority(c.realtimePriority)
        let levels = c.levels
        while true {
            while sem_wait(c.wake) != 0 {}  // EINTR: wait again
            if c.stopping.load(ordering: .acquiring) { return }
            var found = true
            while found {
                found = false
                for j in levels.deferredFrom..<levels.levelCount
                where levels.state(j).compareExchange(expected: ConvolutionLevels.Job.posted, desired: ConvolutionLevels.Job.running, ordering: .acquiring).exchanged {
                    timbre_set_ftz_daz(levels.flushesDenormals[j] ? 1 : 0)
                    levels.run(j, at: levels.boundaries[j], scratch: c.scratch)
                    c.runs.wrappingIncrement(ordering: .relaxed)
                    if !levels.state(j).compareExchange(expected: ConvolutionLevels.Job.running, desired: ConvolutionLevels.Job.done, ordering: .releasing).exchanged {
                        levels.state(j).store(ConvolutionLevels.Job.idle, ordering: .releasing)  // abandoned: the result is dropped
                    }
                    found = true
                    break
                }
            }
        }
    }
}
