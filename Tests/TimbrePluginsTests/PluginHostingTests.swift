import Foundation
import Testing
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbrePlugins
import TimbreTestSupport

/// Real plugins from Debian (lv2-examples, x42-plugins, swh-plugins; the Makefile installs
/// them) as nodes, through the real plan and renderer, against what they are set to.
@Suite struct PluginHostingTests {
    static let rate = 48000.0
    static let egAmp = "http://lv2plug.in/plugins/eg-amp"
    static let fil4 = "http://gareus.org/oss/lv2/fil4#stereo"
    static let dpl = "http://gareus.org/oss/lv2/dpl#stereo"

    static func preset(_ nodes: String) throws -> Preset {
        try PresetDecoder.decode(Data(#"{"version": 1, "name": "plugins", "chain": [\#(nodes)]}"#.utf8))
    }

    /// Renders `input` through `preset` with a plugin-loading registry in blocks of `block`.
    static func render(_ preset: Preset, _ input: [[Float]], block: Int = 512) throws -> (output: [[Float]], plan: RenderPlan) {
        try PresetRender.render(preset, input: input, block: block, rate: rate, registry: PluginHost.registry())
    }

    /// Renders `blocks` blocks of 256 frames of a constant 0.5 through `engine` (mono), with
    /// the control thread's housekeeping after each, as a host does; returns the last block.
    static func renderConstant(_ engine: LiveEngine, blocks: Int) -> [Float] {
        let x = [Float](repeating: 0.5, count: 256)
        var y = [Float](repeating: 0, count: 256)
        for _ in 0..<blocks {
            x.withUnsafeBufferPointer { i in y.withUnsafeMutableBufferPointer { o in
                var ins = [i.baseAddress!], outs = [o.baseAddress!]
                engine.renderer.render(input: &ins, output: &outs, frameCount: 256)
            } }
            engine.performHousekeeping()
        }
        return y
    }

    static func rms(_ x: ArraySlice<Float>) -> Double { (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }

    /// eg-amp at −6 dB scales a sine by exactly 10^(−6/20) (the plugin's own dB-to-gain in
    /// float: within 1e-6 relative), sample for sample; mono on stereo runs as two instances.
    @Test func egAmpScalesByItsSetting() throws {
        let x = Signals.sine(9600, hz: 997, amplitude: 0.5, rate: Self.rate)
        let (out, plan) = try Self.render(Self.preset(#"{"type": "plugin", "id": "amp", "uri": "\#(Self.egAmp)", "controls": {"gain": -6}}"#), [x, x])
        let want = pow(10, -6.0 / 20)
        var worst = 0.0
        for c in 0..<2 { for i in 0..<x.count { worst = max(worst, abs(Double(out[c][i]) - Double(x[i]) * want)) } }
        print("eg-amp −6 dB: worst deviation \(worst) (gain \(want))")
        #expect(worst <= 1e-6 * 0.5)
        #expect(plan.pluginStates.first?.state.instanceCount == 2)
        #expect(plan.latencyFrames == 0)
    }

    /// The same through a LADSPA plugin (swh amp_1181, "Amps gain (dB)" as `amps_gain_db`).
    @Test func ladspaAmpScalesByItsSetting() throws {
        let x = Signals.sine(4800, hz: 440, amplitude: 0.5, rate: Self.rate)
        let (out, _) = try Self.render(Self.preset(#"{"type": "plugin", "ladspa": "amp_1181.so:amp", "controls": {"amps_gain_db": -6}}"#), [x])
        let ratio = Self.rms(out[0][...]) / Self.rms(x[...])
        print("swh amp (LADSPA) −6 dB: ratio \(ratio), expected \(pow(10, -6.0 / 20))")
        #expect(abs(ratio - pow(10, -6.0 / 20)) < 1e-5)
    }

    /// x42 fil4 with one bell at 1 kHz, +6 dB, bandwidth 1 octave: measured with sines (after
    /// the plugin's parameter smoothing settles), +6 dB at the centre (within 0.05 dB), flat
    /// two decades away (within 0.15 dB), and between, the level rises towards the centre.
    @Test func fil4ResponseMatchesItsSetting() throws {
        let node = #"{"type": "plugin", "id": "eq", "uri": "\#(Self.fil4)", "controls": {"freq1": 1000, "q1": 1, "gain1": 6}}"#
        var levels: [(Double, Double)] = []
        for hz in [50.0, 250, 500, 1000, 2000, 15000] {
            let x = Signals.sine(48000, hz: hz, amplitude: 0.25, rate: Self.rate)
            let (out, _) = try Self.render(Self.preset(node), [x, x])
            let db = 20 * log10(Self.rms(out[0][24000...]) / Self.rms(x[24000...]))
            levels.append((hz, db))
            #expect(abs(Self.rms(out[1][24000...]) - Self.rms(out[0][24000...])) < 1e-6, "both channels alike")
        }
        print("fil4 bell 1 kHz +6 dB, 1 octave: " + levels.map { String(format: "%.0f Hz %+.3f dB", $0.0, $0.1) }.joined(separator: ", "))
        let at = Dictionary(uniqueKeysWithValues: levels)
        #expect(abs(at[1000]! - 6) < 0.05)
        #expect(abs(at[50]!) < 0.15 && abs(at[15000]!) < 0.15)
        #expect(at[250]! < at[500]! && at[500]! < at[1000]! && at[2000]! < at[1000]!)
    }

    /// Plugins with a latency port (x42 dpl, LV2; swh fast lookahead limiter, LADSPA): the plan
    /// reports their latency, and an offline render is aligned — clicks below the limit come
    /// out at the frames they went in, and the file keeps its length.
    @Test(arguments: [#"{"type": "plugin", "uri": "http://gareus.org/oss/lv2/dpl#stereo"}"#,
                      #"{"type": "plugin", "ladspa": "fast_lookahead_limiter_1913.so:fastLookaheadLimiter"}"#])
    func latencyIsCompensated(node: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-plugin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var x = [Float](repeating: 0, count: 48000)
        x[12345] = 0.1; x[30000] = -0.1
        let writer = try SoundFileWriter(path: dir + "/in.wav", format: .wav, encoding: .float, sampleRate: 48000, channelCount: 2, dither: false)
        try writer.write(PlanarBuffer(channels: [x, x]))
        try writer.commit()
        var request = RenderRequest(inputPath: dir + "/in.wav", outputPath: dir + "/out.wav", preset: try Self.preset(node), encoding: .float)
        request.pluginLoader = PluginHost.loader
        let summary = try OfflineRenderer.render(request)
        let (_, plan) = try Self.render(Self.preset(node), [x, x])
        let reader = try SoundFileReader(path: dir + "/out.wav")
        let out = try reader.readAll()
        let n = out[0].count
        let loud = out[0].indices.filter { abs(out[0][$0]) > 0.01 }
        print("latency \(plan.latencyFrames) frames (\(node.contains("dpl") ? "x42 dpl" : "swh limiter")): output clicks at \(loud), length \(n)")
        #expect(plan.latencyFrames > 0, "the plugin reports a latency")
        #expect(summary.frames == 48000 && n == 48000)
        #expect(loud == [12345, 30000], "aligned with the input")
        #expect(abs(out[0][12345] - 0.1) < 1e-3 && abs(out[0][30000] + 0.1) < 1e-3)
    }

    /// An LV2 preset with state beyond port values, loaded through the worker: x42 zeroconvolv
    /// (required features: options, bufsz:boundedBlockLength, urid:map, worker:schedule) with
    /// its "No-OP Mono" preset restores an impulse-response file (state:mapPath), which the
    /// plugin reads on the worker thread; the host waits for the worker before the stream, so
    /// the convolver passes clicks unchanged from the first one, its 64-frame latency reported
    /// only once the IR is loaded and compensated.
    @Test func presetStateThroughTheWorker() throws {
        var x = [Float](repeating: 0, count: 24000)
        x[100] = 0.25; x[12345] = -0.125
        let node = #"{"type": "plugin", "uri": "http://gareus.org/oss/lv2/zeroconvolv#Mono", "preset": "No-OP Mono"}"#
        let (out, plan) = try Self.render(Self.preset(node), [x, x])
        // The plan alone does not take latency out (the renderer and JACK do): compare shifted.
        let lag = plan.latencyFrames
        var worst: Float = 0
        for c in 0..<2 { for i in 0..<(x.count - lag) { worst = max(worst, abs(out[c][i + lag] - x[i])) } }
        print("zeroconvolv No-OP preset: latency \(plan.latencyFrames) frames, worst difference from the input \(worst)")
        #expect(plan.latencyFrames == 64)
        #expect(worst < 1e-6, "the convolver's unit impulse passes the clicks unchanged")
        #expect(abs(out[0][100 + lag] - 0.25) < 1e-6, "ready from the first click")
    }

    /// Parallel paths: a graph with a dry channel and one through x42 dpl (64 frames of
    /// latency) mixed at half volume each: the dry path is delayed to meet the limited one, so
    /// a click comes out once, whole (not twice, 64 frames apart), 64 frames late in the plan.
    @Test func latencyCompensatedOnParallelPaths() throws {
        let json = #"{"version": 1, "name": "parallel", "graph": {"channels": [{"id": "dry", "input": [0, 0], "volume": 0.5}, {"id": "lim", "input": [0, 0], "volume": 0.5, "chain": [{"type": "plugin", "uri": "\#(Self.dpl)"}]}], "master": {}}}"#
        var x = [Float](repeating: 0, count: 4800)
        x[1000] = 0.2
        let (out, plan) = try Self.render(PresetDecoder.decode(Data(json.utf8)), [x])
        let loud = out[0].indices.filter { abs(out[0][$0]) > 1e-4 }
        print("parallel paths, dpl on one: plan latency \(plan.latencyFrames), output at \(loud) = \(loud.map { out[0][$0] })")
        #expect(plan.latencyFrames == 64)
        #expect(loud == [1064] && abs(out[0][1064] - 0.2) < 1e-4 && abs(out[1][1064] - 0.2) < 1e-4)
    }

    /// A plan swap that keeps the node keeps the instance (same state object, its internal
    /// state going on), and the new control value takes effect; the output follows eg-amp's
    /// new gain (after its own parameter smoothing, if any) — here from −6 to −12 dB.
    @Test func planSwapKeepsTheInstance() throws {
        let doc = { (gain: Int) in try PresetDecoder.parse(Data(#"{"version": 1, "name": "p", "chain": [{"type": "plugin", "id": "amp", "uri": "\#(Self.egAmp)", "controls": {"gain": \#(gain)}}]}"#.utf8)) }
        let engine = try LiveEngine(document: doc(-6), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1, maxBlockFrames: 256,
                                    host: HostServices(plugins: PluginHost.loader))
        let before = try #require(engine.pluginStates["amp"])
        _ = Self.renderConstant(engine, blocks: 1)
        try engine.load(document: doc(-12))
        let y = Self.renderConstant(engine, blocks: 40)
        #expect(engine.pluginStates["amp"] === before, "the same instance continues")
        #expect(abs(Double(y[255]) - 0.5 * pow(10, -12.0 / 20)) < 1e-5, "\(y[255])")
        #expect(before.statistics.blocks >= 40)
    }

    /// Live control as `timbre live` does it: `set amp.gain -12` goes through the interpreter
    /// and the document editor to the plugin's `controls.gain`, a value out of the plugin's
    /// range is refused with its range, and `status` reports the plugin's run time.
    @Test func liveSetAndStatus() throws {
        let engine = try LiveEngine(document: PresetDecoder.parse(Data(#"{"version": 1, "name": "p", "chain": [{"type": "plugin", "id": "amp", "uri": "\#(Self.egAmp)"}]}"#.utf8)),
                                    sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1, maxBlockFrames: 256, host: HostServices(plugins: PluginHost.loader))
        let interpreter = EveryNodePresets.interpreter(engine)
        _ = try interpreter.perform(.set(address: "amp.gain", value: -12))
        #expect(engine.document.value(at: JSONValue.parsePath("chain[0].controls.gain")![...]) == .number(-12))
        let y = Self.renderConstant(engine, blocks: 40)
        #expect(abs(Double(y[255]) - 0.5 * pow(10, -12.0 / 20)) < 1e-5)
        do {
            _ = try interpreter.perform(.set(address: "amp.gain", value: 40))
            Issue.record("40 dB accepted")
        } catch { #expect("\(error)".contains("allowed -90…24"), "\(error)") }
        let status = interpreter.status()
        guard case .object(let fields) = status, case .object(let plugins)? = fields["plugins"], case .object(let amp)? = plugins["amp"],
              case .number(let blocks)? = amp["blocks"], case .number(let mean)? = amp["runMeanMicroseconds"] else {
            Issue.record("no plugin status: \(status.jsonText)"); return
        }
        print("status plugins: \(JSONValue.object(plugins).jsonText)")
        #expect(blocks >= 40 && mean >= 0)
    }

    /// A stereo plugin on one channel, a plugin without audio, an unknown URI, a wrong symbol,
    /// a value out of range: preset errors naming the node's path, the plugin and what is allowed.
    @Test func clearErrors() throws {
        func error(_ node: String, channels: Int = 1) -> String {
            do { _ = try Self.render(Self.preset(node), [[Float]](repeating: [0, 0], count: channels)); return "no error" }
            catch { return "\(error)" }
        }
        let stereoOnMono = error(#"{"type": "plugin", "uri": "\#(Self.fil4)"}"#)
        #expect(stereoOnMono.contains("chain[0]") && stereoOnMono.contains("2 audio inputs") && stereoOnMono.contains("1 channel"), "\(stereoOnMono)")
        let missing = error(#"{"type": "plugin", "uri": "http://example.org/not-installed"}"#)
        #expect(missing.contains("chain[0].uri") && missing.contains("not-installed"), "\(missing)")
        let symbol = error(#"{"type": "plugin", "uri": "\#(Self.egAmp)", "controls": {"volume": 1}}"#)
        #expect(symbol.contains("chain[0].controls.volume") && symbol.contains("its controls: gain"), "\(symbol)")
        let range = error(#"{"type": "plugin", "uri": "\#(Self.egAmp)", "controls": {"gain": 30}}"#)
        #expect(range.contains("allowed -90…24"), "\(range)")
        // eg-sampler requires state:loadDefaultState, which Timbre does not provide.
        let feature = error(#"{"type": "plugin", "uri": "http://lv2plug.in/plugins/eg-sampler"}"#)
        #expect(feature.contains("state#loadDefaultState") && feature.contains("does not provide"), "\(feature)")
        let noAudio = error(#"{"type": "plugin", "uri": "http://lv2plug.in/plugins/eg-fifths"}"#)
        #expect(noAudio.contains("0 audio inputs"), "\(noAudio)")
        let noHost = (try? RenderPlan(preset: Self.preset(#"{"type": "plugin", "uri": "\#(Self.egAmp)"}"#),
                                      format: RenderFormat(sampleRate: Self.rate, inputChannelCount: 1, maxBlockFrames: 64))) == nil
        #expect(noHost, "a plan without a plugin loader refuses plugin nodes")
    }

    /// As a user meets them: `timbre render` with a missing plugin or a wrong control symbol
    /// exits 1 with the file, JSON path and reason on stderr, and writes no output file.
    @Test func cliPresetErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-plugin-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let input = dir + "/in.wav"
        let writer = try SoundFileWriter(path: input, format: .wav, encoding: .pcm16, sampleRate: 48000, channelCount: 1, dither: false)
        var x = Signals.sine(4800, hz: 440, amplitude: 0.5, rate: Self.rate)
        try writer.write(PlanarBuffer(channels: [x]))
        try writer.commit()
        for (node, wanted) in [(#"{"type": "plugin", "uri": "http://example.org/missing"}"#, "chain[0].uri: no LV2 plugin \"http://example.org/missing\" is installed"),
                               (#"{"type": "plugin", "uri": "\#(Self.egAmp)", "controls": {"gian": -3}}"#, "chain[0].controls.gian: Simple Amplifier (http://lv2plug.in/plugins/eg-amp) has no control port \"gian\" (its controls: gain)")] {
            let preset = dir + "/p.json"
            try Data(#"{"version": 1, "name": "p", "chain": [\#(node)]}"#.utf8).write(to: URL(fileURLWithPath: preset))
            let r = try ProcessRunner.run(ProcessRunner.timbreBinary, ["render", input, "-o", dir + "/out.wav", "--preset", preset])
            #expect(r.status == 1, "exit \(r.status): \(r.stderr)")
            #expect(r.stderr.contains("p.json: " + wanted), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
        }
    }

    /// `timbre plugins` as a user runs it: the list (filtered), `info` with ports, ranges,
    /// latency port, features and presets, `--json` parseable, an unknown id exits 1.
    @Test func pluginsCommand() throws {
        let list = try ProcessRunner.run(ProcessRunner.timbreBinary, ["plugins", "amp"])
        #expect(list.status == 0 && list.stdout.contains("http://lv2plug.in/plugins/eg-amp  Simple Amplifier  audio 1→1, 1 controls"), "\(list.stdout)")
        #expect(list.stdout.contains("ladspa amp_1181.so:amp"), "\(list.stdout)")
        let info = try ProcessRunner.run(ProcessRunner.timbreBinary, ["plugins", "info", Self.dpl])
        #expect(info.status == 0 && info.stdout.contains("latency:   reported on port latency")
                && info.stdout.contains("urid#map (provided)") && info.stdout.contains("threshold \"Threshold\"  -10…0, default -1"), "\(info.stdout)")
        let presets = try ProcessRunner.run(ProcessRunner.timbreBinary, ["plugins", "info", "http://gareus.org/oss/lv2/zeroconvolv#Mono"])
        #expect(presets.stdout.contains("No-OP Mono"), "\(presets.stdout)")
        let json = try ProcessRunner.run(ProcessRunner.timbreBinary, ["plugins", "info", "--json", Self.egAmp])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let ports = object?["ports"] as? [[String: Any]]
        #expect(object?["id"] as? String == Self.egAmp && ports?.first?["symbol"] as? String == "gain" && ports?.first?["minimum"] as? Double == -90)
        let missing = try ProcessRunner.run(ProcessRunner.timbreBinary, ["plugins", "info", "http://example.org/none"])
        #expect(missing.status == 1 && missing.stderr.contains("no plugin \"http://example.org/none\" is installed"), "\(missing.stderr)")
    }

    /// A preset without the plugin node retires it: once the plans holding it are collected,
    /// the registry forgets it (the instances are deactivated and freed then, on this thread).
    @Test func removedNodeIsFreedAfterRetirement() throws {
        let with = try PresetDecoder.parse(Data(#"{"version": 1, "name": "p", "chain": [{"type": "plugin", "id": "amp", "uri": "\#(Self.egAmp)"}]}"#.utf8))
        let without = try PresetDecoder.parse(Data(#"{"version": 1, "name": "p", "chain": [{"type": "gain", "id": "g", "gain": -1}]}"#.utf8))
        let engine = try LiveEngine(document: with, sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1, maxBlockFrames: 256,
                                    host: HostServices(plugins: PluginHost.loader))
        weak var state = engine.pluginStates["amp"]
        #expect(state != nil)
        try engine.load(document: without)
        _ = Self.renderConstant(engine, blocks: 40)
        #expect(engine.pluginStates["amp"] == nil)
        #expect(state == nil, "the plugin state (and its instances) freed")
    }

    /// Discovery: LV2 through lilv and LADSPA through LADSPA_PATH, with ports, ranges, latency
    /// ports and features; fil4 requires urid:map, which Timbre provides.
    @Test func discovery() throws {
        let all = PluginHost.installedPlugins()
        #expect(all.contains { $0.id == Self.egAmp } && all.contains { $0.id == "amp_1181.so:amp" })
        let amp = try #require(PluginHost.describe(Self.egAmp))
        #expect(amp.controlInputs.map(\.symbol) == ["gain"] && amp.controlInputs[0].minimum == -90 && amp.controlInputs[0].maximum == 24)
        let fil4 = try #require(PluginHost.describe(Self.fil4))
        #expect(fil4.requiredFeatures.contains("http://lv2plug.in/ns/ext/urid#map") && fil4.missingFeatures.isEmpty && fil4.isSupported)
        #expect(PluginHost.describe(Self.dpl)?.latencyPort?.symbol == "latency")
        #expect(PluginHost.describe("fast_lookahead_limiter_1913.so:fastLookaheadLimiter")?.latencyPort != nil)
    }
}
