import Foundation
import Testing
import TimbreControl
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// Aux buses and sends (#40) through real plans, against the sums worked out here: pre- and
/// post-fader sends from channels and groups, an aux returning into the master through its
/// own chain, an aux with outputs of its own after the master's (named), mute and solo acting
/// on post-fader sends only, paths of different latency meeting in time at an aux and at the
/// outputs, send levels moving live inside the plan, the same bits at every block size.
@Suite struct AuxSendTests {
    static let n = 4_000
    static let x0 = Signals.noise(n, amplitude: 0.3, seed: 41), x1 = Signals.noise(n, amplitude: 0.3, seed: 42)

    static func preset(_ body: String) throws -> Preset { try PresetDecoder.decode(Data(GraphTests.graph(body).utf8)) }

    static let monitor = #"""
    {"channels": [
       {"id": "a", "input": [0, 1], "volume": 0.8, "sends": [{"aux": "mon", "level": 0.5, "pre": true}, {"aux": "fx", "level": 0.5}]},
       {"id": "b", "input": [1, 0], "volume": 0.6, "sends": [{"aux": "mon", "level": 0.25}]}],
     "auxes": [{"id": "mon", "to": "outputs", "volume": 0.9}, {"id": "fx", "chain": [{"type": "gain", "gain": -6}]}]}
    """#

    @Test func preAndPostSendsToAReturnAndToOutputs() throws {
        let (out, plan) = try PresetRender.render(try Self.preset(Self.monitor), input: [Self.x0, Self.x1], block: 256)
        #expect(out.count == 4 && plan.outputChannelNames == ["master L", "master R", "mon L", "mon R"])
        let g6 = Float(pow(10, -6.0 / 20))
        var worst: Float = 0
        for i in 0..<Self.n {
            let (l, r) = (Self.x0[i], Self.x1[i])
            let expected: [Float] = [0.8 * l + 0.6 * r + 0.5 * 0.8 * l * g6, 0.8 * r + 0.6 * l + 0.5 * 0.8 * r * g6,
                                     0.9 * (0.5 * l + 0.25 * 0.6 * r), 0.9 * (0.5 * r + 0.25 * 0.6 * l)]
            for c in 0..<4 { worst = max(worst, abs(out[c][i] - expected[c])) }
        }
        print("aux sends: worst difference from the sums \(worst)")
        #expect(worst < 2e-7)
        for block in [1, 64, 1000] { #expect(try PresetRender.render(try Self.preset(Self.monitor), input: [Self.x0, Self.x1], block: block).output == out) }
    }

    /// A muted channel keeps its pre-fader send (the monitor mix) and loses its post-fader one;
    /// a soloed other channel does the same to it.
    @Test func muteAndSoloActOnPostFaderSendsOnly() throws {
        for variant in [#""mute": true"#, #""solo": false"#] {
            var body = Self.monitor.replacingOccurrences(of: #""volume": 0.8,"#, with: #""volume": 0.8, \#(variant),"#)
            if variant.contains("solo") { body = body.replacingOccurrences(of: #""volume": 0.6,"#, with: #""volume": 0.6, "solo": true,"#) }
            let out = try PresetRender.render(try Self.preset(body), input: [Self.x0, Self.x1], block: 256).output
            var worst: Float = 0
            for i in 0..<Self.n {
                let (l, r) = (Self.x0[i], Self.x1[i])
                worst = max(worst, abs(out[0][i] - 0.6 * r), abs(out[2][i] - 0.9 * (0.5 * l + 0.25 * 0.6 * r)))
            }
            #expect(worst < 2e-7, "\(variant): \(worst)")
        }
    }

    /// Channel b runs through a limiter (latency L): channel a's sends and mix are delayed to
    /// meet it, at the aux and at the outputs, and the aux with outputs of its own lines up with
    /// the master.
    @Test func latencyIsCompensatedAcrossSendsAndOutputs() throws {
        let body = Self.monitor.replacingOccurrences(of: #""volume": 0.6,"#, with: #""volume": 0.6, "chain": [{"type": "limiter", "ceiling": 0}],"#)
        var impulse = [Float](repeating: 0, count: 2_000)
        impulse[100] = 0.1
        let (out, plan) = try PresetRender.render(try Self.preset(body), input: [impulse, impulse], block: 64)
        let latency = plan.latencyFrames
        #expect(latency > 0)
        for c in 0..<4 {
            let hits = out[c].indices.filter { abs(out[c][$0]) > 1e-9 }
            #expect(hits == [100 + latency], "output \(c): non-zero at \(hits), latency \(latency)")
        }
    }

    @Test func groupSendsAndSendLevelsMovingLive() throws {
        let body = #"""
        {"channels": [{"id": "a", "input": [0, 1], "group": "g"}],
         "groups": [{"id": "g", "volume": 0.5, "sends": [{"aux": "mon", "level": 0.4}]}],
         "auxes": [{"id": "mon", "to": "outputs"}]}
        """#
        let out = try PresetRender.render(try Self.preset(body), input: [Self.x0, Self.x1], block: 256).output
        #expect(out.count == 4)
        #expect((0..<Self.n).allSatisfy { abs(out[2][$0] - 0.4 * 0.5 * Self.x0[$0]) < 1e-7 })
        let engine = try LiveEngine(document: try PresetDecoder.parse(Data(GraphTests.graph(body).utf8)), sampleRate: 48_000, inputChannelCount: 2)
        #expect(engine.outputChannelCount == 4)
        let plan = engine.plan
        let editor = { try PresetDocumentEditor(document: engine.document, preset: engine.preset) }
        #expect(try engine.apply(document: try editor().setting("g.sends[0].level", toValue: .number(0.8))) == .inKernel(nodes: 1))
        // The group's fader moves its mix and its post-fader send.
        #expect(try engine.apply(document: try editor().setting("g.volume", toValue: .number(0.7))) == .inKernel(nodes: 2))
        #expect(try engine.apply(document: try editor().setting("mon.volume", toValue: .number(0.3))) == .inKernel(nodes: 1))
        #expect(engine.plan === plan, "levels move inside the running plan")
        #expect(try engine.apply(document: try editor().setting("g.sends[0].pre", toValue: .bool(true))) == .planSwap)
    }

    @Test func badSendsAreRefusedWithTheirPath() throws {
        func error(_ body: String) -> String {
            do { _ = try Self.preset(body); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"channels": [{"id": "a", "sends": [{"aux": "nope"}]}], "auxes": [{"id": "mon"}]}"#).contains("graph.channels[0].sends[0].aux: no aux bus with id \"nope\" (auxes: mon)"))
        #expect(error(#"{"channels": [{"id": "a", "sends": [{"aux": "mon"}, {"aux": "mon", "pre": true}]}], "auxes": [{"id": "mon"}]}"#).contains("graph.channels[0].sends[1].aux: a second send to \"mon\""))
        #expect(error(#"{"channels": [{"id": "a"}], "auxes": [{"id": "a"}]}"#).contains("graph.auxes[0].id: id \"a\" is empty or used twice"))
        #expect(error(#"{"channels": [{"id": "a"}], "auxes": [{"id": "m", "to": "nowhere"}]}"#).contains("graph.auxes[0].to: \"nowhere\" is not allowed (allowed \"master\", \"outputs\")"))
        #expect(error(#"{"channels": [{"id": "a", "sends": [{"aux": "m", "level": 2}]}], "auxes": [{"id": "m"}]}"#).contains("graph.channels[0].sends[0].level: 2 is out of range"))
    }
}
