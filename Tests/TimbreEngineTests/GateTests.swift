import Foundation
import Testing
import TimbreEngine
import TimbreTestSupport

/// The `gate` and `expander` nodes through the real plan, on constant levels (the peak
/// detector reads them exactly, so the gain is read sample by sample as output / input):
/// the static curve against its formula, hysteresis, hold, and attack and release as time
/// constants.
@Suite struct GateTests {
    static let rate = 48_000.0

    /// The levels (dBFS), each held `seconds`, as one constant-per-segment signal.
    static func steps(_ levels: [Double], seconds: Double) -> [Float] {
        levels.flatMap { [Float](repeating: Float(pow(10, $0 / 20)), count: Int(seconds * rate)) }
    }

    /// The gain in dB at every frame (output over input).
    static func gains(_ preset: Preset, _ x: [Float], block: Int = 256) throws -> [Double] {
        let (out, _) = try PresetRender.render(preset, input: [x], block: block, rate: rate)
        return zip(out[0], x).map { 20 * log10(Double(abs($0)) / Double($1)) }
    }

    /// Zölzer's downward expander, written out here: 0 at or above the threshold, else
    /// (x − T)(R − 1), never below −range.
    static func expected(_ x: Double, threshold t: Double, ratio r: Double, range: Double) -> Double {
        x >= t ? 0 : max(-range, r.isInfinite ? -range : (x - t) * (r - 1))
    }

    /// From −80 to 0 dBFS in 1 dB steps (0.1 s each, read at the end of each step), the
    /// expander's gain is within 0.1 dB of the formula, for ratios 1.5, 2, 4 and ∞ (a gate).
    @Test(arguments: [1.5, 2.0, 4.0, Double.infinity])
    func staticCurveFollowsItsFormula(ratio: Double) throws {
        let ratioText = ratio.isInfinite ? "\"inf\"" : "\(ratio)"
        let preset = try DynamicsTests.chain(#"{"type": "expander", "threshold": -40, "ratio": \#(ratioText), "range": 30, "attack": 0.5, "hold": 0, "release": 1, "hysteresis": 0}"#)
        let levels = (0...80).map { Double($0) - 80 }
        let g = try Self.gains(preset, Self.steps(levels, seconds: 0.1))
        var worst = 0.0
        for (k, level) in levels.enumerated() {
            let measured = g[(k + 1) * Int(0.1 * Self.rate) - 1]
            // The level of the Float sample actually fed (−40 dB rounds to just under −40).
            let fed = 20 * log10(Double(Float(pow(10, level / 20))))
            // The detector resolves levels to about 1e-5 dB (FastLogExp): a level that close to
            // the threshold may fall on either side of a gate's 30 dB step.
            let sides = abs(fed - -40) < 1e-4 ? [fed - 1e-4, fed + 1e-4] : [fed]
            worst = max(worst, sides.map { abs(measured - Self.expected($0, threshold: -40, ratio: ratio, range: 30)) }.min()!)
        }
        print(String(format: "expander ratio %g: worst %.4f dB from the formula over -80…0 dBFS", ratio, worst))
        #expect(worst <= 0.1)
    }

    /// Threshold −40, hysteresis 6 dB, hold 50 ms: −45 stays shut, −38 opens it, −44 keeps it
    /// open (above −46), −48 closes it — after exactly the hold, not before.
    @Test func hysteresisAndHold() throws {
        let preset = try DynamicsTests.chain(#"{"type": "gate", "threshold": -40, "range": 60, "attack": 0.1, "hold": 50, "release": 1, "hysteresis": 6}"#)
        let segment = 0.2, n = Int(segment * Self.rate)
        let g = try Self.gains(preset, Self.steps([-45, -38, -44, -48], seconds: segment))
        #expect(abs(g[n - 1] + 60) < 0.1, "shut at -45: \(g[n - 1])")
        #expect(abs(g[2 * n - 1]) < 0.01, "open at -38: \(g[2 * n - 1])")
        #expect(abs(g[3 * n - 1]) < 0.01, "still open at -44 (hysteresis): \(g[3 * n - 1])")
        let closing = try #require((3 * n..<4 * n).first { g[$0] < -0.5 })
        let held = Double(closing - 3 * n) / Self.rate * 1000
        print(String(format: "gate hold: the gain starts to fall %.3f ms after the level drops (hold 50 ms)", held))
        #expect(abs(held - 50) < 0.5)
        #expect(abs(g[4 * n - 1] + 60) < 0.1)
    }

    /// Attack 20 ms and release 200 ms are time constants of the gain in dB: opening from
    /// −40 dB, the gain covers 1 − 1/e of the 40 dB after 20 ms; closing (hold 0), after 200 ms.
    @Test func attackAndReleaseAreTimeConstants() throws {
        let preset = try DynamicsTests.chain(#"{"type": "gate", "threshold": -30, "range": 40, "attack": 20, "hold": 0, "release": 200, "hysteresis": 0}"#)
        let segment = 1.5, n = Int(segment * Self.rate)
        let g = try Self.gains(preset, Self.steps([-50, -20, -50], seconds: segment))
        let opened = try #require((n..<2 * n).first { g[$0] >= -40 * exp(-1) })
        let closed = try #require((2 * n..<3 * n).first { g[$0] <= -40 * (1 - exp(-1)) })
        let attack = Double(opened - n) / Self.rate * 1000, release = Double(closed - 2 * n) / Self.rate * 1000
        print(String(format: "gate attack %.3f ms (20), release %.3f ms (200)", attack, release))
        #expect(abs(attack - 20) / 20 < 0.05 && abs(release - 200) / 200 < 0.05)
    }

    /// Speech-like bursts over noise: the same output in blocks of 1, 37, 256 and 4096 frames.
    @Test func outputDoesNotDependOnBlockSize() throws {
        let preset = try DynamicsTests.chain(#"{"type": "gate", "threshold": -35, "hold": 20, "release": 50}, {"type": "expander", "threshold": -30}"#)
        var rng = SeededRandom(seed: 3)
        let x = (0..<48_000).map { i -> Float in Float(Double(rng.next() % 20_000) / 10_000 - 1) * ((i / 4800) % 2 == 0 ? 0.3 : 0.003) }
        let reference = try PresetRender.render(preset, input: [x], block: 4096, rate: Self.rate).output
        for block in [1, 37, 256] {
            #expect(try PresetRender.render(preset, input: [x], block: block, rate: Self.rate).output == reference, "block \(block)")
        }
    }

    /// A key filter (`"sidechain": {"highpass": 2000}`): a gate at −30 dBFS stays shut for a
    /// 100 Hz tone at −20 dBFS (the 12 dB/octave filter takes about 52 dB off it, far more
    /// than the 10 dB it has over the threshold) and opens for a 5 kHz tone at the same level;
    /// without the filter the 100 Hz tone opens it. The audio itself is not filtered: the open
    /// gate passes the tone at 0 dB. At 8 kHz a band keyed on 4–10 kHz lies above the Nyquist
    /// limit: the node is left out (the audio passes unchanged) rather than refused.
    @Test func keyFilterDecidesWhatOpensTheGate() throws {
        func level(_ hz: Double, sidechain: String?) throws -> Double {
            let node = #"{"type": "gate", "threshold": -30, "range": 40, "attack": 0.5, "release": 20"# + (sidechain.map { #", "sidechain": \#($0)"# } ?? "") + "}"
            let fs = Self.rate
            let x: [Float] = (0..<Int(fs)).map { Float(0.1 * sin(2 * Double.pi * hz * Double($0) / fs)) }
            let (out, _) = try PresetRender.render(try DynamicsTests.chain(node), input: [x], block: 256, rate: fs)
            let half = Int(0.5 * fs)
            var tail = 0.0, tailIn = 0.0
            for i in half..<x.count { tail += Double(out[0][i]) * Double(out[0][i]); tailIn += Double(x[i]) * Double(x[i]) }
            return 10 * log10(tail / tailIn)
        }
        let lowFiltered = try level(100, sidechain: #"{"highpass": 2000}"#), highFiltered = try level(5000, sidechain: #"{"highpass": 2000}"#)
        let lowPlain = try level(100, sidechain: nil)
        print(String(format: "gate keyed through a 2 kHz high-pass: 100 Hz at -20 dBFS %.2f dB, 5 kHz %.2f dB; without the filter 100 Hz %.2f dB", lowFiltered, highFiltered, lowPlain))
        #expect(abs(lowFiltered - -40) < 0.1 && abs(highFiltered) < 0.01 && abs(lowPlain) < 0.01)
        let x = Signals.noise(8000, amplitude: 0.1, seed: 3)
        let (out, _) = try PresetRender.render(try DynamicsTests.chain(#"{"type": "gate", "threshold": -30, "sidechain": {"band": [4000, 10000]}}"#), input: [x], block: 256, rate: 8000)
        #expect(out[0] == x)
    }
}
