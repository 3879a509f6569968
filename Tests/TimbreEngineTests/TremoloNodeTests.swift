import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// `tremolo` and `autopan` on a constant signal, where the output is the gain itself: the
/// oscillator's frequency within 0.1 % (from its crossings over 20 s), tempo sync, the gain
/// within 1 − depth … 1 for every shape, an auto-pan's two sides summing to 2 − depth, a
/// live rate change without a jump, the same bits for every block size.
@Suite struct TremoloNodeTests {
    static let rate = 48_000.0

    static func gains(_ node: String, channels: Int = 1, seconds: Double = 2, block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [\#(node)]}"#.utf8))
        let ones = [Float](repeating: 1, count: Int(seconds * rate))
        return try PresetRender.render(preset, input: Array(repeating: ones, count: channels), block: block, rate: rate).output
    }

    /// The frequency of g − mid from its upward crossings (linearly interpolated).
    static func frequency(_ g: [Float], mid: Float) -> Double {
        var crossings: [Double] = []
        for i in 1..<g.count where g[i - 1] < mid && g[i] >= mid {
            crossings.append(Double(i - 1) + Double((mid - g[i - 1]) / (g[i] - g[i - 1])))
        }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / rate)
    }

    @Test(arguments: [(#""rate": 5.3"#, 5.3), (#""rate": 0.7"#, 0.7), (#""rate": 19"#, 19), (#""note": "1/8", "tempo": 120"#, 4), (#""note": "1/4t", "tempo": 100"#, 2.5)])
    func theOscillatorIsExact(keys: String, hz: Double) throws {
        let g = try Self.gains(#"{"type": "tremolo", \#(keys), "depth": 100}"#, seconds: 20)[0]
        let measured = Self.frequency(g, mid: 0.5)
        #expect(abs(measured - hz) / hz < 0.001, "\(keys): \(measured) Hz, set \(hz) Hz")
    }

    @Test(arguments: LowFrequencyOscillator.Shape.allCases)
    func theGainStaysWithinItsDepth(shape: LowFrequencyOscillator.Shape) throws {
        let g = try Self.gains(#"{"type": "tremolo", "rate": 3, "depth": 60, "shape": "\#(shape.rawValue)"}"#)[0]
        #expect(g.min()! >= 0.4 - 1e-6 && g.max()! <= 1 + 1e-6)
        #expect(g.min()! < 0.401 && g.max()! > 0.999, "\(shape): \(g.min()!)…\(g.max()!)")
        // No step larger than the steepest edge allows (the square's 1/50-period ramps): no click.
        let step = (1..<g.count).map { abs(g[$0] - g[$0 - 1]) }.max()!
        #expect(step < 0.6 * Float.pi / 2 / (0.02 * Float(Self.rate) / 3) * 1.01, "\(shape): step \(step)")
    }

    @Test func anAutoPanKeepsTheSumOfItsSides() throws {
        let g = try Self.gains(#"{"type": "autopan", "rate": 1, "depth": 80}"#, channels: 2)
        let worst = (0..<g[0].count).map { abs(g[0][$0] + g[1][$0] - 1.2) }.max()!
        #expect(worst < 1e-5)
    }

    @Test func aLiveRateChangeDoesNotJump() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "tremolo", "id": "t", "rate": 2, "depth": 100}"#),
                                    sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        let edited = try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("t.rate", toValue: .number(15))
        #expect(try engine.apply(document: edited) == .inKernel(nodes: 1))
        // The kernel itself: 2 Hz, then 15 Hz from frame 10,000 — the phase runs on.
        var k = Tremolo(shape: .sine, frequencyHz: 2, depth: 1, stereoPhase: 0, sampleRate: Self.rate)
        let buffer = PlanarBuffer(channels: [[Float](repeating: 1, count: 20_000)])
        for start in stride(from: 0, to: 20_000, by: 100) {
            if start == 10_000 { k.retune(frequencyHz: 15, depth: 1) }
            buffer.withChannelPointers(from: start) { k.process($0, channelCount: 1, frameCount: 100) }
        }
        let g = buffer.channels[0], step = (1..<g.count).map { abs(g[$0] - g[$0 - 1]) }.max()!
        #expect(step < Float.pi * 15 / Float(Self.rate) * 1.01, "largest step \(step)")
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let node = #"{"type": "autopan", "rate": 3.3, "depth": 70, "shape": "square"}"#
        let reference = try Self.gains(node, channels: 2, seconds: 1, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.gains(node, channels: 2, seconds: 1, block: block) == reference, "block \(block)") }
    }

    @Test func syncOutsideTheRatesIsRefused() throws {
        #expect { _ = try Self.gains(#"{"type": "tremolo", "note": "1/64", "tempo": 400}"#) } throws: { "\($0)".contains("chain[0].note") }
        #expect { _ = try Self.gains(#"{"type": "tremolo", "rate": 2, "note": "1/4"}"#) } throws: { "\($0)".contains("chain[0].rate: give either rate") }
    }
}
