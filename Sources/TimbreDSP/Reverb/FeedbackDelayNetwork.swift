import Foundation

/// An algorithmic reverb: a 16-line feedback delay network (Jot & Chaigne 1991; Jot 1992)
/// with a Hadamard feedback matrix (orthogonal, so the loop itself neither gains nor loses
/// energy), a frequency-dependent absorption in every line, a predelay, input diffusion,
/// early reflections, slowly modulated line lengths against metallic ringing, freeze, width
/// and mix.
///
/// ```
///  x ─▶ predelay ─┬─▶ early taps ───────────────────────────────┐
///                 └─▶ 4 diffusing all-passes ─▶ b ─▶ (+) ─▶ 16 lines ─▶ absorption ─┬─▶ c_L, c_R ─▶ width ─▶ (+) ─▶ mix
///                                                   ▲                                │
///                                                   └──────────── Hadamard / 4 ◀─────┘
/// ```
///
/// Absorption (Jot's method with three bands): line i of m_i frames loses, per pass, the gain
/// that makes a decay of T60 — g = 10^(−3 m_i / (T60 · rate)) — for the mid band's T60
/// (`decay`), and a first-order low shelf and high shelf (Zölzer, DAFX §2.3) bring the gain
/// to the low band's (decay × `lowMultiplier`) below `lowCrossover` and the high band's
/// (decay × `highMultiplier`) above `highCrossover`. Every line gets the same T60 curve, so
/// the tail decays at it whatever the path (`FeedbackDelayNetworkTests` measures T60 per octave
/// band by Schroeder's backward integration against it).
///
/// Freeze: the input fades out, the absorption and the modulation fade to none (integer
/// reads: the loop is lossless), so the tail holds its energy. Per frame at absolute
/// positions: the same output for every block size.
public struct FeedbackDelayNetwork: ~Copyable, @unchecked Sendable {
    public struct Values: Sendable, Equatable {
        /// Mid-band T60, seconds.
        public var decay: Double
        public var lowMultiplier: Double
        public var highMultiplier: Double
        public var lowCrossoverHz: Double
        public var highCrossoverHz: Double
        /// 0…1: the input all-passes' gain is 0.75 × this.
        public var diffusion: Double
        /// Linear gain of the early reflections.
        public var early: Double
        /// 0…2: the wet side signal's scale.
        public var width: Double
        /// Frames each line's length swings (0: none).
        public var modulationFrames: Double
        public var freeze: Bool
        public var mix: Double
        public init(decay: Double, lowMultiplier: Double = 1, highMultiplier: Double = 0.5, lowCrossoverHz: Double = 250, highCrossoverHz: Double = 4_000,
                    diffusion: Double = 0.7, early: Double = 0.5, width: Double = 1, modulationFrames: Double = 8, freeze: Bool = false, mix: Double = 0.3) {
            self.decay = decay; self.lowMultiplier = lowMultiplier; self.highMultiplier = highMultiplier
            self.lowCrossoverHz = lowCrossoverHz; self.highCrossoverHz = highCrossoverHz; self.diffusion = diffusion; self.early = early
            self.width = width; self.modulationFrames = modulationFrames; self.freeze = freeze; self.mix = mix
        }
    }

    public static let lineCount = 16
    /// The lines' nominal lengths at size 1, seconds: 17 ms to 99 ms, geometric (each made a
    /// prime number of frames at the session's rate, so no two share a period).
    static func nominalSeconds(_ i: Int) -> Double { 0.017 * pow(5.8, Double(i) / Double(lineCount - 1)) }
    /// Early reflections: (ms at size 1, gain, side) — a room's first echoes, alternating sides.
    static let earlyTaps: [(ms: Double, gain: Double, left: Bool)] = [
        (4.3, 0.84, true), (7.1, 0.74, false), (10.9, 0.66, true), (13.7, 0.59, false), (17.9, 0.52, true), (21.1, 0.47, false),
        (26.3, 0.41, true), (31.9, 0.36, false), (37.3, 0.31, true), (43.7, 0.27, false), (51.1, 0.23, true), (59.3, 0.19, false),
    ]
    /// The input all-passes' lengths, seconds (Dattorro's plate: 142, 107, 379, 277 frames at 29.8 kHz).
    static let diffuserSeconds: [Double] = [142 / 29_761, 107 / 29_761, 379 / 29_761, 277 / 29_761]

    public let channelCount: Int
    public let sampleRate: Double
    public let size: Double
    public let predelayFrames: Int
    /// Line lengths, frames (primes).
    public let lengths: [Int]
    let lineLength: UnsafeMutablePointer<Int>
    /// Each line's ring (`lineCapacity` frames each, power of two ≥ length + swing + 4).
    let lines: UnsafeMutablePointer<Float>
    let lineCapacity: Int
    /// Absorption per line: mid gain, low-shelf (c, k), high-shelf (c, k) and the shelves' states.
    let absorption: UnsafeMutablePointer<Double>
    /// Input: predelay ring, diffusers' rings, early-reflection taps.
    let predelay: UnsafeMutablePointer<Float>
    let predelayCapacity: Int
    let diffusers: UnsafeMutablePointer<Float>
    let diffuserLength: UnsafeMutablePointer<Int>
    let diffuserCapacity: Int
    let earlyDelay: UnsafeMutablePointer<Int>
    /// Each early tap's gain, signed by side (+: left, −: right), and their count.
    let earlyGain: UnsafeMutablePointer<Double>
    let earlyCount: Int
    /// The lines' oscillators: phase (cycles) and increment per frame, 16 each.
    let phases: UnsafeMutablePointer<Double>
    /// Scratch for one frame's 16 line values.
    let scratch: UnsafeMutablePointer<Double>
    let state: UnsafeMutablePointer<State>
    let rampFrames: Int

    struct State {
        var position = 0
        var diffusion: LinearRamp
        var early: LinearRamp
        var width: LinearRamp
        var modulation: LinearRamp
        var input: LinearRamp
        var wet: LinearRamp
        var dry: LinearRamp
        var frozen: Bool
    }

    /// The longest predelay, seconds.
    public static let maximumPredelay = 0.5

    public init(values: Values, size: Double, predelaySeconds: Double, sampleRate: Double, channelCount: Int) {
        precondition(channelCount >= 1 && size > 0)
        self.channelCount = channelCount; self.sampleRate = sampleRate; self.size = size
        let lengths = Self.lineLengths(size: size, sampleRate: sampleRate)
        self.lengths = lengths
        lineLength = .allocate(capacity: Self.lineCount)
        lineLength.initialize(from: lengths, count: Self.lineCount)
        var c = 8
        while c < lengths.max()! + 64 + 8 { c *= 2 }
        lineCapacity = c
        lines = .allocate(capacity: Self.lineCount * c)
        lines.initialize(repeating: 0, count: Self.lineCount * c)
        absorption = .allocate(capacity: Self.lineCount * 9)
        absorption.initialize(repeating: 0, count: Self.lineCount * 9)
        predelayFrames = max(0, Int((predelaySeconds * sampleRate).rounded()))
        var p = 8
        let earliest = Self.earlyTaps.map(\.ms).max()! / 1000 * size
        while p < Int((Self.maximumPredelay + earliest) * sampleRate) + 4 { p *= 2 }
        predelayCapacity = p
        predelay = .allocate(capacity: p)
        predelay.initialize(repeating: 0, count: p)
        diffuserLength = .allocate(capacity: 4)
        var d = 8
        for (k, s) in Self.diffuserSeconds.enumerated() {
            let n = max(1, Int((s * size.squareRoot() * sampleRate).rounded()))
            (diffuserLength + k).initialize(to: n)
            while d < n + 1 { d *= 2 }
        }
        diffuserCapacity = d
        diffusers = .allocate(capacity: 4 * d)
        diffusers.initialize(repeating: 0, count: 4 * d)
        earlyDelay = .allocate(capacity: Self.earlyTaps.count)
        earlyGain = .allocate(capacity: Self.earlyTaps.count)
        earlyCount = Self.earlyTaps.count
        for (k, tap) in Self.earlyTaps.enumerated() {
            (earlyDelay + k).initialize(to: max(1, Int((tap.ms / 1000 * size * sampleRate).rounded())))
            (earlyGain + k).initialize(to: tap.left ? tap.gain : -tap.gain)
        }
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        phases = .allocate(capacity: 2 * Self.lineCount)
        for i in 0..<Self.lineCount {
            (phases + i).initialize(to: Double(i) / Double(Self.lineCount))
            // 0.13 … 0.83 Hz, each line its own rate.
            (phases + Self.lineCount + i).initialize(to: (0.13 + 0.047 * Double(i)) / sampleRate)
        }
        scratch = .allocate(capacity: Self.lineCount)
        scratch.initialize(repeating: 0, count: Self.lineCount)
        state = .allocate(capacity: 1)
        state.initialize(to: State(diffusion: LinearRamp(value: Float(values.diffusion)), early: LinearRamp(value: Float(values.early)),
                                   width: LinearRamp(value: Float(values.width)), modulation: LinearRamp(value: Float(values.freeze ? 0 : values.modulationFrames)),
                                   input: LinearRamp(value: values.freeze ? 0 : 1), wet: LinearRamp(value: Float(values.mix)), dry: LinearRamp(value: Float(1 - values.mix)),
                                   frozen: values.freeze))
        let designed = Self.absorption(values, lengths: lengths, sampleRate: sampleRate)
        for i in 0..<Self.lineCount { for k in 0..<5 { absorption[9 * i + k] = designed[5 * i + k] } }
    }

    /// The lines' lengths in frames at `size` and `sampleRate`: the nominal lengths made
    /// distinct primes.
    public static func lineLengths(size: Double, sampleRate: Double) -> [Int] {
        func prime(atLeast n: Int) -> Int {
            var p = max(n, 2)
            while (2...Int(Double(p).squareRoot() + 1)).contains(where: { p % $0 == 0 && $0 < p }) { p += 1 }
            return p
        }
        var used = Set<Int>(), lengths: [Int] = []
        for i in 0..<lineCount {
            var m = prime(atLeast: Int((nominalSeconds(i) * size * sampleRate).rounded()))
            while used.contains(m) { m = prime(atLeast: m + 1) }
            used.insert(m); lengths.append(m)
        }
        return lengths
    }

    deinit {
        lineLength.deallocate(); lines.deallocate(); absorption.deallocate(); predelay.deallocate()
        diffusers.deallocate(); diffuserLength.deallocate(); earlyDelay.deallocate(); state.deallocate()
        phases.deallocate(); scratch.deallocate(); earlyGain.deallocate()
    }

    /// Floats a live edit's absorption holds: 5 per line.
    public static let absorptionCount = 5 * lineCount

    /// The absorption of every line for `values` (frozen: none), designed on the control
    /// thread: per line the mid gain, the low shelf (all-pass coefficient, H0/2) and the high
    /// shelf (all-pass coefficient, H0/2), for lines of `lengths` frames.
    public static func absorption(_ v: Values, lengths: [Int], sampleRate: Double) -> [Double] {
        var a = [Double](repeating: 0, count: absorptionCount)
        for i in 0..<lineCount {
            if v.freeze { a[5 * i] = 1; continue }
            let seconds = Double(lengths[i]) / sampleRate
            func gain(_ t60: Double) -> Double { pow(10, -3 * seconds / t60) }
            let mid = gain(v.decay), low = gain(v.decay * v.lowMultiplier), high = gain(v.decay * v.highMultiplier)
            // Zölzer's first-order shelves: H = 1 + H0/2 · (1 ± A(z)), A the all-pass (c + z⁻¹)/(1 + c z⁻¹);
            // a cut uses c = (t − V)/(t + V) (low) or (V t − 1)/(V t + 1) (high), a boost c = (t − 1)/(t + 1),
            // t = tan(π fc / rate), V = 1 + H0.
            func shelf(_ ratio: Double, _ hz: Double, high: Bool) -> (Double, Double) {
                let t = tan(Double.pi * min(hz, 0.45 * sampleRate) / sampleRate), h0 = ratio - 1
                let c: Double
                if ratio >= 1 { c = (t - 1) / (t + 1) } else { c = high ? (ratio * t - 1) / (ratio * t + 1) : (t - ratio) / (t + ratio) }
                return (c, h0 / 2)
            }
            a[5 * i] = mid
            (a[5 * i + 1], a[5 * i + 2]) = shelf(low / mid, v.lowCrossoverHz, high: false)
            (a[5 * i + 3], a[5 * i + 4]) = shelf(high / mid, v.highCrossoverHz, high: true)
        }
        return a
    }

    /// Moves to new values (audio thread, at a block's start): `absorption`
    /// (``absorptionCount`` values from ``absorption(_:lengths:sampleRate:)``, designed on the
    /// control thread) at once — it acts on the tail, not on the sound: no click — the rest ramped.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ v: Values, absorption designed: UnsafePointer<Double>) {
        for i in 0..<Self.lineCount { for k in 0..<5 { absorption[9 * i + k] = designed[5 * i + k] } }
        state.pointee.diffusion.setTarget(Float(v.diffusion), frames: rampFrames)
        state.pointee.early.setTarget(Float(v.early), frames: rampFrames)
        state.pointee.width.setTarget(Float(v.width), frames: rampFrames)
        state.pointee.modulation.setTarget(Float(v.freeze ? 0 : v.modulationFrames), frames: rampFrames)
        state.pointee.input.setTarget(v.freeze ? 0 : 1, frames: rampFrames)
        state.pointee.wet.setTarget(Float(v.mix), frames: rampFrames)
        state.pointee.dry.setTarget(Float(1 - v.mix), frames: rampFrames)
        state.pointee.frozen = v.freeze
    }
}

extension FeedbackDelayNetwork {
    /// Line i's output `delay` frames behind `position` (integer: exact; else four-point Lagrange).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func readLine(_ i: Int, delay: Double, at position: Int) -> Double {
        Double(LagrangeRead.read(lines + i * lineCapacity, mask: lineCapacity - 1, delay: delay, at: position))
    }

    /// The 16-point Hadamard transform in place, scaled by 1/4 (orthonormal).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func hadamard(_ v: UnsafeMutablePointer<Double>) {
        var h = 1
        while h < Self.lineCount {
            var i = 0
            while i < Self.lineCount {
                for j in i..<(i + h) { let a = v[j], b = v[j + h]; v[j] = a + b; v[j + h] = a - b }
                i += 2 * h
            }
            h *= 2
        }
        for j in 0..<Self.lineCount { v[j] *= 0.25 }
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var s = state.pointee
        let n = Self.lineCount, lineMask = lineCapacity - 1, preMask = predelayCapacity - 1, diffMask = diffuserCapacity - 1
        let inverse = 1 / Float(channelCount)
        for i in 0..<frameCount {
            let t = s.position
            let inputGain = s.input.value(at: i), wet = s.wet.value(at: i), dry = s.dry.value(at: i)
            let g = Double(0.75 * s.diffusion.value(at: i)), early = s.early.value(at: i), width = s.width.value(at: i)
            let swing = Double(s.modulation.value(at: i))
            // The mono input, predelayed.
            var sum: Float = 0
            for c in 0..<channelCount { sum += channels[c][i] }
            predelay[t & preMask] = sum * inverse * inputGain
            let pre = t - predelayFrames
            var x = Double(predelay[pre & preMask])
            // Early reflections from the predelayed input.
            var earlyL = 0.0, earlyR = 0.0
            for k in 0..<earlyCount {
                let gain = earlyGain[k], v = Double(predelay[(pre - earlyDelay[k]) & preMask])
                if gain > 0 { earlyL += gain * v } else { earlyR -= gain * v }
            }
            // Four diffusing all-passes: (−g + z⁻ᴺ) / (1 − g z⁻ᴺ).
            for k in 0..<4 {
                let ring = diffusers + k * diffuserCapacity
                let d = Double(ring[(t - diffuserLength[k]) & diffMask])
                let u = x + g * d
                ring[t & diffMask] = Float(u)
                x = d - g * u
            }
            // The lines: read (modulated), absorb, mix by Hadamard, write back with the input.
            var outL = 0.0, outR = 0.0
            for j in 0..<n {
                let phase = phases[j]
                let tri = phase < 0.5 ? 2 * phase : 2 - 2 * phase
                var next = phase + phases[n + j]
                if next >= 1 { next -= 1 }
                phases[j] = next
                let o = readLine(j, delay: Double(lineLength[j]) - swing * tri, at: t)
                let r = absorption + 9 * j
                // Mid gain, then the low shelf (1 + A) and the high shelf (1 − A), A the all-pass.
                var y = r[0] * o
                let a1 = r[1] * y + r[5]; r[5] = y - r[1] * a1
                y += r[2] * (y + a1)
                let a2 = r[3] * y + r[6]; r[6] = y - r[3] * a2
                y += r[4] * (y - a2)
                scratch[j] = y
                // Two orthogonal Hadamard rows for the two sides (+ + + + … and + − + − …).
                outL += y
                outR += (j & 1) == 0 ? y : -y
            }
            hadamard(scratch)
            for j in 0..<n {
                let sign: Double = (j * 7) & 4 == 0 ? 0.25 : -0.25  // the input spread over the lines, Σ b² = 1
                lines[j * lineCapacity + (t & lineMask)] = Float(scratch[j] + sign * x)
            }
            let mid = (outL + outR) * 0.125, side = (outL - outR) * 0.125 * Double(width)
            let left = Float(mid + side) + early * Float(earlyL), right = Float(mid - side) + early * Float(earlyR)
            for c in 0..<channelCount {
                let wetSignal: Float = channelCount == 1 ? 0.5 * (left + right) : (c & 1) == 0 ? left : right
                channels[c][i] = dry * channels[c][i] + wet * wetSignal
            }
            s.position = t + 1
        }
        s.diffusion.advance(by: frameCount); s.early.advance(by: frameCount); s.width.advance(by: frameCount)
        s.modulation.advance(by: frameCount); s.input.advance(by: frameCount); s.wet.advance(by: frameCount); s.dry.advance(by: frameCount)
        state.pointee = s
    }

    /// Silence before.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        lines.update(repeating: 0, count: Self.lineCount * lineCapacity)
        predelay.update(repeating: 0, count: predelayCapacity)
        diffusers.update(repeating: 0, count: 4 * diffuserCapacity)
        for j in 0..<Self.lineCount { absorption[9 * j + 5] = 0; absorption[9 * j + 6] = 0; phases[j] = Double(j) / Double(Self.lineCount) }
        state.pointee.position = 0
    }

    /// Takes over `previous`'s tail (the same size and rate), then moves to this kernel's values.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing FeedbackDelayNetwork) {
        guard previous.lineCapacity == lineCapacity, previous.predelayCapacity == predelayCapacity, previous.diffuserCapacity == diffuserCapacity,
              previous.channelCount == channelCount else { return }
        for j in 0..<Self.lineCount where previous.lineLength[j] != lineLength[j] { return }
        for k in 0..<(Self.lineCount * lineCapacity) { lines[k] = previous.lines[k] }
        for k in 0..<predelayCapacity { predelay[k] = previous.predelay[k] }
        for k in 0..<(4 * diffuserCapacity) { diffusers[k] = previous.diffusers[k] }
        for j in 0..<Self.lineCount {
            absorption[9 * j + 5] = previous.absorption[9 * j + 5]; absorption[9 * j + 6] = previous.absorption[9 * j + 6]
            phases[j] = previous.phases[j]
        }
        state.pointee.position = previous.state.pointee.position
    }

    /// Clears the tail if NaN or infinity reached it; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = NonFiniteScan.contains(lines, count: Self.lineCount * lineCapacity) || NonFiniteScan.contains(predelay, count: predelayCapacity)
            || NonFiniteScan.contains(diffusers, count: 4 * diffuserCapacity)
        for j in 0..<Self.lineCount where !absorption[9 * j + 5].isFinite || !absorption[9 * j + 6].isFinite { bad = true }
        if bad { reset() }
        return bad
    }
}

extension FeedbackDelayNetwork {
    /// The decay time (T60, seconds) the absorption gives at `hz`: from line 0's designed gain
    /// per pass, |H(f)| = g·|1 + ½H₀(1 + A)|·|1 + ½H₀'(1 − A')|, as −3 m / (rate · log₁₀|H|).
    /// (Control thread; what the tail is measured against.)
    public func decayTime(atHz hz: Double) -> Double {
        let r = absorption, w = 2 * Double.pi * hz / sampleRate
        func allpass(_ c: Double) -> (re: Double, im: Double) {
            // A(e^jw) = (c + e^−jw) / (1 + c e^−jw)
            let nr = c + cos(w), ni = -sin(w), dr = 1 + c * cos(w), di = -c * sin(w), d = dr * dr + di * di
            return ((nr * dr + ni * di) / d, (ni * dr - nr * di) / d)
        }
        let a = allpass(r[1]), b = allpass(r[3])
        let low = (re: 1 + r[2] * (1 + a.re), im: r[2] * a.im), high = (re: 1 + r[4] * (1 - b.re), im: -r[4] * b.im)
        let magnitude = r[0] * (low.re * low.re + low.im * low.im).squareRoot() * (high.re * high.re + high.im * high.im).squareRoot()
        return -3 * Double(lineLength[0]) / (sampleRate * log10(magnitude))
    }
}
