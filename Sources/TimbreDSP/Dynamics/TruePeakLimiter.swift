import Foundation

/// A lookahead brickwall limiter on true peak: no output sample, and no inter-sample peak
/// between them, above the ceiling.
///
/// Per input frame n, each channel's peak between frames n − 32 and n − 31 is found by an
/// ``InterSamplePeakDetector`` (the true-peak meter's reconstruction: 4 points per sample
/// interval, 64 taps a point, and the parabola's vertex at each local maximum); with stereo
/// link the loudest channel's counts (partly, for `link` < 1). The
/// gain that frame needs is r[n] = min(1, ceiling / peak). Three stages turn it into a smooth
/// gain that is never above what any nearby peak needs:
///
/// 1. a running minimum of r over H = L + 32 frames (L: lookahead frames),
/// 2. a moving average of that over L frames — a ramp down that starts L frames before the peak,
/// 3. a release: the gain rises toward the average with time constant `release` in dB (it
///    covers 1 − 1/e of a rise in dB after one time constant) and falls with it at once.
///
/// The audio is delayed by D = L + 47 frames (the latency), which lines the 16 frames on either
/// side of every peak up inside the frames where the average is at or below that peak's gain. (Signalsmith Audio, "Designing a straightforward limiter", 2022, for the
/// minimum-then-average construction.) The inter-sample values of the output also depend on
/// the gain's slope across the span; ``Settings/marginDB`` (0.05 dB by default) keeps the
/// detector's own under-read and that effect below the ceiling, as the tests measure with an
/// independent 16× reconstruction.
///
/// With ``Settings/samplePeak`` it holds the samples only, as sample-peak limiters do (ffmpeg's
/// `alimiter`, LSP's limiter without oversampling): no detector (the peak of frame n is |x[n]|),
/// no neighbourhood (K = 0), so the latency is L − 1 and inter-sample peaks may pass the ceiling.
public struct TruePeakLimiter: @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        /// −20…0 dBTP.
        public var ceilingDB: Double
        public var releaseSeconds: Double
        public var lookaheadSeconds: Double
        /// 0…1: 0 each channel its own gain, 1 one gain for all.
        public var link: Double
        /// How far below the ceiling the detector aims, dB.
        public var marginDB: Double
        /// Hold the samples only (no inter-sample detector): cheaper, latency L − 1.
        public var samplePeak: Bool
        public init(ceilingDB: Double = -1, releaseSeconds: Double = 0.1, lookaheadSeconds: Double = 0.002, link: Double = 1, marginDB: Double = 0.05,
                    samplePeak: Bool = false) {
            self.ceilingDB = ceilingDB; self.releaseSeconds = releaseSeconds; self.lookaheadSeconds = lookaheadSeconds
            self.link = link; self.marginDB = marginDB; self.samplePeak = samplePeak
        }
    }

    public let settings: Settings
    public let channelCount: Int
    public let maximumBlockFrames: Int
    /// D = L + 47: frames the audio is delayed by.
    public let latencyFrames: Int
    /// L, the length of the gain ramp.
    public let lookaheadFrames: Int
    let holdFrames: Int
    /// One gain for every channel (mono, or `link` = 1): worked out once, from the loudest
    /// channel, into channel 0's state and gain row (the other channels' state is unused).
    let sharedGain: Bool
    let ceiling: Double
    let releaseCoefficient: Double
    let detector: InterSamplePeakDetector
    /// Per channel: the running-minimum deque (values, frame indices; `holdFrames` each), the
    /// average's ring (`lookaheadFrames`), and the scalars below.
    let minValues: UnsafeMutablePointer<Double>
    let minFrames: UnsafeMutablePointer<Int>
    let ring: UnsafeMutablePointer<Double>
    /// Per channel: [0] deque head, [1] deque count, [2] ring position, [3] frames seen.
    let counters: UnsafeMutablePointer<Int>
    /// Per channel: [0] the ring's sum, [1] the released gain (linear).
    let sums: UnsafeMutablePointer<Double>
    /// Per channel: log2 of the released gain while it rises (so a release costs one exp2 a
    /// frame, not two logarithms and an exp2), +∞ when not known.
    let logGains: UnsafeMutablePointer<Double>
    /// Per channel: frames since the running minimum last held a value under 1. From L on the
    /// average's ring holds only ones, and its sum is set to exactly L (no rounding carried).
    let unityRun: UnsafeMutablePointer<Int>
    /// Per channel `maximumBlockFrames`: the detector's peaks, then the gains; then one row for
    /// the loudest channel of each frame.
    let scratch: UnsafeMutablePointer<Float>
    let delay: DelayLine

    public init(settings: Settings, sampleRate: Double, channelCount: Int, maximumBlockFrames: Int) {
        precondition(channelCount >= 1 && maximumBlockFrames >= 1)
        self.settings = settings; self.channelCount = channelCount; self.maximumBlockFrames = maximumBlockFrames
        lookaheadFrames = max(1, Int((settings.lookaheadSeconds * sampleRate).rounded()))
        // A peak found at frame n lies near n − d (d: the detector's delay); the gain must be at
        // or below its need over the K = 16 frames either side of it.
        // (Sample peaks: the peak is the frame itself, d = K = 0.)
        let d = settings.samplePeak ? 0 : InterSamplePeakDetector.delayFrames, k = settings.samplePeak ? 0 : 16
        holdFrames = lookaheadFrames + 2 * k
        sharedGain = channelCount == 1 || settings.link >= 1
        latencyFrames = Self.latencyFrames(lookaheadFrames: lookaheadFrames, samplePeak: settings.samplePeak)
        precondition(latencyFrames == lookaheadFrames - 1 + d + k)
        ceiling = pow(10, (settings.ceilingDB - settings.marginDB) / 20)
        releaseCoefficient = settings.releaseSeconds > 0 ? exp(-1 / (settings.releaseSeconds * sampleRate)) : 0
        detector = InterSamplePeakDetector(channelCount: channelCount)
        minValues = .allocate(capacity: channelCount * holdFrames)
        minValues.initialize(repeating: 1, count: channelCount * holdFrames)
        minFrames = .allocate(capacity: channelCount * holdFrames)
        minFrames.initialize(repeating: 0, count: channelCount * holdFrames)
        ring = .allocate(capacity: channelCount * lookaheadFrames)
        counters = .allocate(capacity: 4 * channelCount)
        sums = .allocate(capacity: 2 * channelCount)
        logGains = .allocate(capacity: channelCount)
        logGains.initialize(repeating: .infinity, count: channelCount)
        unityRun = .allocate(capacity: channelCount)
        unityRun.initialize(repeating: 0, count: channelCount)
        scratch = .allocate(capacity: (2 * channelCount + 1) * maximumBlockFrames)
        scratch.initialize(repeating: 0, count: (2 * channelCount + 1) * maximumBlockFrames)
        delay = DelayLine(frames: latencyFrames, channelCount: channelCount)
        ring.initialize(repeating: 1, count: channelCount * lookaheadFrames)
        counters.initialize(repeating: 0, count: 4 * channelCount)
        sums.initialize(repeating: 0, count: 2 * channelCount)
        reset()
    }

    /// The latency of a limiter with `lookaheadFrames` of lookahead: L − 1 + 32 + 16 on true
    /// peak, L − 1 on sample peak.
    public static func latencyFrames(lookaheadFrames: Int, samplePeak: Bool = false) -> Int {
        max(1, lookaheadFrames) - 1 + (samplePeak ? 0 : InterSamplePeakDetector.delayFrames + 16)
    }

    public func deallocate() {
        detector.deallocate(); minValues.deallocate(); minFrames.deallocate(); ring.deallocate()
        counters.deallocate(); sums.deallocate(); logGains.deallocate(); unityRun.deallocate(); scratch.deallocate(); delay.deallocate()
    }

    /// Back to silence: unity gain, empty detector and delay.
    public func reset() {
        detector.reset(); delay.reset()
        ring.update(repeating: 1, count: channelCount * lookaheadFrames)
        counters.update(repeating: 0, count: 4 * channelCount)
        for c in 0..<channelCount { sums[2 * c] = Double(lookaheadFrames); sums[2 * c + 1] = 1; logGains[c] = .infinity; unityRun[c] = lookaheadFrames }
    }

    /// Continues `previous` (same lookahead and channels): its detector, gains and delayed audio.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueFrom(_ previous: TruePeakLimiter) {
        guard previous.lookaheadFrames == lookaheadFrames && previous.channelCount == channelCount else { return }
        detector.copyState(from: previous.detector)
        delay.copyState(from: previous.delay)
        // A shared gain lives in channel 0's state: every channel continues from it.
        for c in 0..<channelCount {
            let from = previous.sharedGain ? 0 : c
            for k in 0..<holdFrames { minValues[c * holdFrames + k] = previous.minValues[from * holdFrames + k]; minFrames[c * holdFrames + k] = previous.minFrames[from * holdFrames + k] }
            for k in 0..<lookaheadFrames { ring[c * lookaheadFrames + k] = previous.ring[from * lookaheadFrames + k] }
            for k in 0..<4 { counters[4 * c + k] = previous.counters[4 * from + k] }
            for k in 0..<2 { sums[2 * c + k] = previous.sums[2 * from + k] }
            logGains[c] = previous.logGains[from]
            unityRun[c] = previous.unityRun[from]
        }
    }

    /// Sets NaN and infinity in the memory to zero (gains to 1). Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func clearNonFinite() {
        if delay.hasNonFiniteState { delay.reset() }
        var bad = false
        for k in 0..<(2 * channelCount) where !sums[k].isFinite { bad = true }
        for c in 0..<channelCount where logGains[c].isNaN { bad = true }
        for k in 0..<(channelCount * lookaheadFrames) where !ring[k].isFinite { bad = true }
        if bad { reset() }
    }

    /// Limits `frameCount` (≤ `maximumBlockFrames`) frames of `channels` in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let peaks = scratch, gains = scratch + channelCount * maximumBlockFrames, stride = maximumBlockFrames
        // 1. Per-frame inter-sample peaks.
        // (Stretches too quiet to reach the ceiling skip the reconstruction: only frames
        // over `ceiling` change the gain, and those are always reconstructed exactly.)
        if settings.samplePeak {
            for c in 0..<channelCount {
                let x = channels[c], p = peaks + c * stride
                for i in 0..<frameCount { p[i] = abs(x[i]) }
            }
        } else {
            detector.process(channels, frameCount: frameCount, into: peaks, stride: stride, floor: Float(ceiling))
        }
        // 2. Required gain, running minimum, moving average, release — per channel.
        let link = settings.link, ceiling = ceiling, release = releaseCoefficient
        let hold = holdFrames, length = lookaheadFrames, inverseLength = 1 / Double(lookaheadFrames)
        let rows = sharedGain ? 1 : channelCount
        // At rest — nothing in this block over the ceiling, and every row settled at unity (the
        // ring all ones, the running minimum a single 1, the gain where a ring of ones puts it) —
        // every frame's gain is that of the frame before: only the counters move on.
        if atRest(rows: rows, peaks: peaks, stride: stride, frameCount: frameCount) {
            for c in 0..<rows {
                let frame = counters[4 * c + 3] + frameCount - 1
                counters[4 * c + 3] = frame + 1
                minFrames[c * hold + counters[4 * c]] = frame
                counters[4 * c + 2] = (counters[4 * c + 2] + frameCount) % length
                unityRun[c] += frameCount
                logGains[c] = .infinity
                let g = gains + c * stride, value = Float(sums[2 * c + 1])
                for i in 0..<frameCount { g[i] = value }
            }
            delay.process(channels, frameCount: frameCount)
            for c in 0..<channelCount {
                let p = channels[c], g = gains[(sharedGain ? 0 : c) * stride]
                if g != 1 { for i in 0..<frameCount { p[i] *= g } }
            }
            return
        }
        // The loudest channel of each frame, then each row's frames in a row with its state in
        // locals (rows are independent; kept in registers, not re-read through pointers).
        let loudest = scratch + 2 * channelCount * stride
        for i in 0..<frameCount {
            var m: Float = 0
            for c in 0..<channelCount { m = max(m, peaks[c * stride + i]) }
            loudest[i] = m
        }
        for c in 0..<rows {
            let values = minValues + c * hold, frames = minFrames + c * hold, r = ring + c * length
            let own = peaks + c * stride, g = gains + c * stride
            var head = counters[4 * c], count = counters[4 * c + 1], at = counters[4 * c + 2], frame = counters[4 * c + 3]
            var sum = sums[2 * c], previous = sums[2 * c + 1], logGain = logGains[c], run = unityRun[c]
            for i in 0..<frameCount {
                let peak = sharedGain ? Double(loudest[i]) : link * Double(loudest[i]) + (1 - link) * Double(own[i])
                let needed = peak > ceiling ? ceiling / peak : 1
                // Running minimum over the last `hold` frames: a deque of increasing values;
                // slot j is (head + j) mod hold, with head, j < hold: a subtraction, no division.
                if count > 0 && frames[head] <= frame - hold { head = head + 1 == hold ? 0 : head + 1; count -= 1 }
                while count > 0 {
                    let last = head + count - 1
                    if values[last >= hold ? last - hold : last] < needed { break }
                    count -= 1
                }
                let tail = head + count >= hold ? head + count - hold : head + count
                values[tail] = needed; frames[tail] = frame; count += 1
                frame += 1
                let held = values[head]
                // Moving average over `length` frames (its sum reset to exactly L once the ring
                // holds only ones again).
                sum += held - r[at]; r[at] = held
                at = at + 1 == length ? 0 : at + 1
                if held < 1 { run = 0 } else {
                    run += 1
                    if run >= length { sum = Double(length) }
                }
                let average = min(1, sum * inverseLength)
                // Release in dB: log2 g' = α·log2 g + (1−α)·log2 average when rising (its log
                // carried from frame to frame); the average at once when falling.
                var gain = average
                if average > previous {
                    if logGain == .infinity { logGain = Double(FastLogExp.log2(Float(previous))) }
                    let logAverage = average >= 1 ? 0 : Double(FastLogExp.log2(Float(average)))
                    let l = release * logGain + (1 - release) * logAverage
                    let released = Double(FastLogExp.exp2(Float(l)))
                    if released < average { gain = released; logGain = l } else { logGain = .infinity }
                } else {
                    logGain = .infinity
                }
                previous = gain
                g[i] = Float(gain)
            }
            counters[4 * c] = head; counters[4 * c + 1] = count; counters[4 * c + 2] = at; counters[4 * c + 3] = frame
            sums[2 * c] = sum; sums[2 * c + 1] = previous; logGains[c] = logGain; unityRun[c] = run
        }
        // 3. The delayed audio times the gain.
        delay.process(channels, frameCount: frameCount)
        for c in 0..<channelCount {
            let p = channels[c], g = gains + (sharedGain ? 0 : c) * stride
            for i in 0..<frameCount { p[i] *= g[i] }
        }
    }

    /// True when no frame of the block is over the ceiling and every row is settled at unity
    /// (see `process`).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func atRest(rows: Int, peaks: UnsafeMutablePointer<Float>, stride: Int, frameCount: Int) -> Bool {
        let steady = min(1, Double(lookaheadFrames) * (1 / Double(lookaheadFrames)))
        for c in 0..<rows {
            guard unityRun[c] >= lookaheadFrames, sums[2 * c] == Double(lookaheadFrames), sums[2 * c + 1] == steady,
                  counters[4 * c + 1] == 1, minValues[c * holdFrames + counters[4 * c]] == 1 else { return false }
        }
        let limit = Float(ceiling)
        for c in 0..<channelCount {
            let p = peaks + c * stride
            for i in 0..<frameCount where Double(p[i]) > ceiling || p[i] > limit { return false }
        }
        return true
    }

    /// The smallest gain of the last `process` call (its `frameCount` frames, every channel), dB.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func lowestGainDB(frameCount: Int) -> Double {
        min(0, GainRows.lowestDB(scratch + channelCount * maximumBlockFrames, rows: sharedGain ? 1 : channelCount, stride: maximumBlockFrames, frameCount: frameCount))
    }
}
