import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `matrix` node (#40): split, merge, gain, polarity and mute exact against the arithmetic
/// done here; an output no route reaches is silent; route gains move live inside the kernel
/// (no new plan) in a 20 ms ramp, without a step; labels name the outputs; bad routes refused
/// with their path.
@Suite struct MatrixNodeTests {
    static let a = Signals.noise(6_000, amplitude: 0.4, seed: 21), b = Signals.noise(6_000, amplitude: 0.4, seed: 22)

    static func render(_ node: String, input: [[Float]], block: Int = 256) throws -> (output: [[Float]], plan: RenderPlan) {
        try PresetRender.render(try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [\#(node)]}"#.utf8)), input: input, block: block)
    }

    @Test func splitMergeGainPolarityMute() throws {
        let node = #"{"type": "matrix", "outputs": 4, "labels": ["a", "mix", "-b", "none"], "routes": [{"from": 0, "to": 0}, {"from": 0, "to": 1, "gain": -6}, {"from": 1, "to": 1, "gain": -6}, {"from": 1, "to": 2, "invert": true}, {"from": 0, "to": 3, "mute": true}]}"#
        let (out, plan) = try Self.render(node, input: [Self.a, Self.b])
        #expect(out.count == 4 && plan.outputChannelNames == ["a", "mix", "-b", "none"])
        let g = Float(pow(10, -6.0 / 20))
        #expect(out[0] == Self.a)
        #expect(zip(out[1], zip(Self.a, Self.b)).allSatisfy { $0 == $1.0 * g + $1.1 * g })
        #expect(out[2] == Self.b.map { -$0 })
        #expect(out[3].allSatisfy { $0 == 0 })
        for block in [1, 64, 1000] { #expect(try Self.render(node, input: [Self.a, Self.b], block: block).output == out, "block \(block)") }
        // Fewer outputs than inputs: a mono sum.
        let sum = try Self.render(#"{"type": "matrix", "outputs": 1, "routes": [{"from": 0, "to": 0, "gain": -6}, {"from": 1, "to": 0, "gain": -6}]}"#, input: [Self.a, Self.b]).output
        #expect(sum.count == 1 && sum[0] == out[1])
    }

    @Test func routeGainsMoveLiveInARamp() throws {
        let doc = LiveEngineTests.document(#"{"type": "matrix", "id": "mx", "outputs": 2, "routes": [{"from": 0, "to": 0}, {"from": 0, "to": 1, "gain": -6}]}"#)
        let engine = try LiveEngine(document: doc, sampleRate: 48_000, inputChannelCount: 1)
        #expect(engine.outputChannelCount == 2)
        let driver = LiveEngineTests.Driver(engine, block: 128)
        let dc = [Float](repeating: 0.5, count: 4_800)
        _ = driver.runAll(dc[...])
        let before = engine.plan
        let edit = try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("mx.routes[1].gain", toValue: .number(0))
        #expect(try engine.apply(document: edit) == .inKernel(nodes: 1))
        #expect(engine.plan === before, "no new plan")
        let out = driver.runAll(dc[...])[1]
        // From 0.5 × −6 dB to 0.5 in a straight line over 20 ms (960 frames), then held.
        let start = Float(0.5 * pow(10, -6.0 / 20))
        #expect(abs(out[0] - start) < 0.001)
        #expect(out[960...].allSatisfy { abs($0 - 0.5) < 1e-6 }, "\(out[955...965])")
        #expect(zip(out.dropFirst(), out).map { abs($0 - $1) }.max()! < 0.0003, "a ramp, no step")
        // A new route is structure: a new plan.
        let more = try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("mx.outputs", toValue: .number(3))
        #expect(try engine.apply(document: more) != .inKernel(nodes: 1))
    }

    @Test func badRoutesAreRefusedWithTheirPath() throws {
        func error(_ node: String) -> String {
            do { _ = try Self.render(node, input: [[0], [0]]); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"type": "matrix", "outputs": 2, "routes": [{"from": 2, "to": 0}]}"#).contains("chain[0].routes[0].from: channel 2 does not exist (the chain has 2 here, 0…1)"))
        #expect(error(#"{"type": "matrix", "outputs": 2, "routes": [{"from": 0, "to": 2}]}"#).contains("chain[0].routes[0].to: channel 2 does not exist (0…1)"))
        #expect(error(#"{"type": "matrix", "outputs": 2, "routes": [{"from": 0.5, "to": 0}]}"#).contains("chain[0].routes[0].from: 0.5 is not a channel index"))
        #expect(error(#"{"type": "matrix", "outputs": 2, "labels": ["x"], "routes": []}"#).contains("chain[0].labels: 1 labels for 2 outputs"))
        #expect(error(#"{"type": "matrix", "routes": []}"#).contains("chain[0].outputs: missing required field"))
    }
}
