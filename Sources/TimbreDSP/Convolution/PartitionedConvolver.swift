import Atomics
import CFFTW
import CTimbreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Zero-latency convolution of every channel with an impulse response of any length, on the
/// layout of ``PartitionLayout``: a direct-form head per sample, then levels of FFT partitions
/// (overlap-save with a frequency-domain delay line, CamillaDSP's and BruteFIR's scheme per
/// level), each level worked at its own absolute positions.
///
/// ```
///  x ──▶ input ring (mirrored: any window contiguous) ──▶ head FIR ───────────────┐
///            │                                                                    ▼
///            └─ every N samples, per level: FFT(last 2N) → delay line ─ Σ X·G ─ IFFT ─▶ output ring ─▶ y
/// ```
///
/// Channel c uses response min(c, responses − 1) of its ``ConvolutionFilter`` (one shared
/// response for all, or one each). No latency is added: a level of partition N starting at tap
/// s ≥ N computes, at sample b, outputs b + s − N … b + s − 1. The output is bit-identical
/// for every way of cutting the stream into blocks (all work at absolute positions, every sum
/// in a fixed order), and for every length of silence before the sound: while the whole state
/// is silent the position holds, and the first sound starts the grid at 0 again. Float
/// throughout; against a Double direct convolution the error is under −120 dB of the output
/// (the tests' tolerance).
///
/// Cost: the head's B multiply-adds per sample, and per level an FFT and an inverse of 2N
/// points and `count` complex multiply-adds of N + 1 bins every N samples. Levels of
/// ``ConvolutionThreading/deferredPartition`` taps and more are jobs whose first output is due
/// N − B samples after their boundary: with ``ConvolutionThreading/live`` a worker thread
/// computes them meanwhile, so the render thread's worst block holds only the head and the
/// small levels; a job not ready when due is counted late (``ConvolutionCounters``) and left
/// out, never waited for. On the calling thread the same jobs run at their boundary, and
/// every mode adds their outputs at the same positions in the same order: the same bits.
public struct PartitionedConvolver: ~Copyable, @unchecked Sendable {
    /// The filter, kept alive by the kernel (the render reads its memory through the
    /// pointers below, never through this reference).
    public let filter: ConvolutionFilter
    public let channelCount: Int
    /// The workers' counts (late jobs, runs), kept alive by the kernel.
    public let counters: ConvolutionCounters
    let layout: PartitionLayout
    let headTaps: Int
    /// The layout's reach: how far ahead of the sample in hand the levels write.
    let reach: Int
    /// The levels' memory and their jobs (shared with the worker).
    let shared: ConvolutionLevels
    let heads: UnsafeMutablePointer<Float>
    let delayLineFloats: Int
    /// The render thread's FFT scratch.
    let scratch: ConvolutionScratch
    /// [0] the absolute position of the next input sample.
    let position: UnsafeMutablePointer<Int>
    /// [0] frames of silence (every channel exactly 0) in a row, up to ``quietFrames``.
    let quiet: UnsafeMutablePointer<Int>
    /// Silent frames after which every part of the state is exactly zero: the response's
    /// length, two of the largest partitions (a window and its FFT size) and the head.
    let quietFrames: Int
    /// Per level: where its posted job's outputs start (−1 with none); render thread only.
    let due: UnsafeMutablePointer<Int>
    /// Per level: its delay lines must be cleared before its next job (a job was abandoned
    /// while clearing non-finite state).
    let stale: UnsafeMutablePointer<Bool>
    let worker: ConvolutionWorker?
    /// True when the large levels' jobs may run on a worker thread.
    public let hasWorker: Bool
    let wake: UnsafeMutablePointer<sem_t>?
    let waitsForLateWork: Bool
    let late: UnsafeAtomic<Int>
    /// The filter this kernel may crossfade from (``continueState(from:)`` of a kernel running
    /// it), kept alive here; its reversed head taps; both filters' identities, compared
    /// without counting references on the render thread.
    public let fadingFrom: ConvolutionFilter?
    let oldHeads: UnsafeMutablePointer<Float>?
    let filterIdentity: UnsafeMutableRawPointer
    let fadingFromIdentity: UnsafeMutableRawPointer?
    /// [0] the position where the crossfade to this filter starts (−1: none running), and
    /// the old filter's head output for a segment.
    let fadeStart: UnsafeMutablePointer<Int>
    let oldHeadOutput: UnsafeMutablePointer<Float>
    /// The state handed to the next plan's kernel, or taken from the previous one's.
    let handover: ConvolutionHandover
    /// Frames of the crossfade from the previous filter (≈ 43 ms at 48 kHz).
    public static let crossfadeFrames = 2_048

    /// A convolver running `filter` on `channelCount` channels in blocks of up to
    /// `maximumBlockFrames` (longer blocks are convolved too; a kernel whose state was taken
    /// over plays only that many of the taker's frames), its large levels computed as
    /// `threading` says; `counters` (a new one by default) counts the workers' runs and late
    /// jobs. A job goes to the worker when its lead is at least four of the calling blocks (so
    /// a host's buffer-size change needs no new kernel); others run at their boundary.
    ///
    /// With `fadingFrom` (a filter of the same layout), taking over the state of a kernel that
    /// runs it crossfades: both filters run on the same input history until every level has
    /// the new filter's outputs (the layout's reach), then the output fades over
    /// ``crossfadeFrames`` from the old filter's convolution to the new one's — both exact,
    /// so an impulse response swapped live neither clicks nor loses its tail.
    public init(filter: ConvolutionFilter, channelCount: Int, maximumBlockFrames: Int = 8_192, threading: ConvolutionThreading = .callingThread,
                counters: ConvolutionCounters? = nil, fadingFrom: ConvolutionFilter? = nil) {
        precondition(channelCount >= 1 && maximumBlockFrames >= 1)
        handover = ConvolutionHandover(channelCount: channelCount, capacity: maximumBlockFrames)
        let fadingFrom = fadingFrom.flatMap { $0 !== filter && $0.layout == filter.layout ? $0 : nil }
        self.fadingFrom = fadingFrom
        oldHeads = fadingFrom?.head
        filterIdentity = Unmanaged.passUnretained(filter).toOpaque()
        fadingFromIdentity = fadingFrom.map { Unmanaged.passUnretained($0).toOpaque() }
        fadeStart = .allocate(capacity: 1)
        fadeStart.initialize(to: -1)
        oldHeadOutput = .allocate(capacity: filter.layout.headTaps)
        oldHeadOutput.initialize(repeating: 0, count: filter.layout.headTaps)
        let counters = counters ?? ConvolutionCounters()
        self.filter = filter; self.channelCount = channelCount; self.counters = counters
        layout = filter.layout; headTaps = layout.headTaps; reach = layout.reach
        let levelCount = layout.levels.count, count = max(1, levelCount)
        let levels = UnsafeMutablePointer<PartitionLayout.Level>.allocate(capacity: count)
        levels.initialize(from: layout.levels, count: levelCount)
        heads = filter.head
        let largest = layout.largestPartition
        let inputCapacity = Self.powerOfTwo(atLeast: max(2 * largest, 2 * headTaps, 2))
        let outputCapacity = Self.powerOfTwo(atLeast: layout.reach + 1)
        delayLineFloats = layout.levels.reduce(0) { $0 + $1.count * 2 * ($1.size + 1) }
        func block(_ count: Int, _ lists: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
            let list = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(1, lists))
            for c in 0..<lists {
                let p = fftwf_alloc_real(max(1, count))!
                p.initialize(repeating: 0, count: max(1, count))
                (list + c).initialize(to: p)
            }
            return list
        }
        let delayLines = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(1, channelCount * levelCount))
        for c in 0..<channelCount {
            for (j, level) in layout.levels.enumerated() {
                let floats = level.count * 2 * (level.size + 1), p = fftwf_alloc_real(floats)!
                p.initialize(repeating: 0, count: floats)
                (delayLines + c * levelCount + j).initialize(to: p)
            }
        }
        let deferredFrom = layout.levels.firstIndex { $0.size >= ConvolutionThreading.deferredPartition } ?? levelCount
        let deferredLargest = deferredFrom < levelCount ? largest : 0
        let results = block(deferredLargest, (levelCount - deferredFrom) * channelCount)
        let windows = block(2 * deferredLargest, (levelCount - deferredFrom) * channelCount)
        let scratch = ConvolutionScratch(largest: largest)
        self.scratch = scratch
        let forwardPlans = UnsafeMutablePointer<fftwf_plan?>.allocate(capacity: count)
        let inversePlans = UnsafeMutablePointer<fftwf_plan?>.allocate(capacity: count)
        let complexSpectrum = UnsafeMutableRawPointer(scratch.spectrum).assumingMemoryBound(to: fftwf_complex.self)
        let complexSum = UnsafeMutableRawPointer(scratch.sum).assumingMemoryBound(to: fftwf_complex.self)
        for (j, level) in layout.levels.enumerated() {
            (forwardPlans + j).initialize(to: FFTWPlanner.realForward(size: 2 * level.size, input: scratch.time, output: complexSpectrum))
            (inversePlans + j).initialize(to: FFTWPlanner.realInverse(size: 2 * level.size, input: complexSum, output: scratch.time))
        }
        let states = UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>.allocate(capacity: count)
        states.initialize(repeating: UnsafeAtomic<Int>.Storage(ConvolutionLevels.Job.idle), count: count)
        let boundaries = UnsafeMutablePointer<Int>.allocate(capacity: count)
        boundaries.initialize(repeating: 0, count: count)
        let flushes = UnsafeMutablePointer<Bool>.allocate(capacity: count)
        flushes.initialize(repeating: false, count: count)
        let fadeFlags = UnsafeMutablePointer<Bool>.allocate(capacity: count)
        fadeFlags.initialize(repeating: false, count: count)
        shared = ConvolutionLevels(
            levels: levels, levelCount: levelCount, channelCount: channelCount,
            input: block(2 * inputCapacity, channelCount), inputCapacity: inputCapacity,
            output: block(outputCapacity, channelCount), outputCapacity: outputCapacity,
            delayLines: delayLines,
            spectra: filter.spectra, responseCount: filter.responseCount,
            forwardPlans: forwardPlans, inversePlans: inversePlans,
            deferredFrom: deferredFrom, results: results, windows: windows, states: states, boundaries: boundaries, flushesDenormals: flushes,
            oldSpectra: fadingFrom?.spectra, oldResponseCount: fadingFrom?.responseCount ?? 1,
            oldOutput: fadingFrom == nil ? nil : block(outputCapacity, channelCount),
            oldResults: fadingFrom == nil ? nil : block(deferredLargest, (levelCount - deferredFrom) * channelCount),
            fades: fadeFlags)
        position = .allocate(capacity: 1)
        position.initialize(to: 0)
        quietFrames = layout.length + 2 * max(largest, headTaps) + headTaps
        quiet = .allocate(capacity: 1)
        quiet.initialize(to: quietFrames)
        due = .allocate(capacity: count)
        due.initialize(repeating: -1, count: count)
        stale = .allocate(capacity: count)
        stale.initialize(repeating: false, count: count)
        let worker = threading.usesWorkers && deferredFrom < levelCount
            ? ConvolutionWorker(levels: shared, largest: largest, runs: counters.runsAtomic, realtimePriority: threading.realtimePriority) : nil
        self.worker = worker
        hasWorker = worker != nil
        wake = worker?.wake
        waitsForLateWork = threading.waitsForLateWork
        late = counters.lateAtomic
    }

    deinit {
        worker?.stop()  // before the memory it reads goes
        let s = shared
        for j in 0..<s.levelCount {
            if let p = s.forwardPlans[j] { FFTWPlanner.destroy(p) }
            if let p = s.inversePlans[j] { FFTWPlanner.destroy(p) }
        }
        for c in 0..<channelCount { fftwf_free(s.input[c]); fftwf_free(s.output[c]) }
        for i in 0..<(channelCount * s.levelCount) { fftwf_free(s.delayLines[i]) }
        for i in 0..<((s.levelCount - s.deferredFrom) * channelCount) { fftwf_free(s.results[i]); fftwf_free(s.windows[i]) }
        s.input.deallocate(); s.output.deallocate(); s.delayLines.deallocate(); s.results.deallocate(); s.windows.deallocate()
        scratch.free()
        s.forwardPlans.deallocate(); s.inversePlans.deallocate(); s.levels.deallocate()
        s.states.deallocate(); s.boundaries.deallocate(); s.flushesDenormals.deallocate(); s.fades.deallocate()
        if let old = s.oldOutput {
            for c in 0..<channelCount { fftwf_free(old[c]) }
            old.deallocate()
        }
        if let old = s.oldResults {
            for i in 0..<((s.levelCount - s.deferredFrom) * channelCount) { fftwf_free(old[i]) }
            old.deallocate()
        }
        fadeStart.deallocate(); oldHeadOutput.deallocate(); handover.free()
        position.deallocate(); quiet.deallocate(); due.deallocate(); stale.deallocate()
    }

    static func powerOfTwo(atLeast n: Int) -> Int { var p = 1; while p < n { p *= 2 }; return p }


    /// Convolves `frameCount` frames of every channel in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if handover.isHandedOver {
            handover.play(into: channels, frameCount: frameCount)
            return
        }
        defer { handover.keep(channels, frameCount: frameCount) }
        let s = shared
        let b = headTaps, inMask = s.inputCapacity - 1, outMask = s.outputCapacity - 1, capacity = s.inputCapacity
        var done = 0
        while done < frameCount {
            if quiet.pointee >= quietFrames {
                // Nothing but silence in the state: silent input passes as silence, and the
                // first sound starts the grid again at position 0, as in a fresh kernel — so
                // a stream's leading silence (a live host's cycles before the signal, a file's
                // lead-in) does not move the levels' grid on the signal.
                var first = frameCount
                for c in 0..<channelCount {
                    let x = channels[c]
                    var i = done
                    while i < first { if x[i] != 0 { first = i; break }; i += 1 }
                }
                done = first
                if done == frameCount { break }
                collectAll()
                position.pointee = 0
                quiet.pointee = 0
                fadeStart.pointee = -1  // nothing left of either filter's output to fade
            }
            let t = position.pointee
            if t % b == 0 {
                for j in s.deferredFrom..<s.levelCount where due[j] == t { collect(j, at: t) }
            }
            // Up to the next multiple of the head's size: where levels may be due.
            let n = min(frameCount - done, b - t % b)
            let fadeAt = fadeStart.pointee
            for c in 0..<channelCount {
                let x = channels[c] + done, ring = s.input[c], out = s.output[c]
                for i in 0..<n {
                    let at = (t + i) & inMask
                    ring[at] = x[i]; ring[at + capacity] = x[i]
                }
                // y[t + i] = Σ_m h[m]·x[t + i − m]: the window x[t + i − B + 1 … t + i] against the reversed head.
                let start = (t - b + 1) & inMask
                let head = UnsafePointer(heads + min(c, s.responseCount - 1) * b)
                _unsafePerformance { timbre_fir_block(head, ring + start, b, x, n) }
                if fadeAt < 0 {
                    for i in 0..<n {
                        let at = (t + i) & outMask
                        x[i] += out[at]; out[at] = 0
                    }
                } else if let oldHeads, let oldOutput = s.oldOutput {
                    // Crossfading: the old filter's convolution until fadeAt, then a linear
                    // fade over crossfadeFrames to the new one's.
                    let y = oldHeadOutput, old = oldOutput[c]
                    _unsafePerformance { timbre_fir_block(oldHeads + min(c, s.oldResponseCount - 1) * b, ring + start, b, y, n) }
                    for i in 0..<n {
                        let at = (t + i) & outMask
                        let a = y[i] + old[at], z = x[i] + out[at]
                        old[at] = 0; out[at] = 0
                        let w = Float(t + i - fadeAt) / Float(Self.crossfadeFrames)
                        x[i] = w <= 0 ? a : w >= 1 ? z : a + w * (z - a)
                    }
                }
            }
            if fadeAt >= 0 && t + n >= fadeAt + Self.crossfadeFrames { fadeStart.pointee = -1 }
            // The run of silent frames, from the inputs just written to the ring.
            var run = quiet.pointee
            for i in 0..<n {
                let at = (t + i) & inMask
                var silent = true
                for c in 0..<channelCount where s.input[c][at] != 0 { silent = false; break }
                run = silent ? min(run + 1, quietFrames) : 0
            }
            quiet.pointee = run
            position.pointee = t + n
            done += n
            let boundary = t + n
            if boundary % b == 0 {
                var posted = false
                for j in 0..<s.levelCount where boundary % s.levels[j].size == 0 {
                    if j < s.deferredFrom {
                        s.fades[j] = fadeStart.pointee >= 0
                        s.run(j, at: boundary, scratch: scratch)
                    } else {
                        posted = post(j, at: boundary, blockFrames: frameCount) || posted
                    }
                }
                if posted, let wake { _unsafePerformance { _ = sem_post(wake) } }
            }
        }
    }

    /// Starts deferred level j's job at `boundary`: posted to the worker (true) when its lead
    /// holds four blocks of `blockFrames`, else computed here. A level whose previous job is
    /// still running (abandoned late) loses this one.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func post(_ j: Int, at boundary: Int, blockFrames: Int) -> Bool {
        let s = shared, state = s.state(j)
        guard state.load(ordering: .acquiring) == ConvolutionLevels.Job.idle else {
            late.wrappingIncrement(ordering: .relaxed)
            return false
        }
        if stale[j] {
            for c in 0..<channelCount { s.delayLine(j, c).update(repeating: 0, count: s.lineFloats(j)) }
            stale[j] = false
        }
        s.boundaries[j] = boundary
        s.fades[j] = fadeStart.pointee >= 0
        s.capture(j, at: boundary)
        due[j] = s.due(j, boundary: boundary)
        if hasWorker && ConvolutionThreading.fitsWorker(lead: s.levels[j].start - s.levels[j].size, blockFrames: blockFrames) {
            s.flushesDenormals[j] = _unsafePerformance { timbre_ftz_daz_enabled() } != 0
            state.store(ConvolutionLevels.Job.posted, ordering: .releasing)
            return true
        }
        s.run(j, at: boundary, scratch: scratch)
        state.store(ConvolutionLevels.Job.done, ordering: .relaxed)
        return false
    }

    /// Adds deferred level j's outputs (due at `t`) to the output ring; a job not done is
    /// waited for (offline) or counted late and left out (live).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func collect(_ j: Int, at t: Int) {
        let s = shared, state = s.state(j)
        due[j] = -1
        var value = state.load(ordering: .acquiring)
        if value != ConvolutionLevels.Job.done && waitsForLateWork {
            while value == ConvolutionLevels.Job.posted || value == ConvolutionLevels.Job.running {
                _unsafePerformance { _ = sched_yield() }
                value = state.load(ordering: .acquiring)
            }
        }
        if value != ConvolutionLevels.Job.done {
            // Late: cancel it if it has not started, else abandon it (its worker drops it).
            if state.compareExchange(expected: ConvolutionLevels.Job.posted, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing).exchanged
                || state.compareExchange(expected: ConvolutionLevels.Job.running, desired: ConvolutionLevels.Job.abandoned, ordering: .acquiringAndReleasing).exchanged {
                late.wrappingIncrement(ordering: .relaxed)
                return
            }
            // It finished in between.
        }
        let n = s.levels[j].size, outMask = s.outputCapacity - 1
        for c in 0..<channelCount {
            let out = s.output[c], r = s.result(j, c)
            for i in 0..<n { out[(t + i) & outMask] += r[i] }
            if s.fades[j], let old = s.oldOutput?[c] {
                let r = s.oldResult(j, c)
                for i in 0..<n { old[(t + i) & outMask] += r[i] }
            }
        }
        state.store(ConvolutionLevels.Job.idle, ordering: .releasing)
    }

    /// Before the grid restarts at position 0 (the state is silent, so every outstanding job's
    /// outputs are zeros): the jobs are dropped — waited for offline — and nothing is pending.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func collectAll() {
        let s = shared
        for j in s.deferredFrom..<s.levelCount where due[j] >= 0 {
            due[j] = -1
            let state = s.state(j)
            if waitsForLateWork {
                while state.load(ordering: .acquiring) == ConvolutionLevels.Job.posted || state.load(ordering: .acquiring) == ConvolutionLevels.Job.running {
                    _unsafePerformance { _ = sched_yield() }
                }
            }
            if !state.compareExchange(expected: ConvolutionLevels.Job.posted, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing).exchanged
                && !state.compareExchange(expected: ConvolutionLevels.Job.running, desired: ConvolutionLevels.Job.abandoned, ordering: .acquiringAndReleasing).exchanged {
                _ = state.compareExchange(expected: ConvolutionLevels.Job.done, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing)
            }
        }
        for c in 0..<channelCount { s.output[c].update(repeating: 0, count: s.outputCapacity) }
    }
}

extension PartitionedConvolver: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A convolver running `filter` on `format`'s channels.
    public init?(_ filter: ConvolutionFilter, format: KernelFormat) { self.init(filter: filter, channelCount: format.channelCount) }

    /// Silence before, position 0 (off the render thread: waits for a running job).
    public func reset() {
        for j in shared.deferredFrom..<shared.levelCount {
            let state = shared.state(j)
            _ = state.compareExchange(expected: ConvolutionLevels.Job.posted, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing)
            while state.load(ordering: .acquiring) == ConvolutionLevels.Job.running { _ = sched_yield() }
            state.store(ConvolutionLevels.Job.idle, ordering: .releasing)
            due[j] = -1
        }
        clearState(keepingBusy: false)
        fadeStart.pointee = -1
        position.pointee = 0
        quiet.pointee = quietFrames
    }

    /// Zeroes the rings and delay lines; with `keepingBusy`, the delay lines of levels whose
    /// given-up jobs may still be writing them are cleared before their next job instead.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func clearState(keepingBusy: Bool) {
        let s = shared
        for c in 0..<channelCount {
            s.input[c].update(repeating: 0, count: 2 * s.inputCapacity)
            s.output[c].update(repeating: 0, count: s.outputCapacity)
            s.oldOutput?[c].update(repeating: 0, count: s.outputCapacity)
            for j in 0..<s.levelCount {
                if keepingBusy && j >= s.deferredFrom && s.state(j).load(ordering: .acquiring) != ConvolutionLevels.Job.idle { stale[j] = true; continue }
                s.delayLine(j, c).update(repeating: 0, count: s.lineFloats(j))
            }
        }
    }

    /// Takes over `previous`'s input, delay lines, pending outputs, jobs and position (the
    /// same layout and channels). With the same filter: exactly the uninterrupted output.
    /// From the filter this kernel was made to fade from (`fadingFrom`): the pending outputs
    /// are the old filter's, both filters run on, and the crossfade starts once every level
    /// has the new filter's outputs. Otherwise (another filter, or `previous` in the middle of
    /// its own crossfade) the pending outputs are what `previous` would have played, and the
    /// new filter takes over as its levels run.
    ///
    /// The memory is taken, not copied (`ConvolutionHandover`): the rings, delay lines and
    /// finished results change owner by pointer, so the cost does not grow with the response.
    /// From then on `previous` plays this kernel's output. Copied are only a level whose job
    /// `previous`'s worker is still computing (its slot and result are that job's to write:
    /// the rest is copied and the job posted again here) and, when `previous` is itself in
    /// the middle of a crossfade, the pending outputs it mixes.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing PartitionedConvolver) {
        let s = shared, p = previous.shared
        guard p.levelCount == s.levelCount, previous.headTaps == headTaps, previous.channelCount == channelCount,
              previous.delayLineFloats == delayLineFloats, p.outputCapacity == s.outputCapacity, p.inputCapacity == s.inputCapacity,
              p.deferredFrom == s.deferredFrom, !previous.handover.isHandedOver, !handover.isHandedOver else { return }
        for j in 0..<s.levelCount where p.levels[j] != s.levels[j] { return }
        let t0 = previous.position.pointee, outMask = s.outputCapacity - 1
        let previousFade = previous.fadeStart.pointee
        let fades = previousFade < 0 && fadingFromIdentity != nil && previous.filterIdentity == fadingFromIdentity
        // What `previous` plays at position q from its two rings: the old one's share.
        func oldShare(_ q: Int) -> Float {
            previousFade < 0 ? 0 : max(0, min(1, 1 - Float(q - previousFade) / Float(Self.crossfadeFrames)))
        }
        func swap(_ a: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, _ b: UnsafeMutablePointer<UnsafeMutablePointer<Float>>) {
            let t = a.pointee; a.pointee = b.pointee; b.pointee = t
        }
        var repost = false
        for c in 0..<channelCount {
            swap(s.input + c, p.input + c)
            if fades, let old = s.oldOutput {
                swap(old + c, p.output + c)  // this kernel's own output ring is still all zeros
            } else if previousFade >= 0, let pold = p.oldOutput?[c] {
                let o = s.output[c], q = p.output[c]
                for i in 0..<s.outputCapacity {
                    let share = oldShare(t0 + ((i - t0) & outMask))
                    o[i] = share * pold[i] + (1 - share) * q[i]
                }
            } else {
                swap(s.output + c, p.output + c)
            }
        }
        for j in 0..<s.levelCount {
            let level = s.levels[j]
            s.fades[j] = fades
            // A job in flight in `previous`: its fresh slot is still being written.
            var skip = -1
            if j >= s.deferredFrom {
                due[j] = previous.due[j]
                stale[j] = previous.stale[j]
                s.state(j).store(ConvolutionLevels.Job.idle, ordering: .relaxed)
                let state = p.state(j).load(ordering: .acquiring)
                if previous.due[j] >= 0 && state == ConvolutionLevels.Job.done {
                    for c in 0..<channelCount {
                        let index = (j - s.deferredFrom) * channelCount + c
                        if fades, let old = s.oldResults {
                            swap(old + index, p.results + index)  // this kernel's results are zeros
                        } else if previousFade >= 0 && p.fades[j] {
                            let r = s.result(j, c), q = p.result(j, c), pold = p.oldResult(j, c)
                            for i in 0..<level.size {
                                let share = oldShare(previous.due[j] + i)
                                r[i] = share * pold[i] + (1 - share) * q[i]
                            }
                        } else {
                            swap(s.results + index, p.results + index)
                        }
                    }
                    s.state(j).store(ConvolutionLevels.Job.done, ordering: .relaxed)
                } else if previous.due[j] >= 0 {
                    // Posted or running: cancel it there if it has not started; compute it here.
                    _ = p.state(j).compareExchange(expected: ConvolutionLevels.Job.posted, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing)
                    skip = (p.boundaries[j] / level.size) % level.count
                    s.boundaries[j] = p.boundaries[j]
                    for c in 0..<channelCount {
                        let w = s.window(j, c), v = p.window(j, c)  // its worker only reads it
                        for i in 0..<(2 * level.size) { w[i] = v[i] }
                    }
                    s.flushesDenormals[j] = p.flushesDenormals[j]
                    if hasWorker {
                        s.state(j).store(ConvolutionLevels.Job.posted, ordering: .releasing)
                        repost = true
                    }
                }
            }
            // A level `previous`'s worker may still write (a job in flight, or one given up
            // and still running) is copied around that job's slot; every other level's memory
            // changes owner.
            let running = j >= s.deferredFrom ? p.state(j).load(ordering: .acquiring) : ConvolutionLevels.Job.idle
            let busy = running != ConvolutionLevels.Job.idle && running != ConvolutionLevels.Job.done
            let written = skip >= 0 ? skip : busy ? (p.boundaries[j] / level.size) % level.count : -1
            for c in 0..<channelCount {
                if written < 0 {
                    swap(s.delayLines + c * s.levelCount + j, p.delayLines + c * p.levelCount + j)
                    continue
                }
                let d = s.delayLine(j, c), e = p.delayLine(j, c), bins = level.size + 1
                for slot in 0..<level.count where slot != written {
                    let from = slot * 2 * bins
                    for i in from..<(from + 2 * bins) { d[i] = e[i] }
                }
            }
            if skip >= 0 && !hasWorker {
                s.run(j, at: s.boundaries[j], scratch: scratch)
                s.state(j).store(ConvolutionLevels.Job.done, ordering: .relaxed)
            }
        }
        position.pointee = t0
        quiet.pointee = previous.quiet.pointee
        // Every output from t0 + reach on is the sum of level runs made from here, all with both
        // filters: the crossfade starts there (nothing to fade while the state is silent).
        fadeStart.pointee = fades && quiet.pointee < quietFrames ? t0 + reach : -1
        handover.connect(giver: previous.handover)
        if repost, let wake { _unsafePerformance { _ = sem_post(wake) } }
    }

    /// Clears everything if NaN or infinity reached the input, the pending outputs, the delay
    /// lines or a finished job; true when it did. Jobs in flight are given up (counted late).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        let s = shared
        var bad = false
        for c in 0..<channelCount {
            bad = bad || NonFiniteScan.contains(s.input[c], count: 2 * s.inputCapacity) || NonFiniteScan.contains(s.output[c], count: s.outputCapacity)
            if let old = s.oldOutput { bad = bad || NonFiniteScan.contains(old[c], count: s.outputCapacity) }
            for j in 0..<s.levelCount {
                let state = j >= s.deferredFrom ? s.state(j).load(ordering: .acquiring) : ConvolutionLevels.Job.idle
                if state == ConvolutionLevels.Job.posted || state == ConvolutionLevels.Job.running || state == ConvolutionLevels.Job.abandoned { continue }
                bad = bad || NonFiniteScan.contains(s.delayLine(j, c), count: s.lineFloats(j))
                if state == ConvolutionLevels.Job.done { bad = bad || NonFiniteScan.contains(s.result(j, c), count: s.levels[j].size) }
            }
        }
        guard bad else { return false }
        for j in s.deferredFrom..<s.levelCount where due[j] >= 0 {
            let state = s.state(j)
            due[j] = -1
            if !state.compareExchange(expected: ConvolutionLevels.Job.posted, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing).exchanged {
                _ = state.compareExchange(expected: ConvolutionLevels.Job.running, desired: ConvolutionLevels.Job.abandoned, ordering: .acquiringAndReleasing)
                _ = state.compareExchange(expected: ConvolutionLevels.Job.done, desired: ConvolutionLevels.Job.idle, ordering: .acquiringAndReleasing)
            }
        }
        clearState(keepingBusy: true)
        fadeStart.pointee = -1
        quiet.pointee = quietFrames  // silent now: the next sound starts the grid again
        return true
    }
}
