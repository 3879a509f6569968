import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// `set` of a filter's or EQ band's frequency, gain or Q moves the sections inside the running
/// cascade (``CoefficientMotion``): no plan compiled, no crossfade; structural edits still swap
/// plans; once settled the live output equals the offline render of the final document.
@Suite(.serialized) struct ParameterMotionTests {
    static let rate = 48000.0
    typealias Driver = LiveEngineTests.Driver

    static func engine(_ chain: String) throws -> LiveEngine {
        try LiveEngine(document: LiveEngineTests.document(chain), sampleRate: rate, inputChannelCount: 1, outputChannelCount: 1)
    }

    /// The edit path the interpreter's editor and the engine take for a command.
    static func path(_ engine: LiveEngine, _ command: ControlCommand) throws -> LiveEditPath {
        let editor = PresetDocumentEditor(document: engine.document, preset: engine.preset)
        let edited: JSONValue
        switch command {
        case .set(let a, let v): edited = try editor.setting(a, to: v)
        case .setValue(let a, let v): edited = try editor.setting(a, toValue: v)
        case .bypass(let n, let on): edited = try editor.bypassing(n, on)
        default: fatalError()
        }
        return try engine.apply(document: edited)
    }

    @Test func continuousParametersMoveInPlaceAndStructureSwapsPlans() throws {
        let engine = try Self.engine(#"{"type": "eq", "id": "eq", "bands": [{"frequency": 200}, {"frequency": 2000, "gain": 3}]}, {"type": "highpass", "id": "hp", "frequency": 40, "slope": 24}, {"type": "gain", "id": "trim"}, {"type": "compressor", "id": "c"}, {"type": "pan", "id": "p"}, {"type": "limiter", "id": "lim"}, {"type": "gate", "id": "g"}"#)
        let d = Driver(engine, block: 256)
        _ = d.run(LiveEngineTests.sine(4800)[...])
        let plan = engine.plan
        for command: ControlCommand in [.set(address: "eq.bands[0].gain", value: 6), .set(address: "eq.bands[1].frequency", value: 5000),
                                        .set(address: "eq.bands[1].q", value: 3), .set(address: "hp.frequency", value: 80),
                                        .set(address: "eq.bands[0].gain", value: 0), .set(address: "trim.gain", value: -6),
                                        .set(address: "p.pan", value: -0.5), .set(address: "c.threshold", value: -30), .set(address: "c.makeup", value: 3),
                                        .set(address: "lim.ceiling", value: -6), .set(address: "lim.release", value: 40),
                                        .set(address: "g.threshold", value: -40), .set(address: "g.hold", value: 20), .set(address: "g.ratio", value: 4)] {
            let before = engine.plan.motions.mapValues(\.sections)
            #expect(try Self.path(engine, command) == .inKernel(nodes: 1), "\(command): motions \(before)")
            _ = d.run(LiveEngineTests.sine(480)[...])
        }
        #expect(engine.plan === plan, "no plan was compiled")
        for command: ControlCommand in [.setValue(address: "eq.bands[0].shape", value: .string("lowshelf")), .set(address: "hp.slope", value: 48),
                                        .set(address: "c.lookahead", value: 5), .set(address: "lim.lookahead", value: 5),
                                        .bypass(node: "hp", on: true)] {
            #expect(try Self.path(engine, command) == .planSwap, "\(command)")
        }
        #expect(engine.plan !== plan)
    }

    /// Edits in kernel (filters, EQ, gain, compressor, limiter, expander) during a sine, then
    /// 0.5 s to settle: the last 0.25 s equal the offline
    /// render of the final document over the same input within 1e-6 (the filters' histories
    /// differ only in the decayed transient), at every block size tried.
    @Test(arguments: [1, 64, 1000])
    func settledLiveEqualsOfflineOfTheFinalDocument(block: Int) throws {
        let chain = #"{"type": "eq", "id": "eq", "bands": [{"frequency": 300, "gain": -4}, {"frequency": 3000, "gain": 5, "q": 2}]}, {"type": "lowpass", "id": "lp", "frequency": 12000}, {"type": "gain", "id": "trim"}, {"type": "compressor", "id": "comp", "threshold": -20, "ratio": 3, "attack": 2, "release": 40}, {"type": "limiter", "id": "lim", "ceiling": -3}, {"type": "expander", "id": "gate", "threshold": -30}"#
        let engine = try Self.engine(chain)
        let input = Signals.sine(72_000, hz: 440, amplitude: 0.3, rate: Self.rate).enumerated().map { $1 + 0.2 * Float(sin(Double($0) * 0.37)) }
        let d = Driver(engine, block: block)
        var live = d.run(input[0..<12_000])
        let commands: [ControlCommand] = [.set(address: "eq.bands[1].frequency", value: 700), .set(address: "eq.bands[0].gain", value: 9),
                                          .set(address: "lp.frequency", value: 5000), .set(address: "eq.bands[1].q", value: 0.5), .set(address: "trim.gain", value: -3),
                                          .set(address: "comp.threshold", value: -14), .set(address: "comp.ratio", value: 6), .set(address: "comp.release", value: 80),
                                          .set(address: "lim.ceiling", value: -9), .set(address: "lim.release", value: 30),
                                          .set(address: "gate.threshold", value: -12), .set(address: "gate.ratio", value: 3), .set(address: "gate.release", value: 50)]
        for (k, command) in commands.enumerated() {
            #expect(try Self.path(engine, command) == .inKernel(nodes: 1))
            live += d.run(input[(12_000 + k * 600)..<(12_600 + k * 600)])
        }
        live += d.run(input[(12_000 + commands.count * 600)...])
        let offline = try PresetRender.render(PresetDecoder.decode(engine.document), input: [input], block: 512, rate: Self.rate).output[0]
        let tail = 60_000..<72_000
        let worst = tail.map { abs(live[$0] - offline[$0]) }.max() ?? 1
        print("settled live vs offline of the final document (block \(block)): worst difference \(worst) over the last 0.25 s")
        #expect(worst < 1e-6)
    }

    /// Every effect node, edited in its kernel during a signal: once the ramps have settled, the
    /// live output equals the offline render of the final document (the edits chosen so the
    /// kernel's memory does not depend on the path: mix, depth, drive, bits, a cutoff whose
    /// filter forgets in milliseconds). `stereo` needs a stereo chain: `StereoNodeTests`.
    @Test(arguments: [
        (#"{"type": "delay", "id": "e", "time": 30}"#, ["e.mix": 80.0]),
        (#"{"type": "reverb", "id": "e", "decay": 0.4}"#, ["e.mix": 60, "e.early": -20, "e.width": 50]),
        (#"{"type": "chorus", "id": "e"}"#, ["e.mix": 80, "e.depth": 5]),
        (#"{"type": "flanger", "id": "e"}"#, ["e.mix": 30]),
        (#"{"type": "phaser", "id": "e"}"#, ["e.mix": 80]),
        (#"{"type": "tremolo", "id": "e"}"#, ["e.depth": 90]),
        (#"{"type": "ringmod", "id": "e"}"#, ["e.mix": 40]),
        (#"{"type": "distortion", "id": "e"}"#, ["e.drive": 18, "e.mix": 70]),
        (#"{"type": "bitcrush", "id": "e"}"#, ["e.bits": 6, "e.mix": 50]),
        (#"{"type": "ladder", "id": "e"}"#, ["e.cutoff": 3000, "e.resonance": 0.6]),
    ])
    func effectsSettleToTheOfflineRender(node: String, edits: [String: Double]) throws {
        let engine = try Self.engine(node)
        let input = Signals.sine(72_000, hz: 440, amplitude: 0.3, rate: Self.rate).enumerated().map { $1 + 0.2 * Float(sin(Double($0) * 0.37)) }
        let d = Driver(engine, block: 256)
        var live = d.run(input[0..<12_000])
        for (k, (address, value)) in edits.sorted(by: { $0.key < $1.key }).enumerated() {
            #expect(try Self.path(engine, .set(address: address, value: value)) == .inKernel(nodes: 1), "\(address)")
            live += d.run(input[(12_000 + k * 600)..<(12_600 + k * 600)])
        }
        live += d.run(input[(12_000 + edits.count * 600)...])
        let offline = try PresetRender.render(PresetDecoder.decode(engine.document), input: [input], block: 512, rate: Self.rate).output[0]
        let worst = (60_000..<72_000).map { abs(live[$0] - offline[$0]) }.max() ?? 1
        #expect(worst < 1e-6, "\(node): worst difference \(worst) over the last 0.25 s")
    }

    /// A bell (+12 dB, Q 2) sweeping 20 Hz → 20 kHz in one second over a 1 kHz sine at −6 dBFS,
    /// 50 edits (one every 20 ms, as a MIDI knob sends them), in 256-frame blocks: the largest
    /// sample-to-sample step, in kernel and by plan swaps, beside the largest step of the sine
    /// at the bell's full boost (what a click would exceed). In kernel it stays within it.
    @Test func sweepStepsInKernelAndByPlanSwaps() throws {
        let input = Signals.sine(60_000, hz: 1000, amplitude: 0.5, rate: Self.rate)
        func sweep(inKernel: Bool) throws -> (step: Float, micros: Double) {
            DesignCache.shared.removeAll()  // each sweep designs its frequencies afresh
            let engine = try Self.engine(#"{"type": "peak", "id": "bell", "frequency": 20, "gain": 12, "q": 2}"#)
            let d = Driver(engine, block: 256)
            var out = d.run(input[0..<4800])
            var spent = 0.0
            for k in 1...50 {
                let f = 20 * pow(1000, Double(k) / 50)
                let editor = PresetDocumentEditor(document: engine.document, preset: engine.preset)
                let t0 = DispatchTime.now().uptimeNanoseconds
                let edited = try editor.setting("bell.frequency", to: f)
                if inKernel { #expect(try engine.apply(document: edited) == .inKernel(nodes: 1)) } else { try engine.load(document: edited) }
                spent += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000
                engine.performHousekeeping()
                out += d.run(input[(4800 + (k - 1) * 960)..<(4800 + k * 960)])
            }
            out += d.run(input[52_800...])
            return (LiveEngineTests.maxStep(out[4800...]), spent / 50)
        }
        let kernel = try sweep(inKernel: true), swaps = try sweep(inKernel: false)
        let boosted = Float(0.5 * 2 * sin(Double.pi * 1000 / Self.rate)) * 4  // +12 dB
        print(String(format: "bell sweep 20 Hz → 20 kHz in 1 s (50 edits): largest step %.5f in kernel, %.5f by plan swaps; the sine's own at +12 dB %.5f; control thread %.0f µs per edit in kernel, %.0f µs by plan swap",
                     kernel.step, swaps.step, boosted, kernel.micros, swaps.micros))
        #expect(kernel.step <= boosted * 1.05)
    }

    /// A graph's volumes, pans, mutes and solos move in place too; settled, the output equals
    /// the offline render of the final document bit for bit.
    @Test func graphValuesMoveInPlaceAndSettleToOffline() throws {
        let doc = try PresetDecoder.parse(Data(#"""
            {"version": 1, "name": "g", "graph": {
              "channels": [{"id": "voice", "input": [0], "chain": [{"type": "peak", "id": "pk", "frequency": 1500, "gain": 3}], "pan": -0.3, "group": "bus"},
                           {"id": "other", "input": [0], "volume": 0.5, "pan": 0.4}],
              "groups": [{"id": "bus", "volume": 0.8}],
              "master": {"chain": [], "volume": 0.9}}}
            """#.utf8))
        let engine = try LiveEngine(document: doc, sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 2)
        let input = Signals.sine(60_000, hz: 300, amplitude: 0.4, rate: Self.rate).enumerated().map { $1 + 0.1 * Float(sin(Double($0) * 0.21)) }
        let d = Driver(engine, block: 128)
        var left = d.run(input[0..<9_600]), right: [Float] = []
        let plan = engine.plan
        let commands: [ControlCommand] = [.set(address: "voice.volume", value: 0.6), .set(address: "other.pan", value: -0.7), .set(address: "bus.volume", value: 0.5),
                                          .set(address: "other.mute", value: 1), .set(address: "voice.solo", value: 1), .set(address: "master.volume", value: 0.7),
                                          .set(address: "pk.gain", value: -2)]
        for command in commands {
            #expect(try Self.path(engine, command) != .planSwap, "\(command)")
            left += d.run(input[left.count..<(left.count + 480)])
        }
        #expect(engine.plan === plan, "no plan was compiled")
        // Both channels of the rest, to compare the stereo output.
        let rest = input[left.count...]
        let before = left.count
        var l: [Float] = [], r: [Float] = []
        var i = rest.startIndex
        while i < rest.endIndex {
            let n = min(128, rest.endIndex - i)
            l += d.run(rest[i..<(i + n)], channel: 0)
            r += UnsafeBufferPointer(start: d.output[1], count: n)
            i += n
        }
        right = r
        let offline = try PresetRender.render(PresetDecoder.decode(engine.document), input: [input], block: 512, rate: Self.rate).output
        let tail = (48_000 - before)..<(60_000 - before)
        let worst = tail.map { max(abs(l[$0] - offline[0][before + $0]), abs(right[$0] - offline[1][before + $0])) }.max() ?? 1
        print("graph values moved in place, settled vs offline: worst difference \(worst)")
        #expect(worst == 0)
    }
}
