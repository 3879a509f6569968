import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreControl
import TimbreFile
import TimbreTestSupport

/// Live edits through the real-time renderer: atomic batches, click-free changes, state
/// continuation, plan reclamation, and zero allocations on the render path.
@Suite(.serialized) struct LiveEngineTests {
    static let rate = 48000.0

    static func document(_ chain: String) -> JSONValue {
        try! PresetDecoder.parse(Data(#"{"version": 1, "name": "live", "chain": [\#(chain)]}"#.utf8))
    }

    /// Drives a renderer block by block with planar buffers.
    final class Driver: @unchecked Sendable {
        let engine: LiveEngine
        let block: Int
        var input: [UnsafeMutablePointer<Float>]
        var output: [UnsafeMutablePointer<Float>]
        var constInput: [UnsafePointer<Float>]

        init(_ engine: LiveEngine, block: Int) {
            self.engine = engine; self.block = block
            input = (0..<engine.inputChannelCount).map { _ in .allocate(capacity: block) }
            output = (0..<engine.outputChannelCount).map { _ in .allocate(capacity: block) }
            constInput = input.map { UnsafePointer($0) }
        }
        deinit { input.forEach { $0.deallocate() }; output.forEach { $0.deallocate() } }

        /// Renders `signal` (mono, fed to every input) and returns output channel `channel`.
        func run(_ signal: ArraySlice<Float>, channel: Int = 0) -> [Float] { runAll(signal)[channel] }

        /// Renders `signal` (mono, fed to every input) and returns every output channel.
        func runAll(_ signal: ArraySlice<Float>) -> [[Float]] {
            var out = [[Float]](repeating: [], count: output.count)
            var i = signal.startIndex
            while i < signal.endIndex {
                let n = min(block, signal.endIndex - i)
                for c in 0..<input.count { for k in 0..<n { input[c][k] = signal[i + k] } }
                renderBlock(n)
                for c in 0..<output.count { out[c] += UnsafeBufferPointer(start: output[c], count: n) }
                i += n
            }
            return out
        }

        @inline(never) func renderBlock(_ n: Int) {
            constInput.withUnsafeBufferPointer { ins in output.withUnsafeBufferPointer { outs in
                engine.renderer.render(input: ins.baseAddress!, output: outs.baseAddress!, frameCount: n)
            } }
        }
    }

    static func sine(_ n: Int, hz: Double = 1000, amplitude: Float = 0.1) -> [Float] { Signals.sine(n, hz: hz, amplitude: Double(amplitude), rate: rate) }

    static func maxStep<C: Collection>(_ x: C) -> Float where C.Element == Float {
        zip(x.dropFirst(), x).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// A +20 dB gain change and a bypass take effect within one period plus the smoothing
    /// time, and the largest step stays within 1 % of the steady-state step at the louder level.
    @Test(arguments: [64, 256, 1024])
    func parameterChangeIsSmoothAndPrompt(block: Int) throws {
        let engine = try LiveEngine(document: Self.document(#"{"type": "peak", "id": "bell", "frequency": 3000, "gain": 0}, {"type": "gain", "id": "trim", "gain": 0}"#),
                                    sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        let d = Driver(engine, block: block)
        let x = Self.sine(96000)
        var y = d.run(x[0..<24000])
        try engine.apply(.set(address: "trim.gain", value: 20))
        y += d.run(x[24000...])
        let settle = block + Int((LiveEngine.crossfadeSeconds + GainKernel.defaultRampSeconds) * Self.rate) + 1
        let level = y[(24000 + settle)...].map { abs($0) }.max()!
        #expect(abs(level - 1.0) < 0.002, "+20 dB reached after one period + smoothing: \(level)")
        let steady = Self.maxStep(y[60000...])
        #expect(Self.maxStep(y[23000..<(24000 + settle + 100)]) <= steady * 1.01)
        #expect(engine.isSettled)
    }

    /// A batch (a whole EQ) is applied atomically: alternating between two presets that are
    /// each exactly flat (a boost and its inverse cut; no bands), output equals input at every
    /// sample, including during crossfades. A half-applied batch would not be flat.
    @Test func batchesAreAtomic() throws {
        let flatPair = Self.document(#"{"type": "eq", "id": "eq", "bands": [{"frequency": 800, "gain": 9, "q": 2}, {"frequency": 800, "gain": -9, "q": 2}, {"frequency": 5000, "gain": -6}, {"frequency": 5000, "gain": 6}]}"#)
        let empty = Self.document(#"{"type": "eq", "id": "eq", "bands": []}"#)
        let engine = try LiveEngine(document: empty, sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        let d = Driver(engine, block: 128)
        var s: UInt64 = 3
        let x: [Float] = (0..<128 * 400).map { _ in s = s &* 6364136223846793005 &+ 1442695040888963407; return Float(Int32(truncatingIfNeeded: s >> 32)) / Float(Int32.max) * 0.3 }
        var worst: Float = 0
        for b in 0..<400 {
            if b % 3 == 0 { try engine.load(document: b % 2 == 0 ? flatPair : empty) }
            let y = d.run(x[(b * 128)..<((b + 1) * 128)])
            for k in 0..<128 { worst = max(worst, abs(y[k] - x[b * 128 + k])) }
            engine.performHousekeeping()
        }
        print("Batches: worst deviation from flat \(worst) (limit \(Tolerance[.batchFlat].limit))")
        #expect(Double(worst) <= Tolerance[.batchFlat].limit, "deviation from flat \(worst)")
    }

    /// Each chain node of `EveryNodePresets.chain` alone (and `extra` nodes), then the graph of
    /// every graph node: (what it is, its document).
    static func oneNodeDocuments(extra: [JSONValue] = []) throws -> [(String, JSONValue)] {
        guard case .object(let every) = try PresetDecoder.parse(Data(EveryNodePresets.chain.utf8)), case .array(let nodes)? = every["chain"] else {
            throw CocoaError(.coderReadCorrupt)
        }
        let graph = try PresetDecoder.parse(Data(EveryNodePresets.graph.utf8))
        return (nodes + extra).map { node in
            var one = every
            one["chain"] = .array([node])
            return ("\(node)", .object(one))
        } + [("the every-graph-node graph", graph)]
    }

    /// A warmed-up engine starts where a fresh offline render starts: the warm-up's block of
    /// silence leaves no trace (filters, delay lines, oscillators, dither, ramps all reset).
    /// Each chain node kind alone and the graph of every graph node (sources, buses, a sine
    /// generator), stereo noise, 256-frame blocks: bit for bit. (The tremolo, ring modulator,
    /// sine generator and pitch shifter once kept the warm-up's 256 frames — found live under
    /// jackd by `LiveJackTests.effectsLiveEqualOffline`.)
    @Test func warmUpLeavesNoTrace() throws {
        let x = Signals.noise(24000, amplitude: 0.3, seed: 21)
        for (node, document) in try Self.oneNodeDocuments() {
            let engine = try LiveEngine(document: document, sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2, maxBlockFrames: 256)
            engine.warmUp()
            let live = Driver(engine, block: 256).runAll(x[...])
            let offline = try PresetRender.render(PresetDecoder.decode(document), input: [x, x], block: 4096, rate: Self.rate).output
            var worst: Float = 0
            for c in 0..<2 { for k in 0..<x.count { worst = max(worst, abs(live[c][k] - offline[c][k])) } }
            #expect(worst == 0, "\(node): warmed-up live render vs offline: worst difference \(worst)")
        }
    }

    /// Live input is not checked before the graph: a block of NaN, ±infinity and 10³⁰ through
    /// every chain node kind alone, and the graph of every graph node, must not trap (a bit
    /// crusher and a foldback curve once converted such samples to integers) and, after the
    /// poisoned blocks, finite input gives finite output again.
    @Test func poisonedInputNeitherTrapsNorSticks() throws {
        let extra: [JSONValue] = [
            .object(["type": .string("distortion"), "curve": .string("foldback"), "drive": .number(24)]),
            .object(["type": .string("bitcrush"), "bits": .number(4), "dither": .bool(true)]),
        ]
        let x = Signals.noise(4096, amplitude: 0.3, seed: 5)
        for (node, document) in try Self.oneNodeDocuments(extra: extra) {
            let engine = try LiveEngine(document: document, sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2, maxBlockFrames: 256)
            engine.warmUp()
            let d = Driver(engine, block: 256)
            for poison in [Float.nan, .infinity, -.infinity, 1e30] {
                for c in 0..<2 { for k in 0..<256 { d.input[c][k] = k % 3 == 0 ? poison : x[k] } }
                d.renderBlock(256)
            }
            // A block or so to clear what the poison left (the plan clears non-finite state).
            let after = d.runAll(x[...]).map { $0.dropFirst(1024) }
            #expect(after.allSatisfy { $0.allSatisfy(\.isFinite) }, "\(node): output not finite after the poisoned blocks")
        }
    }

    /// Filter state continues across a parameter change: changing a 40 Hz high-pass's
    /// neighbour does not restart the high-pass (no step transient on a DC-offset signal).
    @Test func stateContinuesAcrossEdits() throws {
        let engine = try LiveEngine(document: Self.document(#"{"type": "highpass", "id": "hp", "frequency": 40, "slope": 24}, {"type": "peak", "id": "p", "frequency": 1000, "gain": 3}"#),
                                    sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        let d = Driver(engine, block: 256)
        let x = [Float](repeating: 0.5, count: 48000)  // DC: the high-pass output decays to 0
        _ = d.run(x[0..<40000])
        try engine.apply(.set(address: "p.gain", value: -3))
        let y = d.run(x[40000...])
        #expect(y.map { abs($0) }.max()! < 1e-3, "no restart transient: \(y.map { abs($0) }.max()!)")
    }

    @Test func editsAreValidatedAndRejectedEditsKeepTheGraph() throws {
        let engine = try LiveEngine(document: Self.document(#"{"type": "eq", "id": "eq"}, {"type": "gain", "id": "trim"}"#),
                                    sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2)
        try engine.apply(.set(address: "eq.bands[3].gain", value: 6))
        guard let bands = engine.preset.allNodes[0].kind.settings(as: EQSettings.self)?.bands else { Issue.record("eq"); return }
        #expect(bands.count == 10 && bands[3].gainDB == 6 && bands[3].frequencyHz == 250)
        #expect(throws: ControlError.self) { try engine.apply(.set(address: "eq.bands[3].gain", value: 25)) }
        do { try engine.apply(.set(address: "eq.bands[3].gain", value: 25)) } catch { #expect(error.description.contains("chain[0].bands[3].gain") && error.description.contains("-20…20")) }
        #expect(throws: ControlError.self) { try engine.apply(.set(address: "nope.gain", value: 1)) }
        #expect(throws: ControlError.self) { try engine.apply(.set(address: "trim.colour", value: 1)) }
        guard let kept = engine.preset.allNodes[0].kind.settings(as: EQSettings.self)?.bands else { Issue.record("eq"); return }
        #expect(kept[3].gainDB == 6, "rejected edit leaves the graph as it was")
        try engine.apply(.bypass(node: "eq", on: true))
        #expect(engine.preset.allNodes[0].bypass)
        try engine.apply(.insert(position: 2, node: .object(["type": .string("pan"), "id": .string("pan")])))
        #expect(engine.preset.allNodes.count == 3)
        try engine.apply(.remove(node: "pan"))
        #expect(engine.preset.allNodes.count == 2)
        try engine.setSampleRate(44100)
        #expect(throws: PresetError.self) { try engine.load(document: Self.document(#"{"type": "peak", "frequency": 21700}"#)) }
    }

    /// Plans handed back by the audio thread are freed on the control thread.
    /// Many channels (more than a stereo pair): every output channel is its input, scaled.
    @Test func manyChannels() throws {
        let engine = try LiveEngine(document: Self.document(#"{"type": "gain", "id": "g", "volume": 0.5}"#),
                                    sampleRate: Self.rate, inputChannelCount: 20, outputChannelCount: 20)
        let d = Driver(engine, block: 64)
        for c in 0..<20 { for k in 0..<64 { d.input[c][k] = Float(c + 1) / 40 } }
        d.renderBlock(64)
        for c in 0..<20 { #expect(d.output[c][63] == Float(c + 1) / 80, "channel \(c)") }
    }

    @Test func retiredPlansAreReclaimed() throws {
        let engine = try LiveEngine(document: Self.document(#"{"type": "gain", "id": "g"}"#), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
        let d = Driver(engine, block: 512)
        for k in 0..<50 {
            try engine.apply(.set(address: "g.gain", value: Double(k % 10)))
            _ = d.run(Self.sine(2048)[...])
            engine.performHousekeeping()
        }
        #expect(engine.alivePlanCount <= 2)
    }

    /// Zero allocations and frees on the render path over 10,000 blocks through every node
    /// type with plan swaps: measured by `AllocationCheck` (malloc-interposer) in a process of
    /// its own, because the interposer's counters are process-wide and other suites run here.
    @Test func renderPathDoesNotAllocate() throws {
        let root = ProcessRunner.repoRoot
        let candidates = ["release", "debug"].map { root.appendingPathComponent(".build/\($0)/AllocationCheck").path }
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("AllocationCheck is not built"); return
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        print(text, terminator: "")
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains("(chain): 10000 measured blocks of 256 frames with 100 plan swaps: 0 allocations, 0 frees"), "\(text)")
        #expect(text.contains("(graph): 10000 measured blocks of 256 frames with 100 plan swaps: 0 allocations, 0 frees"), "\(text)")
        #expect(text.contains("(plugins): 10000 measured blocks of 256 frames with 100 plan swaps: 0 allocations, 0 frees"), "\(text)")
    }

    /// File players under three threads at once, as `timbre live` runs them: the audio thread
    /// renders (paced), the prefetch thread fills the rings, and the control thread pauses,
    /// plays, seeks and changes rates, loops, volumes and pans. Run under ThreadSanitizer by
    /// `make tsan` (the ring's release/acquire protocol, the seek cut, the shared player
    /// state); here it checks that every block was rendered and every output sample is finite.
    @Test func playersUnderConcurrentControl() throws {
        let fixture = try PlayerFixture()
        let engine = try LiveEngine(document: PresetDecoder.parse(Data(fixture.preset.utf8)), sampleRate: Self.rate,
                                    inputChannelCount: 1, outputChannelCount: 2, maxBlockFrames: 256, host: fixture.host)
        engine.warmUp()
        let prefetcher = PlayerPrefetcher()
        prefetcher.update(Array(engine.playerStates.values))
        prefetcher.start()
        let interpreter = EveryNodePresets.interpreter(engine)
        let d = Driver(engine, block: 256)
        final class Result: @unchecked Sendable { var nonFinite = 0; var blocks = 0 }
        let result = Result()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            DenormalGuard.enable()
            for _ in 0..<1500 {
                d.renderBlock(256)
                for c in 0..<2 { for k in 0..<256 where !d.output[c][k].isFinite { result.nonFinite += 1 } }
                result.blocks += 1
                usleep(1000)
            }
            done.signal()
        }
        thread.start()
        var commands = 0
        while done.wait(timeout: .now() + .milliseconds(3)) == .timedOut {
            try PlayerFixture.edit(interpreter, step: commands)
            prefetcher.update(Array(engine.playerStates.values))
            engine.performHousekeeping()
            commands += 1
        }
        prefetcher.stop()
        engine.performHousekeeping()
        let underruns = engine.plan.playerStates.map(\.state.underruns).reduce(0, +)
        print("Players under concurrent control: \(result.blocks) blocks, \(commands) commands, \(underruns) underrun frames, \(result.nonFinite) non-finite samples")
        #expect(result.blocks == 1500 && result.nonFinite == 0 && commands > 50)
    }

    /// Render and control on two threads for 20,000 blocks of 64 frames: the control thread
    /// keeps loading presets that are each exactly flat (a boost and its inverse cut at a
    /// frequency that changes every edit, a balance pan at centre), so at every sample of
    /// every block — crossfades included — the output must equal the input within 1e-4. A
    /// torn plan, a half-adopted state or a race in plan retirement would show as a deviation.
    /// Also run under ThreadSanitizer by `make tsan`.
    @Test func concurrentRenderAndEdits() async throws {
        // Every document's EQ has its own id, so no EQ ever continues state designed for other
        // coefficients (the control thread may publish twice before the audio thread adopts,
        // so "consecutive" plans are not the ones it sees; continuing another design's state
        // is a legitimate small transient, not a race) and each EQ fades in from rest, where
        // boost-then-inverse-cut is exactly flat.
        func flat(_ k: Int) -> JSONValue {
            let f = 200 + 97 * (k % 100), g = 3 + k % 9
            let pair = #"{"frequency": \#(f), "gain": \#(g), "q": 1.5}, {"frequency": \#(f), "gain": -\#(g), "q": 1.5}"#
            let bands = k % 2 == 0 ? pair : pair + #", {"frequency": 5000, "gain": 4}, {"frequency": 5000, "gain": -4}"#
            return Self.document(#"{"type": "highpass", "id": "hp", "frequency": 20, "bypass": true}, {"type": "eq", "id": "eq\#(k)", "bands": [\#(bands)]}, {"type": "gain", "id": "g", "gain": 0}, {"type": "pan", "id": "pan", "pan": 0}"#)
        }
        let engine = try LiveEngine(document: flat(0), sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2)
        let d = Driver(engine, block: 64)
        let x = Signals.noise(64 * 20000, amplitude: 0.3, seed: 11)
        final class Result: @unchecked Sendable { var worst: Float = 0; var at = -1 }
        let result = Result()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            DenormalGuard.enable()
            for b in 0..<20000 {
                for c in 0..<2 { for k in 0..<64 { d.input[c][k] = x[b * 64 + k] } }
                d.renderBlock(64)
                for c in 0..<2 {
                    for k in 0..<64 {
                        let e = abs(d.output[c][k] - x[b * 64 + k])
                        if e > result.worst { result.worst = e; result.at = b * 64 + k }
                    }
                }
                usleep(50)  // pace like a host (64 frames are 1.3 ms at 48 kHz) so edits interleave
            }
            done.signal()
        }
        thread.start()
        var edits = 0
        while done.wait(timeout: .now()) == .timedOut {
            try engine.load(document: flat(edits + 1))
            engine.performHousekeeping()
            edits += 1
        }
        engine.performHousekeeping()
        print("Concurrent: \(edits) preset loads during 20,000 blocks; worst deviation from flat \(result.worst) (at frame \(result.at)); \(engine.alivePlanCount) plans alive after collection")
        #expect(engine.blocksRendered == 20000)
        #expect(edits > 10, "edits interleaved with the render")
        #expect(Double(result.worst) <= Tolerance[.concurrentFlat].limit, "output deviates from the input by \(result.worst) at frame \(result.at)")
        #expect(engine.alivePlanCount <= 3)
    }
}
