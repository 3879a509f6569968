import Foundation

/// Test material and measures for time-stretching and pitch shifting, shared by the DSP and
/// CLI suites (the CLI suite runs Rubber Band on the same material).
public enum StretchMeasures {
    /// Frequency of a steady tone near `hz`: the phase drift between two fits a second apart.
    public static func measuredFrequency(_ y: [Float], near hz: Double, rate: Double, from a: Int, to b: Int, length: Int) -> Double {
        let first = SineFit.fit(Array(y[a..<(a + length)]), hz: hz, rate: rate, margin: 0)
        let second = SineFit.fit(Array(y[b..<(b + length)]), hz: hz, rate: rate, margin: 0)
        // Each fit's phase is relative to its own start; the expected advance over (b−a) frames is removed.
        var drift = (second.phase - first.phase) - 2 * Double.pi * hz * Double(b - a) / rate
        drift -= 2 * Double.pi * (drift / (2 * Double.pi)).rounded()
        return hz + drift / (2 * Double.pi * Double(b - a) / rate)
    }

    /// Decaying white-noise bursts (30 ms decay) every 300 ms, the first at 0.3 s.
    public static func bursts(rate fs: Double, count: Int = 8) -> (signal: [Float], attacks: [Int]) {
        let period = Int(0.3 * fs)
        var x = [Float](repeating: 0, count: period * (count + 1))
        let noise = Signals.noise(period * count, amplitude: 0.5, seed: 9)
        var attacks: [Int] = []
        for k in 1...count {
            let s = k * period
            attacks.append(s)
            for i in 0..<period { x[s + i] = noise[(k - 1) * period + i] * Float(exp(-Double(i) / (0.03 * fs))) }
        }
        return (x, attacks)
    }

    /// The measure: energy in 1 ms windows. An attack's output position is the first window
    /// within 6 dB of the burst's loudest window (searched ±100 ms around input time / rate); its
    /// lead is how long the energy had already stayed above −40 dB of that loudest window
    /// before it (smearing ahead of the attack). A copied attack has a lead of 0–1 ms.
    public static func attackLeads(_ y: [Float], attacks: [Int], rate: Double, fs: Double) -> [(leadMs: Int, offsetMs: Int)] {
        let win = Int(fs / 1000)
        let e = stride(from: 0, to: y.count - win, by: win).map { i in (i..<(i + win)).reduce(0.0) { $0 + Double(y[$1]) * Double(y[$1]) } + 1e-20 }
        return attacks.map { a in
            let t = Int((Double(a) / rate).rounded()) / win
            let range = max(0, t - 100)..<min(e.count, t + 100)
            let loudest = range.map { e[$0] }.max()!
            let attack = range.first { e[$0] > loudest * pow(10, -0.6) }!
            var k = attack
            while k > 0 && e[k - 1] > loudest * 1e-4 { k -= 1 }
            return (attack - k, attack - t)
        }
    }

    /// Speech-like: a glottal pulse train whose pitch glides 100 → 300 Hz over 2 s, through three
    /// formant resonators (700, 1220, 2600 Hz), in 250 ms syllables with 50 ms pauses.
    public static func speech(rate fs: Double) -> (signal: [Float], f0: @Sendable (Double) -> Double) {
        let seconds = 2.0
        let f0: @Sendable (Double) -> Double = { t in 100 + 100 * t }
        let n = Int(seconds * fs)
        var pulses = [Double](repeating: 0, count: n)
        var phase = 0.0
        for i in 0..<n {
            phase += f0(Double(i) / fs) / fs
            if phase >= 1 { phase -= 1; pulses[i] = 1 }
        }
        var y = pulses
        for (f, bw) in [(700.0, 130.0), (1220.0, 70.0), (2600.0, 160.0)] {
            let r = exp(-Double.pi * bw / fs), c = 2 * r * cos(2 * Double.pi * f / fs)
            var y1 = 0.0, y2 = 0.0
            for i in 0..<n { let v = (1 - r) * y[i] + c * y1 - r * r * y2; y2 = y1; y1 = v; y[i] = v }
        }
        let peak = y.map(abs).max()!
        let syllable = Int(0.3 * fs), pause = Int(0.05 * fs)
        return ((0..<n).map { i in Float(i % syllable < syllable - pause ? 0.5 * y[i] / peak : 0) }, f0)
    }

    /// F0 of `y` around frame `center` by autocorrelation over 30 ms, searched within a factor
    /// 4/3 of `near` (so a period's half or double is not taken), parabolic peak.
    public static func pitch(_ y: [Float], center: Int, fs: Double, near: Double) -> Double? {
        let half = Int(0.015 * fs)
        let shortest = Int(fs / (near * 4 / 3)), longest = Int(fs / (near * 3 / 4))
        guard center - half >= 0, center + half + longest + 1 < y.count else { return nil }
        var best = 0.0, bestLag = 0
        var r = [Double](repeating: 0, count: longest + 2)
        for lag in shortest...longest {
            var s = 0.0
            for i in (center - half)..<(center + half) { s += Double(y[i]) * Double(y[i + lag]) }
            r[lag] = s
            if s > best { best = s; bestLag = lag }
        }
        guard bestLag > shortest, bestLag < longest, best > 0 else { return nil }
        let (a, b, c) = (r[bestLag - 1], r[bestLag], r[bestLag + 1])
        let shift = 0.5 * (a - c) / (a - 2 * b + c)
        return fs / (Double(bestLag) + shift)
    }

    /// Timing of stretched ``speech(rate:)``: (worst step error, worst drift, points checked), seconds. The
    /// glide makes the pitch a clock: input time = (F0 − 100 Hz) / (100 Hz/s), so the pitch
    /// track of the output says which input instant each output instant plays. The track is a
    /// running median over 5 points (25 ms: overlapping frames from input instants one analysis
    /// hop apart make the raw estimate flip between them). Between points 5 ms apart it should
    /// advance by 5 ms × rate: the step error is the worst deviation from that (a gap jumps
    /// ahead, a repeat goes back); the drift is the worst distance from t × rate.
    public static func speechTiming(_ y: [Float], rate: Double, fs: Double) -> (step: Double, drift: Double, checked: Int) {
        var worstStep = 0.0, worstDrift = 0.0, checked = 0
        var track: [(t: Double, played: Double)] = []
        var previous: (t: Double, played: Double)?
        func settle() {
            // Median of 5 along the current voiced run.
            guard track.count >= 5 else { track = []; return }
            for i in 2..<(track.count - 2) {
                let played = track[(i - 2)...(i + 2)].map(\.played).sorted()[2]
                let t = track[i].t
                worstDrift = max(worstDrift, abs(played - t * rate))
                if let p = previous { worstStep = max(worstStep, abs((played - p.played) - (t - p.t) * rate)) }
                previous = (t, played)
                checked += 1
            }
            previous = nil
            track = []
        }
        for center in stride(from: Int(0.02 * fs), to: y.count, by: Int(0.005 * fs)) {
            let t = Double(center) / fs
            let tIn = t * rate
            // Well inside a syllable (the analysis window must not reach a pause).
            let inSyllable = tIn.truncatingRemainder(dividingBy: 0.3)
            guard inSyllable > 0.06, inSyllable < 0.19, tIn < 1.9, let f = StretchMeasures.pitch(y, center: center, fs: fs, near: 100 + 100 * tIn) else { settle(); continue }
            track.append((t, (f - 100) / 100))
        }
        settle()
        return (worstStep, worstDrift, checked)
    }
}
