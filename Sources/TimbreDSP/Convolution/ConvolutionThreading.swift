import Atomics

/// Where a ``PartitionedConvolver`` computes its large FFT levels (zita-convolver's design):
/// on the thread that calls `process`, or on a worker thread per kernel that has until the
/// level's first output is due.
///
/// The arithmetic and its order are the same either way (a large level's outputs are added
/// when they fall due, whoever computed them), so the output is bit-identical in every mode
/// and for every block size — as long as no worker is late. A live host cannot wait: a level
/// not ready by its deadline is left out of the output and counted
/// (``ConvolutionCounters/late``). Offline, `waitsForLateWork` makes the render wait instead,
/// so the workers only add parallelism.
public struct ConvolutionThreading: Sendable, Equatable {
    /// Large levels run on a worker thread (else on the calling thread).
    public var usesWorkers: Bool
    /// With workers: a level not ready when due is waited for (offline) instead of being
    /// left out and counted late (live).
    public var waitsForLateWork: Bool
    /// With workers: a SCHED_FIFO priority for them when the system allows it (a JACK client's
    /// real-time priority minus one, under the audio thread's); nil keeps the default policy.
    public var realtimePriority: Int32?

    public init(usesWorkers: Bool, waitsForLateWork: Bool, realtimePriority: Int32? = nil) {
        self.usesWorkers = usesWorkers; self.waitsForLateWork = waitsForLateWork; self.realtimePriority = realtimePriority
    }

    /// Everything on the calling thread.
    public static let callingThread = ConvolutionThreading(usesWorkers: false, waitsForLateWork: false)
    /// Workers that the calling thread never waits for: a live host.
    public static let live = ConvolutionThreading(usesWorkers: true, waitsForLateWork: false)
    /// Workers the calling thread waits for when it gets ahead of them: offline in parallel.
    public static let parallel = ConvolutionThreading(usesWorkers: true, waitsForLateWork: true)

    /// Levels of at least this many taps are deferred: computed into their own buffers and
    /// added to the output when due (size − head frames after their boundary).
    public static let deferredPartition = 2_048

    /// True when a deferred level whose first output is due `lead` frames after its boundary
    /// leaves a worker at least three whole host blocks of `blockFrames`.
    static func fitsWorker(lead: Int, blockFrames: Int) -> Bool { lead >= 4 * blockFrames }
}

/// What a convolution kernel's workers did, readable from any thread while it runs (a live
/// host's `status`): shared by the kernels of one node across plans.
public final class ConvolutionCounters: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>

    public init() {
        storage = .allocate(capacity: 2)
        storage.initialize(repeating: UnsafeAtomic<Int>.Storage(0), count: 2)
    }

    deinit { storage.deinitialize(count: 2); storage.deallocate() }

    /// Level runs a worker computed.
    public var workerRuns: Int { runsAtomic.load(ordering: .relaxed) }
    /// Level runs that were not ready when due (left out of the output) or could not start
    /// because the previous run of their level was still going.
    public var late: Int { lateAtomic.load(ordering: .relaxed) }

    /// The counters as atomics for the render thread and the workers (no reference counted).
    var runsAtomic: UnsafeAtomic<Int> { UnsafeAtomic(at: storage) }
    var lateAtomic: UnsafeAtomic<Int> { UnsafeAtomic(at: storage + 1) }
}
