import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreControl
import TimbreTestSupport

/// The graph form: channels with their own chains, volume, pan, mute and solo; groups;
/// master. Checked against sums computed here.
@Suite struct GraphTests {
    static let rate = 48000.0

    static func graph(_ body: String) -> String { #"{"version": 1, "name": "g", "graph": \#(body)}"# }

    static func render(_ json: String, inputs: [[Float]], block: Int = 256) throws -> [[Float]] {
        try RenderPlanTests.render(PresetDecoder.decode(Data(json.utf8)), input: inputs, block: block)
    }

    static func noise(_ n: Int, seed: UInt64) -> [Float] { Signals.noise(n, amplitude: 0.3, seed: seed) }

    /// Two mono channels (input 0 at volume 0.5 panned hard left, input 1 panned hard right)
    /// through a group with a −6 dB gain, then master volume 0.8: the output is the sum,
    /// computed here from the pan law and gains.
    @Test func channelsGroupsAndMasterSum() throws {
        let json = Self.graph(#"""
        {"channels": [
           {"id": "a", "input": [0], "volume": 0.5, "pan": -1, "group": "bus"},
           {"id": "b", "input": [1], "pan": 1, "group": "bus"}],
         "groups": [{"id": "bus", "chain": [{"type": "gain", "gain": -6.0206}]}],
         "master": {"volume": 0.8}}
        """#)
        let x0 = Self.noise(4000, seed: 1), x1 = Self.noise(4000, seed: 2)
        let out = try Self.render(json, inputs: [x0, x1])
        #expect(out.count == 2)
        var worst: Float = 0
        for i in 0..<4000 {
            worst = max(worst, abs(out[0][i] - x0[i] * 0.5 * 0.5 * 0.8), abs(out[1][i] - x1[i] * 0.5 * 0.8))
        }
        #expect(worst < 1e-6, "worst \(worst)")
    }

    /// A stereo channel and a sine generator mix into master; the generator's level and
    /// frequency are what its spec says (measured with a DFT here).
    @Test func generatorChannel() throws {
        let json = Self.graph(#"""
        {"channels": [{"id": "tone", "generator": {"type": "sine", "frequency": 1000, "level": -6.0206}, "pan": -1}]}
        """#)
        let out = try Self.render(json, inputs: [[Float](repeating: 0, count: 48000)])
        let peak = out[0].map { abs($0) }.max()!
        #expect(abs(peak - 0.5) < 1e-3 && out[1].allSatisfy { abs($0) < 1e-7 })
        var re = 0.0, im = 0.0
        for (i, v) in out[0].enumerated() { let a = 2 * Double.pi * 1000 * Double(i) / Self.rate; re += Double(v) * cos(a); im -= Double(v) * sin(a) }
        #expect(abs(2 * (re * re + im * im).squareRoot() / 48000 - 0.5) < 1e-3, "1 kHz component")
    }

    /// Mute and solo: a muted channel is silent; soloing one channel silences the others.
    @Test func muteAndSolo() throws {
        let x0 = Self.noise(2000, seed: 3), x1 = Self.noise(2000, seed: 4)
        let muted = try Self.render(Self.graph(#"{"channels": [{"id": "a", "input": [0], "pan": -1, "mute": true}, {"id": "b", "input": [1], "pan": 1}]}"#), inputs: [x0, x1])
        #expect(muted[0].allSatisfy { abs($0) < 1e-7 } && zip(muted[1], x1).allSatisfy { abs($0 - $1) < 1e-6 })
        let solo = try Self.render(Self.graph(#"{"channels": [{"id": "a", "input": [0], "pan": -1}, {"id": "b", "input": [1], "pan": 1, "solo": true}]}"#), inputs: [x0, x1])
        #expect(solo[0].allSatisfy { abs($0) < 1e-7 } && zip(solo[1], x1).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    /// A graph's output does not depend on the block size either.
    @Test func graphIsBlockSizeInvariant() throws {
        let json = Self.graph(#"""
        {"channels": [{"id": "a", "input": [0, 1], "chain": [{"type": "eq", "bands": [{"gain": 3}, {"gain": -2}]}], "group": "g"},
                      {"id": "t", "generator": {"type": "sine", "frequency": 440}, "volume": 0.3}],
         "groups": [{"id": "g", "chain": [{"type": "highpass", "frequency": 80}]}],
         "master": {"chain": [{"type": "lowshelf", "frequency": 100, "gain": 2}]}}
        """#)
        let ins = [Self.noise(9000, seed: 5), Self.noise(9000, seed: 6)]
        let ref = try Self.render(json, inputs: ins, block: 4096)
        for b in [1, 17, 64, 256] { #expect(try Self.render(json, inputs: ins, block: b) == ref, "block \(b)") }
    }

    @Test(arguments: [
        (#"{"channels": []}"#, "graph.channels"),
        (#"{"channels": [{"id": "a", "group": "nope"}]}"#, "graph.channels[0].group"),
        (#"{"channels": [{"id": "a"}, {"id": "a"}]}"#, "graph.channels[1].id"),
        (#"{"channels": [{"id": "a", "input": [0], "generator": {"type": "sine"}}]}"#, "graph.channels[0]"),
        (#"{"channels": [{"id": "a", "chain": [{"type": "eq", "bands": [{"gain": 30}]}]}]}"#, "graph.channels[0].chain[0].bands[0].gain"),
        (#"{"channels": [{"id": "a", "volume": 2}]}"#, "graph.channels[0].volume"),
        (#"{"channels": [{"id": "a", "colour": 1}]}"#, "graph.channels[0].colour"),
    ])
    func rejects(body: String, path: String) {
        do { _ = try PresetDecoder.decode(Data(Self.graph(body).utf8)); Issue.record("accepted \(body)") } catch {
            #expect(error.path == path, "\(error)")
        }
    }

    @Test func inputBeyondHostChannelsIsAnError() throws {
        let p = try PresetDecoder.decode(Data(Self.graph(#"{"channels": [{"id": "a", "input": [3]}]}"#).utf8))
        do { _ = try RenderPlan(preset: p, format: RenderFormat(sampleRate: 48000, inputChannelCount: 2)); Issue.record("accepted") } catch {
            #expect(error.path == "graph.channels[0].input[0]" && error.description.contains("2 input channels"))
        }
    }

    /// Live: channel volume, mute and a node inside a channel's chain are addressable by id,
    /// and a mute ramps instead of clicking.
    @Test func liveGraphEdits() throws {
        let doc = try PresetDecoder.parse(Data(Self.graph(#"""
        {"channels": [{"id": "tone", "generator": {"type": "sine", "frequency": 1000, "level": -20}, "chain": [{"type": "peak", "id": "bell", "frequency": 2000}]}]}
        """#).utf8))
        let engine = try LiveEngine(document: doc, sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 2)
        try engine.apply(.set(address: "tone.volume", value: 0.5))
        try engine.apply(.set(address: "bell.gain", value: 4))
        try engine.apply(.set(address: "tone.mute", value: 1))
        guard case .graph(let graph) = engine.preset.form else { Issue.record("not a graph"); return }
        #expect(graph.channels[0].mute == true && graph.channels[0].volume == 0.5)
        guard let d = graph.channels[0].chain.first?.kind.settings(as: FilterSettings.self)?.design else { Issue.record("bell"); return }
        #expect(d.gainDB == 4)
        #expect(throws: ControlError.self) { try engine.apply(.set(address: "tone.volume", value: 3)) }
    }
}
