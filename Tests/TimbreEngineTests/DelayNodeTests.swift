import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// The `delay` node as a preset states it: every form of the time (ms, samples, metres at
/// 343 m/s, note values at a tempo) lands an impulse where it says; what cannot be is refused
/// naming the key; live, the time in every form, feedback, mix and the cuts move inside the
/// running kernel, while ping-pong and the change mode compile a new plan.
@Suite struct DelayNodeTests {
    static func preset(_ node: String) throws -> Preset {
        try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [\#(node)]}"#.utf8))
    }

    static func echo(_ node: String, rate: Double = 48_000) throws -> Int? {
        var x = [Float](repeating: 0, count: Int(rate))
        x[0] = 1
        let y = try PresetRender.render(try preset(node), input: [x], block: 256, rate: rate).output[0]
        return y.firstIndex { $0 != 0 }
    }

    @Test func everyFormOfTheTimeLandsWhereItSays() throws {
        #expect(try Self.echo(#"{"type": "delay", "time": 10, "mix": 100}"#) == 480)
        #expect(try Self.echo(#"{"type": "delay", "samples": 1234, "mix": 100}"#) == 1_234)
        #expect(try Self.echo(#"{"type": "delay", "metres": 3.43, "mix": 100}"#) == 480)  // 10 ms of sound in air
        // A dotted eighth at 96 bpm: 0.1875 of a whole note of 2.5 s = 468.75 ms = 22,500 frames.
        #expect(try Self.echo(#"{"type": "delay", "note": "1/8d", "tempo": 96, "mix": 100}"#) == 22_500)
        #expect(try Self.echo(#"{"type": "delay", "note": "1/4t", "tempo": 120, "mix": 100}"#, rate: 44_100) == 14_700)  // 333.3 ms
        let s = try #require(try Self.preset(#"{"type": "delay", "note": "1/8d", "tempo": 96}"#).allNodes[0].kind.settings(as: DelaySettings.self))
        #expect(abs(s.milliseconds - 468.75) < 1e-9)
    }

    @Test func whatCannotBeIsRefusedByKey() throws {
        func error(_ node: String, channels: Int = 1) -> String {
            do {
                let p = try Self.preset(node)
                _ = try PresetRender.render(p, input: Array(repeating: [Float](repeating: 0, count: 64), count: channels), block: 64)
                return ""
            } catch { return "\(error)" }
        }
        #expect(error(#"{"type": "delay", "time": 10, "samples": 20}"#).contains("give one of time, samples, metres and note"))
        #expect(error(#"{"type": "delay", "note": "1/5"}"#).contains("chain[0].note"))
        #expect(error(#"{"type": "delay", "tempo": 100}"#).contains("chain[0].tempo: a tempo needs a note value"))
        #expect(error(#"{"type": "delay", "note": "1/1", "tempo": 20}"#).contains("longer than the 5000 ms"))
        #expect(error(#"{"type": "delay", "time": 6000}"#).contains("chain[0].time"))
        #expect(error(#"{"type": "delay", "feedback": 120}"#).contains("chain[0].feedback"))
        #expect(error(#"{"type": "delay", "pingPong": true}"#).contains("chain[0].pingPong: ping-pong needs a stereo chain"))
        #expect(error(#"{"type": "delay", "pingPong": true}"#, channels: 2).isEmpty)
        #expect(error(#"{"type": "delay", "change": "warp"}"#).contains("chain[0].change"))
    }

    @Test func liveEditsMoveInsideTheKernel() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "delay", "id": "d", "note": "1/8", "tempo": 120, "feedback": 30, "lowCut": 100}"#),
                                    sampleRate: 48_000, inputChannelCount: 2, outputChannelCount: 2)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            let edited = try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("d." + key, toValue: value)
            return try engine.apply(document: edited)
        }
        #expect(try set("tempo", .number(96)) == .inKernel(nodes: 1))
        #expect(try set("feedback", .number(-60)) == .inKernel(nodes: 1))
        #expect(try set("lowCut", .number(300)) == .inKernel(nodes: 1))
        #expect(try set("pingPong", .bool(true)) == .planSwap)
        #expect(try set("change", .string("glide")) == .planSwap)
        #expect(try set("highCut", .number(4_000)) == .planSwap)  // a cut switched on: a new section in the loop
        #expect(try set("highCut", .number(3_000)) == .inKernel(nodes: 1))
    }
}
