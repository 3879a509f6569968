import Foundation
import Testing
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// Buses wider than stereo (#40): a channel carries as many channels as its inputs (a 5.1
/// stem on six), groups, auxes and the master declare `"channels"` (2…64); a narrower path
/// goes into the first channels of the bus it feeds (a stereo channel into a 5.1 master's
/// front pair), a wider one is refused with its path. Checked against the sums worked out
/// here, sample by sample; the same bits at every block size; paths of different latency
/// aligned on wide buses too; an aux with outputs of its own as wide as it is.
@Suite struct WideBusTests {
    static let n = 3_000
    static let six = (0..<6).map { Signals.noise(n, amplitude: 0.2, seed: UInt64(90 + $0)) }
    static let stereo = (0..<2).map { Signals.noise(n, amplitude: 0.2, seed: UInt64(80 + $0)) }

    static func render(_ body: String, inputs: [[Float]], block: Int = 256) throws -> (output: [[Float]], plan: RenderPlan) {
        try PresetRender.render(try PresetDecoder.decode(Data(GraphTests.graph(body).utf8)), input: inputs, block: block)
    }

    static func worst(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).map { abs($0 - $1) }.max() ?? .infinity }

    @Test func aSurroundStemAndAStereoChannelIntoASurroundMaster() throws {
        let body = #"""
        {"channels": [{"id": "stem", "input": [0, 1, 2, 3, 4, 5], "volume": 0.5, "chain": [{"type": "gain", "gain": -6}]},
                      {"id": "dialog", "input": [6, 7], "volume": 0.8}],
         "master": {"channels": 6, "volume": 0.9}}
        """#
        let (out, plan) = try Self.render(body, inputs: Self.six + Self.stereo)
        #expect(out.count == 6 && plan.outputChannelNames == nil)
        let g6 = Float(pow(10, -6.0 / 20))
        var worst: Float = 0
        for c in 0..<6 {
            let expected = (0..<Self.n).map { i in 0.9 * (0.5 * g6 * Self.six[c][i] + (c < 2 ? 0.8 * Self.stereo[c][i] : 0)) }
            worst = max(worst, Self.worst(out[c], expected))
        }
        print("5.1 stem + stereo dialog into a 5.1 master: worst difference from the sums \(worst)")
        #expect(worst < 2e-7)
        for block in [1, 77, 1024] { #expect(try Self.render(body, inputs: Self.six + Self.stereo, block: block).output == out) }
    }

    @Test func wideGroupsAndAnAuxWithWideOutputs() throws {
        let body = #"""
        {"channels": [{"id": "a", "input": [0, 1, 2, 3, 4, 5], "group": "stems", "sends": [{"aux": "fx", "level": 0.5, "pre": true}]},
                      {"id": "b", "input": [5, 4, 3, 2, 1, 0], "group": "stems", "volume": 0.25}],
         "groups": [{"id": "stems", "channels": 6, "volume": 0.5, "chain": [{"type": "gain", "gain": -6}]}],
         "auxes": [{"id": "fx", "channels": 6, "to": "outputs", "volume": 0.8}],
         "master": {"channels": 6}}
        """#
        let (out, plan) = try Self.render(body, inputs: Self.six)
        #expect(out.count == 12)
        #expect(plan.outputChannelNames == ["master 1", "master 2", "master 3", "master 4", "master 5", "master 6", "fx 1", "fx 2", "fx 3", "fx 4", "fx 5", "fx 6"])
        let g6 = Float(pow(10, -6.0 / 20))
        var worst: Float = 0
        for c in 0..<6 {
            let master = (0..<Self.n).map { i in 0.5 * g6 * (Self.six[c][i] + 0.25 * Self.six[5 - c][i]) }
            let aux = (0..<Self.n).map { i in 0.8 * 0.5 * Self.six[c][i] }
            worst = max(worst, Self.worst(out[c], master), Self.worst(out[6 + c], aux))
        }
        print("wide group and aux outputs: worst difference from the sums \(worst)")
        #expect(worst < 2e-7)
    }

    @Test func pathsOfDifferentLatencyMeetInTimeOnAWideBus() throws {
        // The same stem twice, one path through a look-ahead limiter that never acts (ceiling
        // 0 dBFS, peaks 0.2): the master is both, aligned — twice the stem, delayed by the latency.
        let body = #"""
        {"channels": [{"id": "slow", "input": [0, 1, 2, 3, 4, 5], "chain": [{"type": "limiter", "ceiling": 0}]},
                      {"id": "fast", "input": [0, 1, 2, 3, 4, 5]}],
         "master": {"channels": 6}}
        """#
        let (out, plan) = try Self.render(body, inputs: Self.six)
        let latency = plan.latencyFrames
        #expect(latency > 0)
        var worst: Float = 0
        for c in 0..<6 {
            for i in latency..<Self.n { worst = max(worst, abs(out[c][i] - 2 * Self.six[c][i - latency])) }
        }
        print("two 6-channel paths, \(latency) frames apart, aligned: worst \(worst)")
        #expect(worst < 1e-6)
    }

    @Test func theMasterWaitsForALongerAuxToOutputsPath() throws {
        // An aux with outputs of its own, delayed by a limiter's look-ahead; the master's
        // outputs are delayed as much, so all of them line up with the plan's latency.
        let body = #"""
        {"channels": [{"id": "a", "input": [0, 1], "sends": [{"aux": "mon", "level": 1, "pre": true}]}],
         "auxes": [{"id": "mon", "to": "outputs", "chain": [{"type": "limiter", "ceiling": 0}]}]}
        """#
        let (out, plan) = try Self.render(body, inputs: Self.stereo)
        let latency = plan.latencyFrames
        #expect(latency > 0 && out.count == 4)
        var worst: Float = 0
        for c in 0..<2 {
            for i in latency..<Self.n {
                worst = max(worst, abs(out[c][i] - Self.stereo[c][i - latency]), abs(out[2 + c][i] - Self.stereo[c][i - latency]))
            }
        }
        print("master aligned with a \(latency)-frame aux output path: worst \(worst)")
        #expect(worst < 1e-6)
    }

    @Test func pathsWiderThanTheirBusAreRefusedWithTheirPath() throws {
        func error(_ body: String, inputs: Int = 6) -> String {
            do { _ = try Self.render(body, inputs: Array(Self.six.prefix(inputs))); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"channels": [{"id": "s", "input": [0, 1, 2, 3, 4, 5]}]}"#)
            .contains(#"graph.channels[0]: channel "s" carries 6 channels and the master bus 2 (give the master "channels": 6)"#))
        #expect(error(#"{"channels": [{"id": "s", "input": [0, 1, 2, 3, 4, 5], "group": "g"}], "groups": [{"id": "g"}], "master": {"channels": 6}}"#)
            .contains(#"graph.channels[0]: channel "s" carries 6 channels and group "g" 2 (give it "channels": 6)"#))
        #expect(error(#"{"channels": [{"id": "s", "input": [0, 1, 2, 3, 4, 5], "sends": [{"aux": "x"}]}], "auxes": [{"id": "x"}], "master": {"channels": 6}}"#)
            .contains(#"graph.channels[0].sends[0]: channel "s" carries 6 channels and aux "x" 2 (give it "channels": 6)"#))
        #expect(error(#"{"channels": [{"id": "s", "input": [0, 1, 2, 3, 4, 5], "pan": 0.5}], "master": {"channels": 6}}"#)
            .contains("graph.channels[0].pan: pan is a stereo balance, and this channel carries 6 channels"))
        #expect(error(#"{"channels": [{"id": "s", "input": [0, 1]}], "groups": [{"id": "g", "channels": 6, "chain": [{"type": "matrix", "outputs": 2, "routes": []}]}], "master": {"channels": 6}}"#)
            .contains(#"graph.groups[0]: group "g" has 6 channels and its chain ends with 2"#))
        #expect(error(#"{"channels": [{"id": "s", "input": [0]}], "master": {"channels": 65}}"#).contains("graph.master.channels: 65 is out of range (allowed 2…64)"))
    }
}

extension WideBusTests {
    /// A mono dialog channel declaring six channels, its chain's matrix putting it in a 5.1
    /// centre; beside a stereo music channel in the front pair.
    @Test func aMonoDialogUpmixedIntoTheCentre() throws {
        let body = #"""
        {"channels": [{"id": "dialog", "input": [0], "channels": 6, "chain": [{"type": "matrix", "outputs": 6, "routes": [{"from": 0, "to": 2}]}]},
                      {"id": "music", "input": [1, 2], "volume": 0.5}],
         "master": {"channels": 6}}
        """#
        let inputs = [Self.six[0], Self.stereo[0], Self.stereo[1]]
        let (out, _) = try Self.render(body, inputs: inputs)
        let silent = [Float](repeating: 0, count: Self.n)
        let expected: [[Float]] = [Self.stereo[0].map { 0.5 * $0 }, Self.stereo[1].map { 0.5 * $0 }, Self.six[0], silent, silent, silent]
        var worst: Float = 0
        for c in 0..<6 { worst = max(worst, Self.worst(out[c], expected[c])) }
        #expect(worst < 2e-7, "\(worst)")
    }
}
