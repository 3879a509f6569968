import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `phaser` held still (depth 0) against its analytic response — N first-order
/// all-passes A(z) = (a + z⁻¹)/(1 + a·z⁻¹), fed back one frame later: H = dry + wet ·
/// Aᴺ / (1 − g·z⁻¹·Aᴺ) — by a naive DFT of its impulse response on 2,000 frequencies; the
/// notches it is for; the same bits for every block size; its numbers moving live.
@Suite struct PhaserNodeTests {
    static let rate = 48_000.0

    static func render(_ node: String, _ x: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "p", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: x, block: block, rate: rate).output
    }

    @Test(arguments: [(4, 0.0, 50.0, 800.0), (6, 60, 50, 1_500), (8, -80, 70, 300), (3, 40, 100, 5_000)])
    func aStillPhaserIsItsFormula(stages: Int, feedback: Double, mix: Double, centre: Double) throws {
        var x = [Float](repeating: 0, count: 24_000)
        x[0] = 1
        let h = try Self.render(#"{"type": "phaser", "stages": \#(stages), "depth": 0, "centre": \#(centre), "feedback": \#(feedback), "mix": \#(mix)}"#, [x])[0]
        let t = tan(Double.pi * centre / Self.rate), a = (t - 1) / (t + 1), g = feedback / 100, wet = mix / 100
        var worst = 0.0
        for k in 0...2_000 {
            let w = Double.pi * Double(k) / 2_000 * 0.98
            var re = 0.0, im = 0.0
            for (i, v) in h.enumerated() where v != 0 { re += Double(v) * cos(w * Double(i)); im -= Double(v) * sin(w * Double(i)) }
            // A(e^jw) = (a + e^−jw) / (1 + a e^−jw), to the N-th power.
            let (nr, ni) = (a + cos(w), -sin(w)), (dr, di) = (1 + a * cos(w), -a * sin(w))
            let d2 = dr * dr + di * di
            var (ar, ai) = ((nr * dr + ni * di) / d2, (ni * dr - nr * di) / d2)
            var (pr, pi) = (1.0, 0.0)
            for _ in 0..<stages { (pr, pi) = (pr * ar - pi * ai, pr * ai + pi * ar) }
            (ar, ai) = (pr, pi)
            // Y/X = Aᴺ / (1 − g e^−jw Aᴺ).
            let (lr, li) = (1 - g * (cos(w) * ar + sin(w) * ai), -g * (cos(w) * ai - sin(w) * ar))
            let l2 = lr * lr + li * li
            let (yr, yi) = ((ar * lr + ai * li) / l2, (ai * lr - ar * li) / l2)
            let (er, ei) = ((1 - wet) + wet * yr - re, wet * yi - im)
            worst = max(worst, (er * er + ei * ei).squareRoot())
        }
        #expect(worst < 1e-4, "\(stages) stages, feedback \(feedback) %: off by \(worst)")
    }

    /// Four stages at 50 % mix: notches where the all-passes turn half a cycle, each stage
    /// −π/4 and −3π/4: f = (rate/π)·atan(tan(π f_c/rate)·tan(π/8)) and ·tan(3π/8).
    @Test func theNotchesAreWhereTheyShouldBe() throws {
        let centre = 1_000.0
        var x = [Float](repeating: 0, count: 48_000)
        x[0] = 1
        let h = try Self.render(#"{"type": "phaser", "stages": 4, "depth": 0, "centre": \#(centre), "mix": 50}"#, [x])[0]
        func magnitude(_ f: Double) -> Double {
            var re = 0.0, im = 0.0
            for (i, v) in h.prefix(8_000).enumerated() { re += Double(v) * cos(2 * .pi * f * Double(i) / Self.rate); im -= Double(v) * sin(2 * .pi * f * Double(i) / Self.rate) }
            return (re * re + im * im).squareRoot()
        }
        let tc = tan(Double.pi * centre / Self.rate)
        for k in [1.0, 3.0] {
            let notch = Self.rate / Double.pi * atan(tc * tan(k * Double.pi / 8))
            #expect(magnitude(notch) < 1e-3, "notch at \(notch) Hz: \(magnitude(notch))")
            #expect(magnitude(notch * 1.5) > 0.1)
        }
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let x = [Signals.noise(20_000, amplitude: 0.3, seed: 4), Signals.noise(20_000, amplitude: 0.3, seed: 5)]
        let node = #"{"type": "phaser", "stages": 6, "rate": 1.7, "depth": 80, "centre": 900, "feedback": 70, "mix": 50}"#
        let reference = try Self.render(node, x, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.render(node, x, block: block) == reference, "block \(block)") }
    }

    @Test func liveEditsMoveInsideTheKernel() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "phaser", "id": "p"}"#), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            try engine.apply(document: try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("p." + key, toValue: value))
        }
        for (key, value) in [("rate", 3.0), ("depth", 80), ("centre", 2_000), ("feedback", -50), ("mix", 30)] {
            #expect(try set(key, .number(value)) == .inKernel(nodes: 1), "\(key)")
        }
        #expect(try set("stages", .number(8)) == .planSwap)
    }
}
