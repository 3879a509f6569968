import Foundation

/// A bitcrusher and decimator: each channel held for a run of frames at a lower rate
/// (sample and hold, a phase accumulator in Double so the rate is exact) and quantised to
/// `bits` bits (mid-tread: steps of 2^(1 − bits), 0 is a step), optionally with TPDF dither
/// (two uniform variables of ±½ step each, from a per-channel xorshift generator seeded at
/// prepare, so the output does not depend on the block size).
///
/// No anti-alias filter and no reconstruction filter, on purpose: the aliasing and the steps
/// are the sound (pedalboard's `Bitcrush`, ffmpeg's `acrusher`).
public struct Bitcrusher: ~Copyable, @unchecked Sendable {
    public struct Values: Sendable, Equatable {
        public var bits: Double
        /// Held frames per second (≥ the rate: no holding).
        public var holdRateHz: Double
        public var mix: Double
        public init(bits: Double, holdRateHz: Double, mix: Double) { self.bits = bits; self.holdRateHz = holdRateHz; self.mix = mix }
    }

    public let channelCount: Int
    public let dither: Bool
    public let sampleRate: Double
    /// Per channel: the held value, the accumulator, the generator's state.
    let held: UnsafeMutablePointer<Float>
    let accumulator: UnsafeMutablePointer<Double>
    let random: UnsafeMutablePointer<UInt64>
    let values: UnsafeMutablePointer<Values>

    public init(values: Values, dither: Bool, sampleRate: Double, channelCount: Int) {
        self.channelCount = channelCount; self.dither = dither; self.sampleRate = sampleRate
        held = .allocate(capacity: channelCount); held.initialize(repeating: 0, count: channelCount)
        accumulator = .allocate(capacity: channelCount); accumulator.initialize(repeating: 1, count: channelCount)
        random = .allocate(capacity: channelCount)
        for c in 0..<channelCount { (random + c).initialize(to: 0x9E37_79B9_7F4A_7C15 &* UInt64(c + 1)) }
        self.values = .allocate(capacity: 1); self.values.initialize(to: values)
    }

    deinit { held.deallocate(); accumulator.deallocate(); random.deallocate(); values.deallocate() }

    /// New values (audio thread, at a block's start; the steps are the sound, so they jump).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ v: Values) { values.pointee = v }

    /// A uniform value in −0.5…0.5 from channel c's generator (xorshift64*).
    @inline(__always)
    func uniform(_ c: Int) -> Double {
        var s = random[c]
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27
        random[c] = s
        return Double((s &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 53) - 0.5
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let v = values.pointee
        let levels = _unsafePerformance { exp2(v.bits - 1) }, step = min(1, v.holdRateHz / sampleRate), stepSize = 1 / levels
        let wet = Float(v.mix), dry = 1 - wet
        for c in 0..<channelCount {
            let x = channels[c]
            var a = accumulator[c], h = held[c]
            for i in 0..<frameCount {
                a += step
                if a >= 1 {
                    a -= 1
                    var q = Double(x[i]) * levels
                    if dither { q += uniform(c) + uniform(c) }
                    // To the nearest step, halves away from 0. (A non-finite or absurd sample —
                    // live input is not checked before the graph — holds 0 rather than trap.)
                    let r = q + (q >= 0 ? 0.5 : -0.5)
                    h = Float(Double(r.magnitude < 0x1p62 ? Int64(r) : 0) * stepSize)
                }
                x[i] = dry * x[i] + wet * h
            }
            accumulator[c] = a; held[c] = h
        }
    }
}

extension Bitcrusher {
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for c in 0..<channelCount { held[c] = 0; accumulator[c] = 1; random[c] = 0x9E37_79B9_7F4A_7C15 &* UInt64(c + 1) }
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing Bitcrusher) {
        guard previous.channelCount == channelCount else { return }
        for c in 0..<channelCount { held[c] = previous.held[c]; accumulator[c] = previous.accumulator[c]; random[c] = previous.random[c] }
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for c in 0..<channelCount where !held[c].isFinite { held[c] = 0; bad = true }
        return bad
    }
}
