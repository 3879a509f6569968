import Foundation

/// Real-time pitch shift at unchanged duration, ±24 semitones, with a fixed latency: the
/// ``TimeStretcher`` (streaming options) stretches by the pitch factor P, and a
/// ``VariableResampler`` plays the stretched signal P× faster.
///
/// The two stay locked frame for frame: each stretch of `hop` stretched frames that stands for
/// `hop × rate` input frames (the stretcher's clock, recorded per frame) is played in exactly
/// `hop × rate` output frames (resampler step 1 / rate = the pitch factor in effect then).
/// Output frame u is therefore input frame u − ``latencyFrames`` (within a frame), through
/// glides too, and the latency never drifts.
///
/// A new pitch (``setSemitones(_:)``) is reached by a linear glide (in semitones) lasting
/// ``glideSeconds`` whatever the interval; the
/// stretcher's rate follows block by block and the resampler's step segment by segment, so a
/// change never clicks. `process` allocates nothing and takes no lock.
public struct PitchShifter: ~Copyable {
    public let channelCount: Int
    public let sampleRate: Double
    public let maximumBlockFrames: Int
    /// Output frame u is input frame u − latencyFrames.
    public let latencyFrames: Int
    public static let semitoneRange: ClosedRange<Double> = -24...24
    public static let glideSeconds = 0.1

    let storage: Storage

    public init(sampleRate: Double, channelCount: Int, semitones: Double = 0, maximumBlockFrames: Int) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.maximumBlockFrames = maximumBlockFrames
        storage = Storage(sampleRate: sampleRate, channelCount: channelCount, semitones: semitones, maximumBlockFrames: maximumBlockFrames)
        latencyFrames = storage.latency
    }

    /// Back to the start of a stream at the target pitch (no glide pending), the latency's
    /// silence first again.
    public func reset() { storage.reset() }

    /// Zeroes NaN and infinity in the shifter's memory; true when there was some. Allocation-free (a render path uses ``renderHandle``, which counts no references).
    @discardableResult
    public func clearNonFinite() -> Bool { storage.clearNonFinite() }

    /// The pitch the shifter glides to (clamped to ±24 semitones).
    public func setSemitones(_ semitones: Double) { storage.setTarget(semitones) }

    /// The pitch now (moving toward the target during a glide).
    public var semitones: Double { storage.semitones }

    /// Stretched frames that were not ready when the output needed them (filled with silence);
    /// zero unless the latency was sized wrong.
    public var underruns: Int { storage.underruns }

    /// Shifts `frameCount` (≤ `maximumBlockFrames`) frames from `input` into `output`.
    public func process(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        storage.process(input: input, output: output, frameCount: frameCount)
    }

    /// The latency a shifter built for `sampleRate` has (``latencyFrames``), known without building one.
    public static func latencyFrames(sampleRate: Double) -> Int {
        let n = TimeStretcher.frameSize(sampleRate: sampleRate)
        let hop = n / 8  // the streaming stretcher's hop (rates up to 4)
        // A stretched frame is final once input reaches its window end and an onset chunk; the
        // resampler reads `reach` stretched frames past its position; at rate r (input per
        // stretched frame, up to 4) those stretched frames cost r× as many input frames.
        let reach = Int(Double(VariableResampler.zeroCrossings) * 4) + 2
        return n / 2 + OnsetDetector.chunkFrames + 4 * (n / 2 + reach) + 2 * hop
    }

    /// A handle for real-time code, copied freely and never reference-counted: whoever holds the
    /// ``PitchShifter`` keeps it alive while handles are in use.
    public var renderHandle: RenderHandle { RenderHandle(storage: .passUnretained(storage)) }

    /// See ``PitchShifter/renderHandle``.
    public struct RenderHandle: @unchecked Sendable {
        let storage: Unmanaged<Storage>

        /// Glides toward `targetSemitones` (if it changed) and shifts `frameCount` frames
        /// (≤ `maximumBlockFrames`) from `input` into `output`; the two may be the same buffers.
        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        public func process(targetSemitones: Double, input: UnsafePointer<UnsafePointer<Float>>,
                            output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
            storage._withUnsafeGuaranteedRef {
                $0.setTarget(targetSemitones)
                $0.process(input: input, output: output, frameCount: frameCount)
            }
        }

        /// Back to the start of a stream at the target pitch, as ``PitchShifter/reset()``. Not
        /// for the audio thread (it designs the stretcher's rate): a host calls it after its
        /// warm-up, before real-time rendering starts.
        public func reset() { storage._withUnsafeGuaranteedRef { $0.reset() } }

        /// Clears NaN and infinity from the shifter's memory (after non-finite input, which would
        /// otherwise stay in its overlap-add and resampler history for good). Real-time safe.
        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        @discardableResult
        public func clearNonFinite() -> Bool { storage._withUnsafeGuaranteedRef { $0.clearNonFinite() } }

        /// Stretched frames that were not ready in time (see ``PitchShifter/underruns``).
        public var underruns: Int { storage._withUnsafeGuaranteedRef { $0.underruns } }
    }

    final class Storage {
        let channels: Int
        let stretcher: TimeStretcher
        /// The stretcher's storage, reached without reference counting in `process`.
        let stretch: Unmanaged<TimeStretcher.Storage>
        let resampler: VariableResampler
        let latency: Int
        var semitones: Double
        var targetSemitones: Double
        var glidePerFrame = 0.0
        // Stretched frames waiting for the resampler: absolute stretched index fifoStart ..< fifoStart + fifoCount,
        // stored at fifo[c][fifoRead ..< fifoRead + fifoCount] (moved to the front only when the end is reached).
        let fifo: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let fifoCapacity: Int
        var fifoStart = 0, fifoCount = 0, fifoRead = 0
        let fifoPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let fifoConst: UnsafeMutablePointer<UnsafePointer<Float>>
        let subOutput: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        // Output bookkeeping: frames emitted; the resampler started after `latency` frames.
        var emitted = 0
        var segment = -1
        /// Output frames left in the current stretch segment (fractional; ≤ 0: take the next one).
        var segmentLeft = 0.0
        var underruns = 0

        let sampleRate: Double

        init(sampleRate: Double, channelCount: Int, semitones: Double, maximumBlockFrames: Int) {
            channels = channelCount; self.sampleRate = sampleRate
            self.semitones = semitones; targetSemitones = semitones
            let p = pow(2, semitones / 12)
            stretcher = TimeStretcher(sampleRate: sampleRate, channelCount: channelCount, rate: 1 / p,
                                      maximumPushFrames: maximumBlockFrames, options: .streaming)
            stretch = .passUnretained(stretcher.storage)
            resampler = VariableResampler(channelCount: channelCount, step: p, maximumStep: 4, maximumOutputFrames: maximumBlockFrames, smoothingFrames: 1)
            // Latency: a stretched frame is final once input reaches its frame's window end and an
            // onset chunk; the resampler reads `reach` stretched frames past its position; at rate r
            // (input per stretched frame, up to 4) those stretched frames cost r× as many input frames.
            let n = stretcher.fftSize
            precondition(stretcher.hop == n / 8)
            latency = PitchShifter.latencyFrames(sampleRate: sampleRate)
            fifoCapacity = 4 * (maximumBlockFrames + latency) + 4 * n
            fifo = .allocate(capacity: channelCount)
            for c in 0..<channelCount {
                fifo[c] = .allocate(capacity: fifoCapacity)
                fifo[c].initialize(repeating: 0, count: fifoCapacity)  // (clearNonFinite reads all of it)
            }
            fifoPointers = .allocate(capacity: channelCount)
            fifoConst = .allocate(capacity: channelCount)
            subOutput = .allocate(capacity: channelCount)
        }

        /// The state `init` leaves, at the target pitch.
        func reset() {
            semitones = targetSemitones; glidePerFrame = 0
            let p = pow(2, semitones / 12)
            stretcher.setRate(1 / p)
            stretcher.reset()
            resampler.reset(step: p)
            fifoStart = 0; fifoCount = 0; fifoRead = 0
            emitted = 0; segment = -1; segmentLeft = 0; underruns = 0
        }

        /// Frees the FIFO (the stretcher and resampler free themselves).
        deinit {
            for c in 0..<channels { fifo[c].deallocate() }
            fifo.deallocate()
            fifoPointers.deallocate(); fifoConst.deallocate(); subOutput.deallocate()
        }

        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        @discardableResult
        func clearNonFinite() -> Bool {
            var found = false
            for c in 0..<channels where NonFiniteScan.zero(fifo[c], count: fifoCapacity) { found = true }
            let stretched = stretch._withUnsafeGuaranteedRef { $0.clearNonFinite() }
            return resampler.clearNonFinite() || stretched || found
        }

        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        func setTarget(_ semitones: Double) {
            let target = min(PitchShifter.semitoneRange.upperBound, max(PitchShifter.semitoneRange.lowerBound, semitones))
            guard target != targetSemitones else { return }
            targetSemitones = target
            glidePerFrame = abs(target - self.semitones) / (PitchShifter.glideSeconds * sampleRate)
        }

        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        func process(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
            // Glide (per block; the stretcher applies it from its next frame).
            let glide = glidePerFrame * Double(frameCount)
            semitones += max(-glide, min(glide, targetSemitones - semitones))
            let now = semitones
            let rate = 1 / _unsafePerformance { pow(2, now / 12) }
            // (Closures over trivial values only: the guaranteed reference costs no reference counting.)
            let st = stretch, clamped = min(max(TimeStretcher.rateRange.lowerBound, rate), TimeStretcher.rateRange.upperBound)
            st._withUnsafeGuaranteedRef { $0.rate = clamped }
            st._withUnsafeGuaranteedRef { $0.push(input, frameCount: frameCount) }
            // Everything the stretcher has ready goes into the FIFO.
            let ready = st._withUnsafeGuaranteedRef { $0.ready - $0.outStart }
            if ready > 0 {
                if fifoCount + ready > fifoCapacity { preconditionFailure("PitchShifter FIFO overflow") }
                if fifoRead + fifoCount + ready > fifoCapacity {
                    for c in 0..<channels { let f = fifo[c]; for i in 0..<fifoCount { f[i] = f[fifoRead + i] } }
                    fifoRead = 0
                }
                for c in 0..<channels { fifoPointers[c] = fifo[c] + fifoRead + fifoCount }
                let destination = UnsafePointer(fifoPointers)
                st._withUnsafeGuaranteedRef { $0.pull(destination, frameCount: ready) }
                fifoCount += ready
            }
            var done = 0
            // The first `latency` output frames are silence.
            if emitted < latency {
                let n = min(frameCount, latency - emitted)
                for c in 0..<channels { let o = output[c]; for i in 0..<n { o[i] = 0 } }
                done = n; emitted += n
            }
            while done < frameCount {
                if segmentLeft <= 0 {
                    // Stretch segment j (stretched frames j·hop ..< (j+1)·hop) plays in hop × rate_j output frames.
                    let scheduled = st._withUnsafeGuaranteedRef { $0.frameIndex }, hop = st._withUnsafeGuaranteedRef { $0.hop }
                    guard segment + 1 < scheduled else { break }
                    segment += 1
                    let j = segment & (TimeStretcher.scheduleCapacity - 1)
                    let nominal = st._withUnsafeGuaranteedRef { $0.schedule[j] }
                    segmentLeft += nominal
                    resampler.jumpStep(to: Double(hop) / nominal)
                }
                let whole = Int(segmentLeft)  // segmentLeft > 0: rounded up below
                let n = min(frameCount - done, Double(whole) < segmentLeft ? whole + 1 : whole)
                let need = resampler.inputFramesNeeded(forOutputFrames: n)
                guard need <= fifoCount else { break }
                for c in 0..<channels { fifoConst[c] = UnsafePointer(fifo[c] + fifoRead); subOutput[c] = output[c] + done }
                resampler.process(input: fifoConst, inputFrames: need, output: subOutput, outputFrames: n)
                fifoRead += need; fifoCount -= need; fifoStart += need
                done += n; segmentLeft -= Double(n); emitted += n
            }
            if done < frameCount {
                // Not ready (the latency was too small): silence, counted.
                underruns += frameCount - done
                for c in 0..<channels { let o = output[c]; for i in done..<frameCount { o[i] = 0 } }
                emitted += frameCount - done
            }
        }
    }
}

extension PitchShifter: AudioKernel {
    /// A shifter by `semitones` (±24) for `format`.
    public init?(_ semitones: Double, format: KernelFormat) {
        guard Self.semitoneRange.contains(semitones) else { return nil }
        self.init(sampleRate: format.sampleRate, channelCount: format.channelCount, semitones: semitones, maximumBlockFrames: format.maximumBlockFrames)
    }
}
