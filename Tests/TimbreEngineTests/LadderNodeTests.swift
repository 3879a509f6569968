import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `ladder` filter: small signals see the linear ladder exactly — its impulse response's
/// DFT against the analog H = stages / (1 + k·G⁴), G = 1/(1 + s/ω), at the tan-mapped
/// frequencies, for every mode, slope and resonance — from resonance 1 it oscillates by
/// itself at the cutoff at a steady level; the same bits for every block size; cutoff,
/// resonance and drive move live.
@Suite struct LadderNodeTests {
    static let rate = 48_000.0

    static func render(_ node: String, _ x: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "l", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: x, block: block, rate: rate).output
    }

    @Test(arguments: LadderFilter.Mode.allCases)
    func smallSignalsSeeTheAnalogLadder(mode: LadderFilter.Mode) throws {
        let cutoff = 1_500.0, scale: Float = 1e-4
        for slope in [12, 24] {
            for resonance in [0.0, 0.5, 0.9] {
                var x = [Float](repeating: 0, count: 48_000)
                x[0] = scale
                let h = try Self.render(#"{"type": "ladder", "mode": "\#(mode.rawValue)", "slope": \#(slope), "cutoff": \#(cutoff), "resonance": \#(resonance)}"#, [x])[0]
                let k = 4 * resonance, t = tan(Double.pi * cutoff / Self.rate)
                var worst = 0.0
                for n in 0..<300 {
                    let f = 20 * pow(1_000, Double(n) / 299)  // 20 Hz … 20 kHz
                    let w = 2 * Double.pi * f / Self.rate
                    var re = 0.0, im = 0.0
                    for (i, v) in h.enumerated() where v != 0 { re += Double(v / scale) * cos(w * Double(i)); im -= Double(v / scale) * sin(w * Double(i)) }
                    // G = 1/(1 + jΩ), Ω = tan(w/2)/tan(π fc/rate).
                    let omega = tan(w / 2) / t, gd = 1 + omega * omega
                    let g = (re: 1 / gd, im: -omega / gd)
                    func mul(_ a: (re: Double, im: Double), _ b: (re: Double, im: Double)) -> (re: Double, im: Double) { (a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
                    let g2 = mul(g, g), g4 = mul(g2, g2), one = (re: 1.0, im: 0.0)
                    let m = (re: 1 - g.re, im: -g.im)  // 1 − G
                    let stagesOut: (re: Double, im: Double)
                    switch (mode, slope) {
                    case (.lowpass, 24): stagesOut = g4
                    case (.lowpass, _): stagesOut = g2
                    case (.highpass, 24): stagesOut = mul(mul(m, m), mul(m, m))
                    case (.highpass, _): stagesOut = mul(m, m)
                    case (.bandpass, 24): let p = mul(g2, mul(m, m)); stagesOut = (4 * p.re, 4 * p.im)
                    case (.bandpass, _): let p = mul(g, m); stagesOut = (2 * p.re, 2 * p.im)
                    }
                    let den = (re: one.re + k * g4.re, im: k * g4.im), d2 = den.re * den.re + den.im * den.im
                    let expected = (re: (stagesOut.re * den.re + stagesOut.im * den.im) / d2, im: (stagesOut.im * den.re - stagesOut.re * den.im) / d2)
                    let error = ((re - expected.re) * (re - expected.re) + (im - expected.im) * (im - expected.im)).squareRoot()
                    worst = max(worst, error / max(1e-3, (expected.re * expected.re + expected.im * expected.im).squareRoot()))
                }
                #expect(worst < 1e-3, "\(mode) \(slope) dB, resonance \(resonance): relative error \(worst)")
            }
        }
    }

    @Test func fromResonanceOneItSingsAtTheCutoff() throws {
        var x = [Float](repeating: 0, count: Int(3 * Self.rate))
        x[0] = 0.01
        let y = try Self.render(#"{"type": "ladder", "cutoff": 880, "resonance": 1.1}"#, [x])[0]
        func rms(_ from: Int) -> Double { (y[from..<(from + 48_000)].map { Double($0 * $0) }.reduce(0, +) / 48_000).squareRoot() }
        let a = rms(48_000), b = rms(96_000)
        #expect(a > 0.01 && abs(20 * log10(b / a)) < 0.1, "level \(a) then \(b)")
        var crossings: [Double] = []
        for i in 96_001..<y.count where y[i - 1] < 0 && y[i] >= 0 { crossings.append(Double(i - 1) + Double(-y[i - 1] / (y[i] - y[i - 1]))) }
        let hz = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Self.rate)
        #expect(abs(hz / 880 - 1) < 0.03, "sings at \(hz) Hz")
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let x = [Signals.noise(20_000, amplitude: 0.5, seed: 4), Signals.noise(20_000, amplitude: 0.5, seed: 5)]
        let node = #"{"type": "ladder", "mode": "highpass", "cutoff": 2000, "resonance": 1.0, "drive": 12}"#
        let reference = try Self.render(node, x, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.render(node, x, block: block) == reference, "block \(block)") }
    }

    @Test func liveEditsMoveInsideTheKernel() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "ladder", "id": "l"}"#), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            try engine.apply(document: try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("l." + key, toValue: value))
        }
        #expect(try set("cutoff", .number(300)) == .inKernel(nodes: 1))
        #expect(try set("resonance", .number(1.1)) == .inKernel(nodes: 1))
        #expect(try set("drive", .number(12)) == .inKernel(nodes: 1))
        #expect(try set("mode", .string("bandpass")) == .planSwap)
    }
}
