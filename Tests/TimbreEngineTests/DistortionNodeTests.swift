import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `distortion` node: its curves against their formulas written here; the aliasing of a
/// 5 kHz sine driven +24 dB at 48 kHz — every component off the harmonics falls on a whole
/// kHz (gcd(5,000, 48,000) = 1,000), so an exact DFT over one second reads each one — for
/// every curve and oversampling factor; the latency where an impulse lands; the same bits for
/// every block size; drive, output and mix moving live.
@Suite struct DistortionNodeTests {
    static let rate = 48_000.0

    static func render(_ node: String, _ x: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: x, block: block, rate: rate).output
    }

    @Test func theCurvesAreTheirFormulas() {
        for k in -4_000...4_000 {
            let x = Double(k) / 500  // −8 … 8
            #expect(abs(WaveshaperCurve.soft.value(x) - tanh(x)) < 2e-7, "tanh at \(x)")
            // The two-lane form (the ladder's) is the same fit: within 10⁻¹⁴ of the scalar.
            let lanes = WaveshaperCurve.tanhApproximation(SIMD2(x, -x))
            #expect(abs(lanes[0] - WaveshaperCurve.tanhApproximation(x)) < 1e-14 && lanes[1] == -lanes[0], "two lanes at \(x)")
            #expect(WaveshaperCurve.hard.value(x) == max(-1, min(1, x)))
            let b = 0.3, tube = (tanh(x + b) - tanh(b)) / (1 - tanh(b) * tanh(b))
            #expect(abs(WaveshaperCurve.tube.value(x) - max(-1, min(1, tube))) < 5e-7, "tube at \(x)")
            // A wavefolder: the triangle (2/π)·asin(sin(πx/2)).
            #expect(abs(WaveshaperCurve.foldback.value(x) - 2 / Double.pi * asin(sin(Double.pi * x / 2))) < 1e-9, "foldback at \(x)")
        }
    }

    /// The strongest component off the harmonics of 5 kHz, relative to the fundamental, dB.
    static func strongestAlias(curve: WaveshaperCurve, factor: Int) throws -> Double {
        let n = Int(Self.rate)
        let x = (0..<(2 * n)).map { Float(0.5 * sin(2 * Double.pi * 5_000 * Double($0) / Self.rate)) }
        let y = Array(try render(#"{"type": "distortion", "drive": 24, "curve": "\#(curve.rawValue)", "oversampling": \#(factor)}"#, [x])[0][n...])
        func level(_ hz: Int) -> Double {
            // Goertzel at an exact bin of a one-second window.
            let w = 2 * Double.pi * Double(hz) / Self.rate, coefficient = 2 * cos(w)
            var s1 = 0.0, s2 = 0.0
            for v in y { let s0 = Double(v) + coefficient * s1 - s2; s2 = s1; s1 = s0 }
            return (s1 * s1 + s2 * s2 - coefficient * s1 * s2).squareRoot()
        }
        let fundamental = level(5_000)
        let worst = stride(from: 1_000, through: 23_000, by: 1_000).filter { $0 % 5_000 != 0 }.map(level).max()!
        return 20 * log10(worst / fundamental)
    }

    @Test func softClippingAt8xAliasesBelowMinus90dB() throws {
        var table: [String] = []
        for curve in WaveshaperCurve.allCases {
            for factor in [1, 4, 8, 16] {
                let db = try Self.strongestAlias(curve: curve, factor: factor)
                table.append(String(format: "%@ %2d×: %.1f dB", curve.rawValue, factor, db))
                if curve == .soft && factor >= 8 { #expect(db < -90, "soft at \(factor)×: \(db) dB") }
                if factor == 1 { #expect(db > -60, "\(curve) without oversampling should alias (\(db) dB): the measure sees aliases") }
            }
        }
        print("strongest alias of a 5 kHz sine at +24 dB drive, 48 kHz:\n  " + table.joined(separator: "\n  "))
    }

    @Test(arguments: [1, 2, 4, 8, 16])
    func anImpulseLandsAtTheReportedLatency(factor: Int) throws {
        var x = [Float](repeating: 0, count: 2_000)
        x[100] = 0.01  // linear: tanh is x for small x
        let y = try Self.render(#"{"type": "distortion", "drive": 0, "oversampling": \#(factor)}"#, [x])[0]
        let peak = y.indices.max { abs(y[$0]) < abs(y[$1]) }!
        #expect(peak == 100 + OversampledWaveshaper.latency(factor: factor), "\(factor)×: peak at \(peak)")
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "distortion", "oversampling": \#(factor)}]}"#.utf8))
        #expect(try RenderPlan(preset: preset, format: RenderFormat(sampleRate: Self.rate, inputChannelCount: 1, maxBlockFrames: 256)).latencyFrames == OversampledWaveshaper.latency(factor: factor))
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let x = [Signals.noise(20_000, amplitude: 0.5, seed: 4), Signals.noise(20_000, amplitude: 0.5, seed: 5)]
        let node = #"{"type": "distortion", "drive": 30, "curve": "tube", "tone": 4000, "mix": 70}"#
        let reference = try Self.render(node, x, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.render(node, x, block: block) == reference, "block \(block)") }
    }

    @Test func liveEditsMoveInsideTheKernel() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "distortion", "id": "d"}"#), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            try engine.apply(document: try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("d." + key, toValue: value))
        }
        #expect(try set("drive", .number(30)) == .inKernel(nodes: 1))
        #expect(try set("output", .number(-6)) == .inKernel(nodes: 1))
        #expect(try set("mix", .number(40)) == .inKernel(nodes: 1))
        #expect(try set("curve", .string("hard")) == .planSwap)
    }
}
