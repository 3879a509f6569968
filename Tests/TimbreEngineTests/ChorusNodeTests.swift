import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// `chorus` and `flanger`: an unmodulated tap lands exactly at its centre; at the extremes
/// (20 ms swing at 10 Hz, 8 voices, ±95 % feedback) the output stays finite and no sample
/// steps further than the tone times the read's fastest speed allows (no click); the same
/// bits for every block size; rate, depth, centre, feedback and mix move live.
@Suite struct ChorusNodeTests {
    static let rate = 48_000.0

    static func render(_ node: String, _ x: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "c", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: x, block: block, rate: rate).output
    }

    @Test func aStillTapIsItsCentre() throws {
        var x = [Float](repeating: 0, count: 4_800)
        x[100] = 1
        // 10 ms = 480 frames, no swing, wet only.
        let y = try Self.render(#"{"type": "flanger", "depth": 0, "centre": 10, "feedback": 0, "mix": 100}"#, [x])[0]
        #expect(y.firstIndex { $0 != 0 } == 580 && y[580] == 1 && y.filter { $0 != 0 }.count == 1)
    }

    @Test(arguments: [#"{"type": "chorus", "voices": 8, "rate": 10, "depth": 20, "centre": 50, "feedback": 95, "mix": 100}"#,
                      #"{"type": "flanger", "rate": 10, "depth": 20, "centre": 0.1, "feedback": -95, "mix": 100, "shape": "square"}"#,
                      #"{"type": "flanger", "rate": 0.2, "depth": 2, "centre": 2.5, "feedback": 95, "mix": 50, "shape": "saw-up"}"#])
    func extremeSettingsDoNotClick(node: String) throws {
        let n = Int(4 * Self.rate), amplitude: Float = 0.25
        let tone = (0..<n).map { amplitude * Float(sin(2 * Double.pi * 220 * Double($0) / Self.rate)) }
        let y = try Self.render(node, [tone])[0]
        #expect(y.allSatisfy { $0.isFinite })
        // The read moves at most 2π·rate·depth frames per frame (the steepest shape: the square's
        // edges, π/(2·0.02) times the sine's slope); a tone of the output's peak read that fast
        // steps at most peak · ω · speed per frame.
        let settings = try #require(try PresetDecoder.decode(Data(#"{"version": 1, "name": "c", "chain": [\#(node)]}"#.utf8)).allNodes[0].kind.settings(as: ChorusSettings.self))
        let slope = settings.shape == .square ? Double.pi / 2 / LowFrequencyOscillator.edge : settings.shape == .sawUp ? Double.pi / 2 / LowFrequencyOscillator.edge : Double.pi
        let speed = 1 + 2 * settings.depthMs / 1000 * Self.rate * slope * settings.rateHz / Self.rate
        let gain = Double(y.map { abs($0) }.max()!) / Double(amplitude)
        let own = Double(amplitude) * 2 * Double.pi * 220 / Self.rate
        let step = (1..<n).map { Double(abs(y[$0] - y[$0 - 1])) }.max()!
        print(String(format: "%@: largest step %.4f, bound %.4f (read speed %.2f, peak %.1f × the tone)", node, step, own * speed * gain, speed, gain))
        #expect(step <= own * speed * gain)
    }

    /// The kernel's oscillator phase is a function of the position since the last rate change:
    /// a change re-anchors it where it is, so the delay does not jump. A 50 Hz sine (its period
    /// longer than any jump the swing could make) read through one voice (10 ms ± 5 ms) while
    /// the rate goes from 2 to 8 Hz at frame 10,000: no step beyond what the read's speed allows
    /// at 8 Hz (1 + 2π·8·240/48,000 ≈ 1.25 × the sine's own). Without the re-anchoring the
    /// delay jumps there and the step is twice the bound.
    @Test func aRateChangeKeepsThePhase() throws {
        let depth = 0.005 * Self.rate, centre = 0.01 * Self.rate
        let delay = ModulatedDelay(values: .init(rateHz: 2, centreFrames: centre, depthFrames: depth, feedback: 0, mix: 1), shape: .sine, voices: 1,
                                   stereoPhase: 0, sampleRate: Self.rate, channelCount: 1, maximumFrames: Int(centre + depth) + 8)
        let n = 30_000
        let buffer = PlanarBuffer(channels: [(0..<n).map { Float(0.5 * sin(2 * Double.pi * 50 * Double($0) / Self.rate)) }])
        for start in stride(from: 0, to: n, by: 100) {
            if start == 10_000 { delay.retune(.init(rateHz: 8, centreFrames: centre, depthFrames: depth, feedback: 0, mix: 1)) }
            buffer.withChannelPointers(from: start) { delay.process($0, frameCount: 100) }
        }
        let y = buffer.channels[0], own = 0.5 * 2 * Double.pi * 50 / Self.rate
        let speed = 1 + 2 * Double.pi * 8 * depth / Self.rate
        let step = (1_000..<n).map { Double(abs(y[$0] - y[$0 - 1])) }.max()!
        #expect(step <= own * speed * 1.01, "largest step \(step), bound \(own * speed)")
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let x = [Signals.noise(30_000, amplitude: 0.3, seed: 4), Signals.noise(30_000, amplitude: 0.3, seed: 5)]
        let node = #"{"type": "chorus", "voices": 3, "rate": 1.3, "depth": 4, "centre": 12, "feedback": 30, "mix": 60}"#
        let reference = try Self.render(node, x, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.render(node, x, block: block) == reference, "block \(block)") }
    }

    @Test func liveEditsMoveInsideTheKernel() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "chorus", "id": "c"}"#), sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            try engine.apply(document: try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("c." + key, toValue: value))
        }
        for key in ["rate", "depth", "centre", "feedback", "mix"] { #expect(try set(key, .number(5)) == .inKernel(nodes: 1), "\(key)") }
        #expect(try set("voices", .number(5)) == .planSwap)
        #expect(try set("shape", .string("triangle")) == .planSwap)
    }
}
