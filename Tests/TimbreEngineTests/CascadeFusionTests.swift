import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// Adjacent `filter` and `eq` nodes compile to one biquad cascade; each fused node keeps its
/// own identity: its memory continues across live edits exactly as when it ran alone.
@Suite(.serialized) struct CascadeFusionTests {
    static func preset(_ chain: String) throws -> Preset {
        try PresetDecoder.decode(Data(#"{"version": 1, "name": "fusion", "chain": [\#(chain)]}"#.utf8))
    }

    @Test func adjacentFiltersFuseAndOtherNodesSplitThem() throws {
        let p = try Self.preset(#"""
            {"type": "highpass", "frequency": 80, "slope": 24}, {"type": "peak", "frequency": 1000, "gain": 3},
            {"type": "eq", "bands": [{"frequency": 200, "gain": -2}, {"frequency": 5000, "gain": 2}]},
            {"type": "gain", "gain": -1}, {"type": "peak", "frequency": 300, "gain": 2}, {"type": "lowshelf", "frequency": 100, "gain": 1},
            {"type": "peak", "frequency": 700, "gain": 0}
            """#)
        let plan = try RenderPlan(preset: p, format: RenderFormat(sampleRate: 48000, inputChannelCount: 2, maxBlockFrames: 256))
        // A 0 dB peak is an identity and adds no section (nor a cascade member).
        #expect(plan.nodeKeys == ["#0+#1+#2", "#3", "#4+#5"])
    }

    /// The fused cascade computes what the nodes compute one after another (which round to
    /// Float between nodes, where the cascade keeps Double): the difference stays at Float
    /// rounding, more than 120 dB below the signal.
    @Test(arguments: [1, 2, 3])
    func fusedEqualsNodeByNode(channels: Int) throws {
        let nodes = [#"{"type": "highpass", "frequency": 40, "slope": 12}"#] +
            [31.0, 62, 125, 250, 500, 1000, 2000, 4000, 8000, 16000].enumerated().map { k, f in
                #"{"type": "peak", "frequency": \#(f), "gain": \#(k % 2 == 0 ? 4 : -3), "q": 1.4}"#
            }
        let input = (0..<channels).map { Signals.noise(24_000, amplitude: 0.4, seed: UInt64(9 + $0)) }
        let fused = try RenderPlanTests.render(Self.preset(nodes.joined(separator: ",")), input: input, block: 300)
        var chained = input
        for node in nodes { chained = try RenderPlanTests.render(Self.preset(node), input: chained, block: 300) }
        for c in 0..<channels {
            let error = zip(fused[c], chained[c]).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
            let power = chained[c].reduce(0.0) { $0 + Double($1) * Double($1) }
            let db = 10 * log10(max(error, 1e-300) / power)
            #expect(db < -120, "channel \(c): fused vs node by node \(db) dB")
            if c == 0 { print("cascade fusion: 11 nodes fused vs node by node: \(String(format: "%.1f", db)) dB") }
        }
    }

    /// A member whose place in the cascade moves (a neighbour before it removed) keeps its
    /// memory, and so does a cascade recompiled unchanged: a 40 Hz high-pass settled on DC
    /// stays settled. (A redesigned filter before it would not: carrying TDF-II memory into new
    /// coefficients is itself a small transient with DC in the memory.)
    /// Restarting it, or copying its memory into the wrong sections, makes a step transient.
    @Test func memberMovingWithinTheCascadeKeepsItsMemory() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"""
            {"type": "peak", "id": "b", "frequency": 1000, "gain": 3}, {"type": "peak", "id": "x", "frequency": 2000, "gain": 2},
            {"type": "highpass", "id": "hp", "frequency": 40, "slope": 24}, {"type": "gain", "id": "t", "gain": 0}
            """#), sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 1)
        let d = LiveEngineTests.Driver(engine, block: 256)
        let dc = [Float](repeating: 0.5, count: 48_000)
        _ = d.run(dc[0..<40_000])
        try engine.apply(.remove(node: "x"))  // hp moves from sections 2…3 to 1…2
        let afterRemoval = d.run(dc[40_000..<44_000])
        try engine.apply(.set(address: "t.gain", value: -6))  // a new plan in which b and hp continue in place
        let afterEdit = d.run(dc[44_000...])
        #expect(afterRemoval.map { abs($0) }.max()! < 1e-3, "after the removal: \(afterRemoval.map { abs($0) }.max()!)")
        #expect(afterEdit.map { abs($0) }.max()! < 1e-3, "after the edit: \(afterEdit.map { abs($0) }.max()!)")
    }

    /// A filter inserted live starts alone (so it can fade in); once the fade is over, the
    /// control loop's `performHousekeeping()` (every host calls it) recompiles the document and it
    /// joins its neighbours: the live plan then has a fresh compile's nodes, and after silence its output
    /// equals the offline render of the document sample for sample (as the JACK test of the
    /// fuzzed live host requires).
    @Test func insertedFilterFusesOnceFadedIn() throws {
        DenormalGuard.enable()  // as every render thread: decayed filter memory flushes to exact zeros
        let chain = #"{"type": "highpass", "id": "a", "frequency": 60, "slope": 12}, {"type": "peak", "id": "c", "frequency": 3000, "gain": -4}"#
        let engine = try LiveEngine(document: LiveEngineTests.document(chain), sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 1)
        let d = LiveEngineTests.Driver(engine, block: 256)
        let noise = Signals.noise(48_000, amplitude: 0.3, seed: 12)
        _ = d.run(noise[0..<12_000])
        try engine.apply(.insert(position: 1, node: .object(["type": .string("peak"), "id": .string("b"), "frequency": .number(1000), "gain": .number(6)])))
        // A live engine's plans end with the output meter (`master`).
        #expect(engine.plan.nodeKeys == ["a", "b", "c", "master"] && engine.plan.hasUnfusedNewcomers)
        var blocks = 0
        for k in 0..<40 where engine.plan.hasUnfusedNewcomers {  // 40 × 256 frames = 213 ms
            _ = d.run(noise[(12_000 + 256 * k)..<(12_256 + 256 * k)])
            _ = engine.performHousekeeping()
            blocks += 1
        }
        // Not before the fade-in (30 ms) and the crossfade (15 ms) are over: 2,160 frames.
        #expect(blocks * 256 >= 2_160, "fused after \(blocks) blocks")
        #expect(engine.plan.nodeKeys == ["a+b+c", "master"] && !engine.plan.hasUnfusedNewcomers)
        // Silence until every memory is exactly zero, then the live output equals a fresh plan's.
        _ = d.run([Float](repeating: 0, count: 48_000 * 4)[...])
        let live = d.run(noise[24_000...])
        let offline = try RenderPlanTests.render(PresetDecoder.decode(Data(#"{"version": 1, "name": "live", "chain": [{"type": "highpass", "id": "a", "frequency": 60, "slope": 12}, {"type": "peak", "id": "b", "frequency": 1000, "gain": 6}, {"type": "peak", "id": "c", "frequency": 3000, "gain": -4}]}"#.utf8)),
                                                 input: [Array(noise[24_000...])], block: 256)[0]
        #expect(live == offline, "worst difference \(zip(live, offline).map { abs($0 - $1) }.max() ?? 0)")
    }

    /// Live edits on a fused chain (a member's gain, a removal, an insertion that fades in, a
    /// redesign with another section count) give what the same edits give when every filter
    /// runs alone (0 dB gain nodes between them prevent fusion): member-wise state transfer
    /// and fade-in behave as per-node ones did.
    @Test func liveEditsMatchTheUnfusedChain() throws {
        func chain(separated: Bool) -> String {
            let gap = { (id: String) in separated ? #", {"type": "gain", "id": "\#(id)", "gain": 0}"# : "" }
            return #"{"type": "highpass", "id": "a", "frequency": 60, "slope": 12}"# + gap("g1") +
                #", {"type": "peak", "id": "b", "frequency": 1000, "gain": 6}"# + gap("g2") +
                #", {"type": "peak", "id": "c", "frequency": 3000, "gain": -4}"#
        }
        let input = Signals.noise(48_000 * 3, amplitude: 0.3, seed: 5)
        var outputs: [[Float]] = []
        for separated in [false, true] {
            let engine = try LiveEngine(document: LiveEngineTests.document(chain(separated: separated)), sampleRate: 48000,
                                        inputChannelCount: 1, outputChannelCount: 1)
            let d = LiveEngineTests.Driver(engine, block: 128)
            var out = d.run(input[0..<24_000])
            try engine.apply(.set(address: "b.gain", value: -2))
            out += d.run(input[24_000..<48_000])
            try engine.apply(.remove(node: "b"))
            out += d.run(input[48_000..<72_000])
            try engine.apply(.insert(position: separated ? 2 : 1, node: .object(["type": .string("peak"), "id": .string("d"),
                                                                                 "frequency": .number(500), "gain": .number(5)])))
            out += d.run(input[72_000..<96_000])
            try engine.apply(.set(address: "a.slope", value: 24))  // 1 section → 2: a starts afresh and fades in
            out += d.run(input[96_000...])
            outputs.append(out)
            _ = engine.performHousekeeping()
        }
        let worst = zip(outputs[0], outputs[1]).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-5, "fused vs unfused under the same edits: worst difference \(worst)")
        print("cascade fusion: live edits fused vs unfused: worst difference \(worst)")
    }
}
