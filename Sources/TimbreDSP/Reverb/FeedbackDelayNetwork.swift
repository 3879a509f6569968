import Foundation

/// An algorithmic reverb: a 16-line feedback delay network (Jot & Chaigne 1991; Jot 1992)
/// with a Hadamard feedback matrix (orthogonal, so the loop itself neither gains nor loses
/// energy), a frequency-dependent absorption in every line, a predelay, input diffusion,
/// early reflections, slowly modulated line lengths against metallic ringing, freeze, width
/// and mix.
///
/// Modulation: each line's length swings by up to `modulationFrames` along a triangle at its
/// own rate (0.3…1.65 Hz), read through a first-order all-pass interpolator (Laakso et al.
/// 1996, §3.5: unity gain at every frequency, so the swing modulates no line's loss — the
/// four-point Lagrange read it replaced lost up to 3 dB near Nyquist at half-frame positions,
/// and that loss moving with the swing rang at high frequencies: 9.5 dB peaks over the tail's
/// smoothed spectrum on the plate, now 5.0). An all-pass of δ = 0.5…1.5 frames after a
/// whole-frame read; at whole lengths (δ = 1) it reads the frame exactly.
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
/// reads: the loop is lossless), so the tail holds its energy.
///
/// The work runs in chunks of up to 64 frames, stage by stage (the input side frame by frame;
/// each line's reads along its ring; then absorption, Hadamard and write-back for all 16 lines
/// at once in SIMD lanes): every line is longer than a chunk plus its swing, so nothing a
/// chunk reads is written inside it. Each value is the same arithmetic wherever a chunk
/// starts: the same output for every block size.
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
    let shortestLine: Int
    /// Each line's ring (`lineCapacity` frames each, power of two ≥ length + swing + 4).
    let lines: UnsafeMutablePointer<Float>
    let lineCapacity: Int
    /// The absorption as designed (Double, 5 per line: what ``decayTime(atHz:)`` reads) and as
    /// the kernel runs it (`bank`: one lane per line).
    let absorption: UnsafeMutablePointer<Double>
    let bank: UnsafeMutablePointer<LineBank>
    /// Input: predelay ring, diffusers' rings, early-reflection taps (the left side's first).
    let predelay: UnsafeMutablePointer<Float>
    let predelayCapacity: Int
    let diffusers: UnsafeMutablePointer<Float>
    let diffuserLength: UnsafeMutablePointer<Int>
    let diffuserCapacity: Int
    let earlyDelay: UnsafeMutablePointer<Int>
    let earlyGain: UnsafeMutablePointer<Float>
    let earlyLeftCount: Int
    let earlyCount: Int
    /// The lines' oscillators: phase (cycles) and increment per frame, 16 each.
    let phases: UnsafeMutablePointer<Double>
    /// Each line's first-order all-pass interpolator: its last output.
    let interpolators: UnsafeMutablePointer<Float>
    /// One chunk's working rows (``chunkFrames`` each): the diffused input, the early
    /// reflections left and right, the swing, one line's modulation, then the 16 lines' reads.
    let rows: UnsafeMutablePointer<Float>
    let state: UnsafeMutablePointer<State>
    let rampFrames: Int

    /// The lines' absorption, one SIMD lane per line: mid gain, low shelf (all-pass
    /// coefficient, H0/2), high shelf (all-pass coefficient, H0/2) and the shelves' states.
    struct LineBank {
        var mid = SIMD16<Float>(), lowC = SIMD16<Float>(), lowK = SIMD16<Float>(), highC = SIMD16<Float>(), highK = SIMD16<Float>()
        var lowState = SIMD16<Float>(), highState = SIMD16<Float>()
    }

    struct State {
        var position = 0
        var diffusion: LinearRamp
        var early: LinearRamp
        var width: LinearRamp
        var modulation: LinearRamp
        var input: LinearRamp
        var wet: LinearRamp
        var dry: LinearRamp
    }

    /// The longest predelay, seconds.
    public static let maximumPredelay = 0.5
    /// The most frames worked per pass: every line is longer than a chunk plus its swing, so a
    /// chunk's reads come from frames written before it and each stage runs over the whole chunk.
    static let chunkFrames = 64
    /// The most a line's length swings, seconds (what the capacity allows for).
    static let maximumSwingSeconds = 0.002

    public init(values: Values, size: Double, predelaySeconds: Double, sampleRate: Double, channelCount: Int) {
        precondition(channelCount >= 1 && size > 0)
        self.channelCount = channelCount; self.sampleRate = sampleRate; self.size = size
        let lengths = Self.lineLengths(size: size, sampleRate: sampleRate)
        self.lengths = lengths
        lineLength = .allocate(capacity: Self.lineCount)
        lineLength.initialize(from: lengths, count: Self.lineCount)
        shortestLine = lengths.min()!
        var c = 8
        while c < lengths.max()! + Int(Self.maximumSwingSeconds * sampleRate) + 8 { c *= 2 }
        lineCapacity = c
        lines = .allocate(capacity: Self.lineCount * c)
        lines.initialize(repeating: 0, count: Self.lineCount * c)
        absorption = .allocate(capacity: Self.absorptionCount)
        absorption.initialize(repeating: 0, count: Self.absorptionCount)
        bank = .allocate(capacity: 1)
        bank.initialize(to: LineBank())
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
        let taps = Self.earlyTaps.filter(\.left) + Self.earlyTaps.filter { !$0.left }
        earlyDelay = .allocate(capacity: taps.count)
        earlyGain = .allocate(capacity: taps.count)
        earlyCount = taps.count
        earlyLeftCount = Self.earlyTaps.filter(\.left).count
        for (k, tap) in taps.enumerated() {
            (earlyDelay + k).initialize(to: max(1, Int((tap.ms / 1000 * size * sampleRate).rounded())))
            (earlyGain + k).initialize(to: Float(tap.gain))
        }
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        phases = .allocate(capacity: 2 * Self.lineCount)
        for i in 0..<Self.lineCount {
            (phases + i).initialize(to: Double(i) / Double(Self.lineCount))
            // 0.3 … 1.65 Hz, each line its own rate.
            (phases + Self.lineCount + i).initialize(to: (0.3 + 0.09 * Double(i)) / sampleRate)
        }
        interpolators = .allocate(capacity: Self.lineCount)
        interpolators.initialize(repeating: 0, count: Self.lineCount)
        rows = .allocate(capacity: (5 + Self.lineCount) * Self.chunkFrames)
        rows.initialize(repeating: 0, count: (5 + Self.lineCount) * Self.chunkFrames)
        state = .allocate(capacity: 1)
        let swing = Self.swing(values, sampleRate: sampleRate)
        state.initialize(to: State(diffusion: LinearRamp(value: Float(values.diffusion)), early: LinearRamp(value: Float(values.early)),
                                   width: LinearRamp(value: Float(values.width)), modulation: LinearRamp(value: swing),
                                   input: LinearRamp(value: values.freeze ? 0 : 1), wet: LinearRamp(value: Float(values.mix)), dry: LinearRamp(value: Float(1 - values.mix))))
        Self.absorption(values, lengths: lengths, sampleRate: sampleRate).withUnsafeBufferPointer { install($0.baseAddress!) }
    }

    /// The swing in frames `v` asks for, within what the lines allow (none when frozen).
    static func swing(_ v: Values, sampleRate: Double) -> Float {
        guard !v.freeze, v.modulationFrames.isFinite else { return 0 }
        return Float(min(max(v.modulationFrames, 0), maximumSwingSeconds * sampleRate))
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
        lineLength.deallocate(); lines.deallocate(); absorption.deallocate(); bank.deallocate(); predelay.deallocate()
        diffusers.deallocate(); diffuserLength.deallocate(); earlyDelay.deallocate(); state.deallocate()
        phases.deallocate(); interpolators.deallocate(); rows.deallocate(); earlyGain.deallocate()
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
        install(designed)
        state.pointee.diffusion.setTarget(Float(v.diffusion), frames: rampFrames)
        state.pointee.early.setTarget(Float(v.early), frames: rampFrames)
        state.pointee.width.setTarget(Float(v.width), frames: rampFrames)
        state.pointee.modulation.setTarget(Self.swing(v, sampleRate: sampleRate), frames: rampFrames)
        state.pointee.input.setTarget(v.freeze ? 0 : 1, frames: rampFrames)
        state.pointee.wet.setTarget(Float(v.mix), frames: rampFrames)
        state.pointee.dry.setTarget(Float(1 - v.mix), frames: rampFrames)
    }

    /// Keeps `designed` (``absorptionCount`` values) and puts it in the lines' lanes.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func install(_ designed: UnsafePointer<Double>) {
        for k in 0..<Self.absorptionCount { absorption[k] = designed[k] }
        for i in 0..<Self.lineCount {
            bank.pointee.mid[i] = Float(designed[5 * i]); bank.pointee.lowC[i] = Float(designed[5 * i + 1])
            bank.pointee.lowK[i] = Float(designed[5 * i + 2]); bank.pointee.highC[i] = Float(designed[5 * i + 3])
            bank.pointee.highK[i] = Float(designed[5 * i + 4])
        }
    }
}

extension FeedbackDelayNetwork {
    /// The 16-point Hadamard transform (Sylvester's order: row 0 all +, row 1 alternating),
    /// unscaled: H₁₆ = [[H₈, H₈], [H₈, −H₈]] applied as H₈(lo + hi), H₈(lo − hi).
    @inline(__always)
    static func hadamard(_ v: SIMD16<Float>) -> SIMD16<Float> {
        SIMD16(lowHalf: hadamard(v.lowHalf + v.highHalf), highHalf: hadamard(v.lowHalf - v.highHalf))
    }
    @inline(__always)
    static func hadamard(_ v: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8(lowHalf: hadamard(v.lowHalf + v.highHalf), highHalf: hadamard(v.lowHalf - v.highHalf))
    }
    @inline(__always)
    static func hadamard(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let a = v.lowHalf + v.highHalf, b = v.lowHalf - v.highHalf
        return SIMD4(a.x + a.y, a.x - a.y, b.x + b.y, b.x - b.y)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var s = state.pointee
        // A chunk is shorter than every line less its swing: its reads were all written before it.
        let swingBound = Int(Int32(truncatingIfNeeded: Int(max(s.modulation.start, s.modulation.target)))) + 1
        let chunk = max(1, min(Self.chunkFrames, shortestLine - swingBound - 4))
        var done = 0
        while done < frameCount {
            let n = min(chunk, frameCount - done)
            feedInput(channels, from: done, count: n, state: s)
            readLines(from: done, count: n, state: s)
            mixLines(channels, from: done, count: n, state: s)
            s.position += n
            done += n
        }
        s.diffusion.advance(by: frameCount); s.early.advance(by: frameCount); s.width.advance(by: frameCount)
        s.modulation.advance(by: frameCount); s.input.advance(by: frameCount); s.wet.advance(by: frameCount); s.dry.advance(by: frameCount)
        state.pointee = s
    }

    /// The input side, frame by frame: the mono sum predelayed, the early reflections, then four
    /// diffusing all-passes (−g + z⁻ᴺ) / (1 − g z⁻ᴺ); rows 0…2 take the diffused input and the
    /// early sums, row 3 the swing.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func feedInput(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count n: Int, state s: State) {
        let preMask = predelayCapacity - 1, diffMask = diffuserCapacity - 1, inverse = 1 / Float(channelCount)
        let input = rows, earlyLeft = rows + Self.chunkFrames, earlyRight = rows + 2 * Self.chunkFrames, swing = rows + 3 * Self.chunkFrames
        for f in 0..<n {
            let i = offset + f, t = s.position + f
            var sum: Float = 0
            for c in 0..<channelCount { sum += channels[c][i] }
            predelay[t & preMask] = sum * inverse * s.input.value(at: i)
            let pre = t - predelayFrames
            var x = predelay[pre & preMask]
            var left: Float = 0, right: Float = 0
            for k in 0..<earlyLeftCount { left += earlyGain[k] * predelay[(pre - earlyDelay[k]) & preMask] }
            for k in earlyLeftCount..<earlyCount { right += earlyGain[k] * predelay[(pre - earlyDelay[k]) & preMask] }
            let g = 0.75 * s.diffusion.value(at: i)
            for k in 0..<4 {
                let ring = diffusers + k * diffuserCapacity
                let d = ring[(t - diffuserLength[k]) & diffMask]
                let u = x + g * d
                ring[t & diffMask] = u
                x = d - g * u
            }
            input[f] = x; earlyLeft[f] = left; earlyRight[f] = right
            swing[f] = s.modulation.value(at: i)
        }
    }

    /// Every line's output over the chunk into its row: `length − swing × triangle` frames back,
    /// M whole frames then a first-order all-pass of the remaining δ (0.5 ≤ δ < 1.5), frame by
    /// frame (the all-pass carries its last output from chunk to chunk).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func readLines(from offset: Int, count n: Int, state s: State) {
        let mask = lineCapacity - 1, swing = rows + 3 * Self.chunkFrames
        let t0 = s.position
        for j in 0..<Self.lineCount {
            let ring = lines + j * lineCapacity, out = rows + (5 + j) * Self.chunkFrames, length = Float(lineLength[j])
            var phase = phases[j], last = interpolators[j]
            let increment = phases[Self.lineCount + j]
            for f in 0..<n {
                let tri = phase < 0.5 ? 2 * phase : 2 - 2 * phase
                var next = phase + increment
                if next >= 1 { next -= 1 }
                phase = next
                // D = length − swing: M whole frames, then an all-pass of δ = D − M (0.5 ≤ δ < 1.5).
                let delay = length - swing[f] * Float(tri)
                let whole = Int(Int32(truncatingIfNeeded: Int(delay - 0.5)))
                let delta = delay - Float(whole), eta = (1 - delta) / (1 + delta)
                let t = t0 + f
                let y = eta * (ring[(t - whole) & mask] - last) + ring[(t - whole - 1) & mask]
                last = y
                out[f] = y
            }
            phases[j] = phase; interpolators[j] = last
        }
    }

    /// Frame by frame over all 16 lines at once: absorb (mid gain, then the low shelf (1 + A)
    /// and the high shelf (1 − A), A the all-pass), mix by Hadamard, write back with the input,
    /// and take the two sides from Hadamard rows 0 and 1.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func mixLines(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count n: Int, state s: State) {
        let mask = lineCapacity - 1, capacity = lineCapacity, chunk = Self.chunkFrames
        let input = rows, earlyLeft = rows + chunk, earlyRight = rows + 2 * chunk, reads = rows + 5 * chunk
        var b = bank.pointee
        // How the input is spread over the lines (±1/4: Σ b² = 1).
        let spread = SIMD16<Float>(0.25, 0.25, 0.25, 0.25, -0.25, -0.25, -0.25, -0.25, 0.25, 0.25, 0.25, 0.25, -0.25, -0.25, -0.25, -0.25)
        for f in 0..<n {
            let i = offset + f, t = s.position + f
            let r = reads + f
            var y = SIMD16<Float>(r[0], r[chunk], r[2 * chunk], r[3 * chunk], r[4 * chunk], r[5 * chunk], r[6 * chunk], r[7 * chunk],
                                  r[8 * chunk], r[9 * chunk], r[10 * chunk], r[11 * chunk], r[12 * chunk], r[13 * chunk], r[14 * chunk], r[15 * chunk])
            y = y * b.mid
            let a1 = b.lowC * y + b.lowState
            b.lowState = y - b.lowC * a1
            y = y + b.lowK * (y + a1)
            let a2 = b.highC * y + b.highState
            b.highState = y - b.highC * a2
            y = y + b.highK * (y - a2)
            let h = Self.hadamard(y)
            let w = h * 0.25 + spread * input[f]
            let slot = t & mask
            for j in 0..<Self.lineCount { lines[j * capacity + slot] = w[j] }
            let width = s.width.value(at: i), early = s.early.value(at: i)
            let mid = (h[0] + h[1]) * 0.125, side = (h[0] - h[1]) * 0.125 * width
            let left = mid + side + early * earlyLeft[f], right = mid - side + early * earlyRight[f]
            let wet = s.wet.value(at: i), dry = s.dry.value(at: i)
            if channelCount == 1 {
                channels[0][i] = dry * channels[0][i] + wet * (0.5 * (left + right))
            } else {
                for c in 0..<channelCount { channels[c][i] = dry * channels[c][i] + wet * ((c & 1) == 0 ? left : right) }
            }
        }
        bank.pointee.lowState = b.lowState; bank.pointee.highState = b.highState
    }

    /// Silence before.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        lines.update(repeating: 0, count: Self.lineCount * lineCapacity)
        predelay.update(repeating: 0, count: predelayCapacity)
        diffusers.update(repeating: 0, count: 4 * diffuserCapacity)
        bank.pointee.lowState = SIMD16(); bank.pointee.highState = SIMD16()
        for j in 0..<Self.lineCount { phases[j] = Double(j) / Double(Self.lineCount) }
        interpolators.update(repeating: 0, count: Self.lineCount)
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
        bank.pointee.lowState = previous.bank.pointee.lowState; bank.pointee.highState = previous.bank.pointee.highState
        for j in 0..<Self.lineCount { phases[j] = previous.phases[j]; interpolators[j] = previous.interpolators[j] }
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
        let b = bank.pointee
        for j in 0..<Self.lineCount where !b.lowState[j].isFinite || !b.highState[j].isFinite || !interpolators[j].isFinite { bad = true }
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
