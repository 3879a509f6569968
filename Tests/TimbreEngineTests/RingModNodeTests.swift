import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// `ringmod`: a 1 kHz tone times a 300 Hz sine carrier is 700 Hz and 1,300 Hz at half the
/// tone's amplitude each and nothing at 1 kHz (exact DFT bins over one second); the same bits
/// for every block size; frequency and mix move live.
@Suite struct RingModNodeTests {
    static let rate = 48_000.0

    static func render(_ node: String, _ x: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "r", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: x, block: block, rate: rate).output
    }

    @Test func aToneBecomesItsSumAndDifference() throws {
        let n = Int(Self.rate)
        let tone = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / Self.rate)) }
        let y = try Self.render(#"{"type": "ringmod", "frequency": 300}"#, [tone])[0]
        func amplitude(_ hz: Double) -> Double {
            var re = 0.0, im = 0.0
            for (i, v) in y.enumerated() { re += Double(v) * cos(2 * Double.pi * hz * Double(i) / Self.rate); im += Double(v) * sin(2 * Double.pi * hz * Double(i) / Self.rate) }
            return 2 * (re * re + im * im).squareRoot() / Double(n)
        }
        #expect(abs(amplitude(700) - 0.25) < 1e-4 && abs(amplitude(1_300) - 0.25) < 1e-4, "\(amplitude(700)), \(amplitude(1_300))")
        #expect(amplitude(1_000) < 1e-5 && amplitude(300) < 1e-5)
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let x = [(0..<20_000).map { Float(sin(Double($0) * 0.01)) }]
        let node = #"{"type": "ringmod", "frequency": 77.7, "shape": "square", "mix": 60}"#
        let reference = try Self.render(node, x, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.render(node, x, block: block) == reference, "block \(block)") }
    }

    @Test func liveEditsMoveInsideTheKernel() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "ringmod", "id": "r"}"#), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            try engine.apply(document: try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("r." + key, toValue: value))
        }
        #expect(try set("frequency", .number(60)) == .inKernel(nodes: 1))
        #expect(try set("mix", .number(50)) == .inKernel(nodes: 1))
        #expect(try set("shape", .string("triangle")) == .planSwap)
    }
}
