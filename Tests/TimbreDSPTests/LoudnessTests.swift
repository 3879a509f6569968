import CEbur128
import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// EBU Tech 3341 (cases 1–6, 9–23) and Tech 3342 (cases 1–4), synthesised from their
/// descriptions, at 48 and 44.1 kHz, with the specification's tolerances; and libebur128
/// (Debian libebur128-dev, an independent implementation) on varied material.
@Suite struct LoudnessTests {
    static let rates: [Double] = [48000, 44100]

    /// Planar stereo (or n-channel) 1 kHz sine segments: (dBFS per channel, seconds).
    static func tones(_ segments: [(Double, Double)], rate: Double, channels: Int = 2, hz: Double = 1000) -> [[Float]] {
        var x: [Float] = []
        var phase = 0.0
        for (db, seconds) in segments {
            let a = db <= -200 ? 0 : pow(10, db / 20)
            for _ in 0..<Int((seconds * rate).rounded()) {
                x.append(Float(a * sin(phase)))
                phase += 2 * Double.pi * hz / rate
                if phase > 2 * Double.pi { phase -= 2 * Double.pi }
            }
        }
        return [[Float]](repeating: x, count: channels)
    }

    /// Runs the meter over `x` in blocks of `block` frames, calling `each` after every block.
    @discardableResult
    static func measure(_ x: [[Float]], rate: Double, block: Int = 480, shortTermRateHz: Int = 10,
                        each: ((borrowing LoudnessMeter, Int) -> Void)? = nil) -> LoudnessMeter {
        let m = LoudnessMeter(sampleRate: rate, channelCount: x.count, shortTermRateHz: shortTermRateHz)
        Signals.forEachBlock(x, size: block) { p, k, done in
            m.process(p, frameCount: k)
            each?(m, done)
        }
        return m
    }

    static func within(_ value: Double, _ expected: Double, _ tol: Double) -> Bool { abs(value - expected) <= tol }

    // MARK: Tech 3341, cases 1–6: integrated (and M, S for 1–2), ±0.1 LU

    @Test(arguments: rates)
    func tech3341Cases1to6(rate: Double) {
        let cases: [(String, [[Float]], Double)] = [
            ("1", Self.tones([(-23, 20)], rate: rate), -23),
            ("2", Self.tones([(-33, 20)], rate: rate), -33),
            ("3", Self.tones([(-36, 10), (-23, 60), (-36, 10)], rate: rate), -23),
            ("4", Self.tones([(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)], rate: rate), -23),
            ("5", Self.tones([(-26, 20), (-20, 20.1), (-26, 20)], rate: rate), -23),
            ("6", {  // L, R −28 dBFS; C −24; Ls, Rs −30 (weights 1, 1, 1, 1.41, 1.41)
                let lr = Self.tones([(-28, 20)], rate: rate, channels: 1)[0], c = Self.tones([(-24, 20)], rate: rate, channels: 1)[0]
                let s = Self.tones([(-30, 20)], rate: rate, channels: 1)[0]
                return [lr, lr, c, s, s]
            }(), -23),
        ]
        for (name, x, expected) in cases {
            let m = Self.measure(x, rate: rate)
            let oracle = x.count == 2 ? LoudnessOracleTests.libebur128(x, rate: rate).integrated : .nan
            print(String(format: "Tech 3341 case %@ @ %.0f Hz: I %.3f LUFS (expected %.1f ±0.1; libebur128 %.3f)", name, rate, m.integratedLUFS, expected, oracle))
            #expect(Self.within(m.integratedLUFS, expected, 0.1), "case \(name): I \(m.integratedLUFS)")
            if name == "1" || name == "2" {
                #expect(Self.within(m.momentaryLUFS, expected, 0.1) && Self.within(m.shortTermLUFS, expected, 0.1), "case \(name): M \(m.momentaryLUFS) S \(m.shortTermLUFS)")
            }
        }
    }

    // MARK: Cases 9 and 12: short-term / momentary constant (±0.1) once the window is full

    @Test(arguments: rates)
    func tech3341Cases9and12(rate: Double) {
        let nine = Self.tones(Array(repeating: [(-20.0, 1.34), (-30.0, 1.66)], count: 5).flatMap { $0 }, rate: rate)
        var worst9 = 0.0
        Self.measure(nine, rate: rate, block: Int(rate / 100)) { m, done in
            if Double(done) / rate >= 3 { worst9 = max(worst9, abs(m.shortTermLUFS + 23)) }
        }
        let twelve = Self.tones(Array(repeating: [(-20.0, 0.18), (-30.0, 0.22)], count: 25).flatMap { $0 }, rate: rate)
        var worst12 = 0.0
        Self.measure(twelve, rate: rate, block: Int(rate / 100)) { m, done in
            if Double(done) / rate >= 1 { worst12 = max(worst12, abs(m.momentaryLUFS + 23)) }
        }
        print(String(format: "Tech 3341 case 9 @ %.0f Hz: S within %.3f LU of -23 after 3 s; case 12: M within %.3f LU of -23 after 1 s (±0.1)", rate, worst9, worst12))
        #expect(worst9 <= 0.1)
        #expect(worst12 <= 0.1)
    }

    // MARK: Cases 10 and 13: maxima of 3 s / 0.4 s bursts at any offset; 11 and 14: stepped levels

    @Test(arguments: rates)
    func tech3341Cases10to14(rate: Double) {
        var worst10 = 0.0, worst13 = 0.0
        for k in 1...20 {
            let offset = 0.5 + Double(k) * 0.0137  // tone starts fall anywhere within a 10 ms tick
            let ten = Self.tones([(-300, offset), (-23, 3), (-300, 1)], rate: rate)
            worst10 = max(worst10, abs(Self.measure(ten, rate: rate).maxShortTermLUFS + 23))
            let thirteen = Self.tones([(-300, offset), (-23, 0.4), (-300, 1)], rate: rate)
            worst13 = max(worst13, abs(Self.measure(thirteen, rate: rate).maxMomentaryLUFS + 23))
        }
        // 11 and 14: 20 tones back to back at −38 … −19 dBFS, 3 s / 0.4 s each: the reading at
        // each segment's end is that segment's level.
        let levels = (0..<20).map { -38.0 + Double($0) }
        var worst11 = 0.0, worst14 = 0.0
        for (length, isShortTerm) in [(3.0, true), (0.4, false)] {
            let x = Self.tones(levels.map { ($0, length) }, rate: rate)
            let segment = Int((length * rate).rounded())
            Self.measure(x, rate: rate, block: segment) { m, done in
                let level = levels[done / segment - 1]
                let reading = isShortTerm ? m.shortTermLUFS : m.momentaryLUFS
                if isShortTerm { worst11 = max(worst11, abs(reading - level)) } else { worst14 = max(worst14, abs(reading - level)) }
            }
        }
        let ten = Self.tones([(-300, 0.5137), (-23, 3), (-300, 1)], rate: rate), thirteen = Self.tones([(-300, 0.5137), (-23, 0.4), (-300, 1)], rate: rate)
        print(String(format: "Tech 3341 @ %.0f Hz: case 10 max S worst %.3f LU, 11 %.3f, 13 max M worst %.3f, 14 %.3f (±0.1); libebur128 on the first case-10 and case-13 segments: max S %.3f, max M %.3f",
                     rate, worst10, worst11, worst13, worst14, LoudnessOracleTests.libebur128(ten, rate: rate).maxShortTerm, LoudnessOracleTests.libebur128(thirteen, rate: rate).maxMomentary))
        #expect(worst10 <= 0.1 && worst11 <= 0.1 && worst13 <= 0.1 && worst14 <= 0.1)
    }

    // MARK: Cases 15–23: true peak, +0.2/−0.4 dB

    static func truePeak(_ x: [[Float]], rate: Double) -> Double {
        let m = TruePeakMeter(sampleRate: rate, channelCount: x.count)
        PlanarBuffer(channels: x).withChannelPointers { m.process($0, frameCount: x[0].count) }
        return m.peakDBTP
    }

    @Test(arguments: rates)
    func tech3341Cases15to23(rate: Double) {
        // Steady sines, faded in over 10 ms: an abrupt start at 60° is a step whose
        // reconstruction really does overshoot, which is not what these cases measure.
        func sine(_ divisor: Double, _ amplitude: Double, _ degrees: Double) -> [[Float]] {
            let fade = Int(rate / 100)
            let x = (0..<Int(rate)).map { n -> Float in
                let g = n < fade ? 0.5 - 0.5 * cos(Double.pi * Double(n) / Double(fade)) : 1
                return Float(g * amplitude * sin(2 * Double.pi * Double(n) / divisor + degrees * Double.pi / 180))
            }
            return [x, x]
        }
        // 20–23: a band-limited pulse (windowed sinc, cutoff 0.4·fs) whose continuous peak is
        // exactly 1.0 (0 dBTP), placed 0, ¼, ½ and ¾ of a sample after a sample instant.
        func pulse(_ offset: Double) -> [[Float]] {
            let x = (0..<Int(rate)).map { n -> Float in
                var v = 0.0
                for centre in stride(from: 2000.0, to: rate - 2000, by: 4000) {
                    let t = Double(n) - (centre + offset)
                    guard abs(t) < 64 else { continue }
                    let sinc = t == 0 ? 1 : sin(0.8 * Double.pi * t) / (0.8 * Double.pi * t)
                    v += sinc * (0.5 + 0.5 * cos(Double.pi * t / 64))
                }
                return Float(v)
            }
            return [x, x]
        }
        let cases: [(String, [[Float]], Double)] = [
            ("15", sine(4, 0.5, 0), -6.02), ("16", sine(4, 0.5, 45), -6.02), ("17", sine(6, 0.5, 60), -6.02),
            ("18", sine(8, 0.5, 67.5), -6.02), ("19", sine(4, 1.41, 45), 2.98),
            ("20", pulse(0), 0), ("21", pulse(0.25), 0), ("22", pulse(0.5), 0), ("23", pulse(0.75), 0),
        ]
        for (name, x, expected) in cases {
            let tp = Self.truePeak(x, rate: rate)
            print(String(format: "Tech 3341 case %@ @ %.0f Hz: true peak %.3f dBTP (expected %.1f +0.2/−0.4; libebur128 %.3f)", name, rate, tp, expected,
                         LoudnessOracleTests.libebur128(x, rate: rate).truePeak))
            #expect(tp <= expected + 0.2 && tp >= expected - 0.4, "case \(name): \(tp) dBTP")
        }
    }

    // MARK: Tech 3342 cases 1–4: loudness range, ±1 LU

    @Test(arguments: rates)
    func tech3342Cases1to4(rate: Double) {
        let cases: [(String, [(Double, Double)], Double)] = [
            ("1", [(-20, 20), (-30, 20)], 10), ("2", [(-20, 20), (-15, 20)], 5),
            ("3", [(-40, 20), (-20, 20)], 20), ("4", [(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15),
        ]
        for (name, segments, expected) in cases {
            let x = Self.tones(segments, rate: rate)
            let m = Self.measure(x, rate: rate)
            print(String(format: "Tech 3342 case %@ @ %.0f Hz: LRA %.2f LU (expected %.0f ±1; libebur128 %.2f)", name, rate, m.loudnessRangeLU, expected,
                         LoudnessOracleTests.libebur128(x, rate: rate).range))
            #expect(Self.within(m.loudnessRangeLU, expected, 1), "case \(name): \(m.loudnessRangeLU)")
        }
    }

    /// Results do not depend on the block sizes the meter is fed.
    @Test func blockSizeDoesNotMatter() {
        let x = [Signals.noise(48000 * 5, amplitude: 0.3, seed: 1), Signals.noise(48000 * 5, amplitude: 0.2, seed: 2)]
        let a = Self.measure(x, rate: 48000, block: 1), b = Self.measure(x, rate: 48000, block: 4096), c = Self.measure(x, rate: 48000, block: 17)
        func same(_ m: borrowing LoudnessMeter) -> Bool {
            m.integratedLUFS == a.integratedLUFS && m.maxMomentaryLUFS == a.maxMomentaryLUFS && m.maxShortTermLUFS == a.maxShortTermLUFS
        }
        #expect(same(b) && same(c))
    }
}
