import Foundation

/// Per-output alignment for active speakers: each channel delayed by its own number of frames
/// (fractions included), multiplied by its gain and polarity, and optionally held under its
/// own ceiling by a true-peak protection limiter. In place; the output does not depend on the
/// block size.
///
/// ```
/// x ─ ring (whole frames) ─ fractional FIR (96 taps, only if the delay has a fraction) ─ × gain ─ limiter ─▶
/// ```
///
/// **Latency.** A fractional delay needs ``FractionalDelayDesign/halfTaps`` − 1 whole frames
/// of its own, so the kernel adds `latencyFrames` to every channel, just enough that each
/// fractional delay can hold its taps (none when every delay is whole); the limiter adds its
/// lookahead. Channels stay aligned with each other exactly as asked.
///
/// **Limiter.** One `TruePeakLimiter` unlinked across channels at 0 dBTP; a channel limited
/// at c dB is scaled by 10^(−c/20) before it and back after (a peak limiter is
/// scale-invariant), a channel without a ceiling by 2⁻⁴⁰ (exact in binary, never reaching the
/// ceiling).
public struct DriverAlignment: ~Copyable, @unchecked Sendable {
    /// One output's settings.
    public struct Output: Sendable, Equatable, Hashable {
        /// Frames, ≥ 0 (fractions allowed).
        public var delayFrames: Double
        /// Linear gain, negative for inverted polarity.
        public var gain: Double
        /// The protection limiter's ceiling in dBTP, or nil.
        public var ceilingDB: Double?
        public init(delayFrames: Double = 0, gain: Double = 1, ceilingDB: Double? = nil) {
            self.delayFrames = delayFrames; self.gain = gain; self.ceilingDB = ceilingDB
        }
    }

    public let outputs: [Output]
    public let channelCount: Int
    /// Frames every channel is delayed by beyond its own delay (fraction headroom + limiter lookahead).
    public let latencyFrames: Int
    let fractionLatency: Int
    let maximumBlockFrames: Int
    /// Per channel: ring length (whole frames), ring offset in `rings`, and the write position.
    let ringLengths: UnsafeMutablePointer<Int>
    let ringOffsets: UnsafeMutablePointer<Int>
    let ringPositions: UnsafeMutablePointer<Int>
    let rings: UnsafeMutablePointer<Float>
    let ringTotal: Int
    /// Per channel: 1 if it has fractional taps.
    let hasTaps: UnsafeMutablePointer<Bool>
    /// Per channel 96 taps, reversed (tap for the oldest sample first), as Float.
    let taps: UnsafeMutablePointer<Float>
    /// Per channel `taps − 1 + maximumBlockFrames` samples of FIR history.
    let history: UnsafeMutablePointer<Float>
    let historyStride: Int
    /// Per channel: gain × limiter scale, and the scale back after it.
    let preGain: UnsafeMutablePointer<Float>
    let postGain: UnsafeMutablePointer<Float>
    /// The limiter, when any output has a ceiling (one owner: this kernel).
    let limiter: UnsafeMutablePointer<TruePeakLimiter>?

    /// The limiter's settings when any output has a ceiling: unlinked, 0 dBTP, 1.5 ms lookahead, 50 ms release.
    public static let limiterSettings = TruePeakLimiter.Settings(ceilingDB: 0, releaseSeconds: 0.05, lookaheadSeconds: 0.0015, link: 0)

    public init(outputs: [Output], sampleRate: Double, maximumBlockFrames: Int) {
        precondition(!outputs.isEmpty && outputs.allSatisfy { $0.delayFrames >= 0 })
        self.outputs = outputs
        channelCount = outputs.count
        self.maximumBlockFrames = maximumBlockFrames
        let h = FractionalDelayDesign.halfTaps, tapCount = FractionalDelayDesign.taps
        fractionLatency = Self.fractionLatency(outputs)
        var limiter: UnsafeMutablePointer<TruePeakLimiter>? = nil
        if outputs.contains(where: { $0.ceilingDB != nil }) {
            limiter = .allocate(capacity: 1)
            limiter!.initialize(to: TruePeakLimiter(settings: Self.limiterSettings, sampleRate: sampleRate, channelCount: outputs.count,
                                                    maximumBlockFrames: maximumBlockFrames))
        }
        latencyFrames = fractionLatency + (limiter?.pointee.latencyFrames ?? 0)
        self.limiter = limiter
        let n = outputs.count
        ringLengths = .allocate(capacity: n); ringOffsets = .allocate(capacity: n); ringPositions = .allocate(capacity: n)
        hasTaps = .allocate(capacity: n)
        taps = .allocate(capacity: n * tapCount)
        taps.initialize(repeating: 0, count: n * tapCount)
        historyStride = tapCount - 1 + maximumBlockFrames
        history = .allocate(capacity: n * historyStride)
        history.initialize(repeating: 0, count: n * historyStride)
        preGain = .allocate(capacity: n); postGain = .allocate(capacity: n)
        var total = 0
        for (c, o) in outputs.enumerated() {
            let delay = o.delayFrames + Double(fractionLatency)
            let whole = Int(delay.rounded(.down)), fraction = delay - Double(whole)
            let fractional = fraction > 0
            (hasTaps + c).initialize(to: fractional)
            let ring = fractional ? whole - (h - 1) : whole
            (ringLengths + c).initialize(to: ring)
            (ringOffsets + c).initialize(to: total)
            (ringPositions + c).initialize(to: 0)
            total += ring
            if fractional {
                let design = FractionalDelayDesign(fraction: fraction)
                for k in 0..<tapCount { taps[c * tapCount + k] = Float(design.coefficients[tapCount - 1 - k]) }
            }
            let scale = limiter == nil ? 1 : o.ceilingDB.map { pow(10, -$0 / 20) } ?? 0x1p-40
            (preGain + c).initialize(to: Float(o.gain * scale))
            (postGain + c).initialize(to: Float(1 / scale))
        }
        ringTotal = total
        rings = .allocate(capacity: max(1, total))
        rings.initialize(repeating: 0, count: max(1, total))
    }

    /// Whole frames the fractional delays lack for their taps: the most any needs.
    static func fractionLatency(_ outputs: [Output]) -> Int {
        let h = FractionalDelayDesign.halfTaps
        return outputs.filter { $0.delayFrames != $0.delayFrames.rounded(.down) }.map { max(0, h - 1 - Int($0.delayFrames.rounded(.down))) }.max() ?? 0
    }

    /// The frames a kernel for `outputs` delays every channel by beyond its own delay.
    public static func latencyFrames(for outputs: [Output], sampleRate: Double) -> Int {
        let lookahead = TruePeakLimiter.lookaheadFrames(limiterSettings, sampleRate: sampleRate)
        return fractionLatency(outputs) + (outputs.contains { $0.ceilingDB != nil } ? TruePeakLimiter.latencyFrames(lookaheadFrames: lookahead) : 0)
    }

    deinit {
        ringLengths.deallocate(); ringOffsets.deallocate(); ringPositions.deallocate(); rings.deallocate()
        hasTaps.deallocate(); taps.deallocate(); history.deallocate(); preGain.deallocate(); postGain.deallocate()
        if let limiter { limiter.deinitialize(count: 1); limiter.deallocate() }
    }

    /// Delays, scales and limits `frameCount` frames of ``channelCount`` channels in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let tapCount = FractionalDelayDesign.taps, stride = historyStride
        let rings = rings, history = history, taps = taps
        for c in 0..<channelCount {
            let x = channels[c]
            // Whole frames: a ring exchanged in runs, as DelayLine does.
            let length = ringLengths[c]
            if length > 0 {
                let ring = rings + ringOffsets[c]
                var p = ringPositions[c], i = 0
                while i < frameCount {
                    let m = min(frameCount - i, length - p), r = ring + p, y = x + i
                    for k in 0..<m { let delayed = r[k]; r[k] = y[k]; y[k] = delayed }
                    i += m; p += m
                    if p == length { p = 0 }
                }
                ringPositions[c] = p
            }
            // The fraction: history = the last 95 samples, then this block.
            if hasTaps[c] {
                let hist = history + c * stride, t = taps + c * tapCount
                for i in 0..<frameCount { hist[tapCount - 1 + i] = x[i]; x[i] = 0 }
                // Tap by tap over the block (a vectorised multiply-add per tap); every output
                // sample sums its taps in the same order at any block size.
                for k in 0..<tapCount {
                    let c = t[k], h = hist + k
                    for i in 0..<frameCount { x[i] += c * h[i] }
                }
                for k in 0..<(tapCount - 1) { hist[k] = hist[frameCount + k] }
            }
            let g = preGain[c]
            for i in 0..<frameCount { x[i] *= g }
        }
        if let limiter {
            limiter.pointee.process(channels, frameCount: frameCount)
            for c in 0..<channelCount {
                let x = channels[c], g = postGain[c]
                for i in 0..<frameCount { x[i] *= g }
            }
        }
    }

    /// Clears every delay and the limiter.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for i in 0..<max(1, ringTotal) { rings[i] = 0 }
        for i in 0..<(channelCount * historyStride) { history[i] = 0 }
        for c in 0..<channelCount { ringPositions[c] = 0 }
        limiter?.pointee.reset()
    }

    /// Clears the state if it holds NaN or infinity; true if it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var poisoned = NonFiniteScan.contains(rings, count: max(1, ringTotal)) || NonFiniteScan.contains(history, count: channelCount * historyStride)
        if let limiter, limiter.pointee.clearNonFinite() { poisoned = true }
        if poisoned { reset() }
        return poisoned
    }

    /// Takes over `previous`'s delay memories and limiter when its outputs are the same.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing DriverAlignment) {
        guard previous.channelCount == channelCount, previous.ringTotal == ringTotal, previous.latencyFrames == latencyFrames,
              previous.historyStride == historyStride else { return }
        for c in 0..<channelCount where previous.ringLengths[c] != ringLengths[c] || previous.hasTaps[c] != hasTaps[c] { return }
        for i in 0..<max(1, ringTotal) { rings[i] = previous.rings[i] }
        for i in 0..<(channelCount * historyStride) { history[i] = previous.history[i] }
        for c in 0..<channelCount { ringPositions[c] = previous.ringPositions[c] }
        if let limiter, let old = previous.limiter { limiter.pointee.continueState(from: old.pointee) }
    }
}
