import Foundation
import Testing
import TimbreEngine
import TimbreDSP
import TimbreJack
import TimbreControl
import TimbreFile
import TimbrePlugins
import CJack
import TimbreTestSupport

/// `timbre live` under a real JACK server (jackd, dummy backend, no real-time scheduling),
/// driven by test clients that play into it and record from it. Serialized: one server at a time.
@Suite(.serialized) struct LiveJackTests {
    static let rate = 48000.0
    static let presetJSON = #"""
    {"version": 1, "name": "jack test", "chain": [
      {"type": "highpass", "id": "hp", "frequency": 60, "slope": 24},
      {"type": "eq", "id": "eq", "bands": [{"frequency": 300, "gain": -3}, {"frequency": 3000, "gain": 4, "q": 1.5}, {"frequency": 10000, "gain": 2, "shape": "highshelf"}]},
      {"type": "gain", "id": "trim", "gain": -2},
      {"type": "pan", "id": "pan", "pan": 0.25}
    ]}
    """#

    static func writePreset(_ json: String = presetJSON) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-jack-\(UUID().uuidString).json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        return path
    }

    /// Noise whose known non-zero first sample (0.25) marks the start in a recording.
    static func noise(_ n: Int, seed: UInt64) -> [Float] {
        var x = Signals.noise(n, amplitude: 0.3, seed: seed)
        if n > 0 { x[0] = 0.25 }
        return x
    }

    /// `json` rendered offline over `input`; `directory`: where the files its nodes name are.
    static func offline(_ json: String, _ input: [[Float]], directory: String? = nil) throws -> [[Float]] {
        let registry = directory.map { NodeStateRegistry(services: .files(in: $0, plugins: PluginHost.loader)) } ?? PluginHost.registry()
        return try PresetRender.render(PresetDecoder.decode(Data(json.utf8)), input: input, block: 4096, rate: rate, registry: registry).output
    }

    /// What `play` recorded, and the server's frame times of the first frames the player played
    /// and the recorder took.
    struct Recording {
        let channels: [[Float]]
        let playerStart: Int?
        let recorderStart: Int?
    }

    /// Plays `signal` through `live` (ports in_k/out_k) and records the result.
    static func playThrough(_ live: LiveProcess, name: String, signal: [[Float]], extra: Int = 48000,
                            during: ((TapClient) -> Void)? = nil) throws -> [[Float]] {
        try play(live, name: name, signal: signal, extra: extra, during: during).channels
    }

    static func play(_ live: LiveProcess, name: String, signal: [[Float]], extra: Int = 48000, outputs: Int = 2,
                     during: ((TapClient) -> Void)? = nil) throws -> Recording {
        let n = signal[0].count
        let recorder = try TapClient(name: "rec", channels: outputs, player: false, length: n + extra)
        let player = try TapClient(name: "play", channels: signal.count, player: true, signal: signal, length: n)
        for k in 0..<signal.count { try player.jack.connect(player.portNames[k], "\(name):in_\(k + 1)") }
        for k in 0..<outputs { try recorder.jack.connect("\(name):out_\(k + 1)", recorder.portNames[k]) }
        recorder.start()
        // The recorder is running once it has passed a period; then start playing.
        #expect(ProcessRunner.wait(timeout: 10) { recorder.position > 0 }, "recorder runs")
        player.start()
        during?(player)
        #expect(player.waitUntilDone(timeout: Double(n) / rate + 20))
        #expect(recorder.waitUntilDone(timeout: Double(extra) / rate + 20))
        let out = Recording(channels: (0..<outputs).map { recorder.channel($0) }, playerStart: player.startFrameTime, recorderStart: recorder.startFrameTime)
        player.close(); recorder.close()
        return out
    }

    /// Counts the 100 ms windows of `expected` found bit for bit in `recorded`, each near where
    /// the previous one was, so a period JACK dropped or repeated for a test client while it
    /// reconfigured would show as one missing window rather than as a shifted tail.
    static func matchedWindows(_ recorded: [[Float]], _ expected: [[Float]]) -> (matched: Int, windows: Int) {
        let window = 4800, n = expected[0].count
        var offset = recorded[0].firstIndex { $0 != 0 } ?? 0
        var matched = 0, windows = 0
        for start in stride(from: 0, to: n - window + 1, by: window) {
            windows += 1
            let want = expected[0][start..<(start + window)], want1 = expected[1][start..<(start + window)]
            for d in [0] + (1...8192).flatMap({ [$0, -$0] }) {
                let at = start + offset + d
                if at < 0 || at + window > recorded[0].count { continue }
                if recorded[0][at] == want.first, recorded[0][at..<(at + window)].elementsEqual(want),
                   recorded[1][at..<(at + window)].elementsEqual(want1) {
                    matched += 1; offset += d; break
                }
            }
        }
        return (matched, windows)
    }

    /// After fuzzing: whatever edits were accepted, the host renders exactly the offline plan of
    /// the document it ended with (`document`: from its `status`). Waits 300 ms first, so ramps
    /// (25 ms), crossfades (15 ms) and fade-ins (30 ms) are over; plays 1 s of noise through it.
    static func expectRendersItsDocument(_ live: LiveProcess, _ document: Any?, after what: String) throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: try #require(document)), as: UTF8.self)
        usleep(300_000)
        let signal = [noise(48000, seed: 8), noise(48000, seed: 9)]
        let got = try #require(align(try playThrough(live, name: "tl", signal: signal), count: 48000), "nothing recorded")
        let worst = worstDifference(got, Array(try offline(json, signal).prefix(2)))
        print("after \(what): live vs offline render of the resulting document: worst difference \(worst)")
        #expect(Double(worst) <= Tolerance[.liveVsOffline].limit)
    }

    /// Aligns `recorded` on its first non-zero sample (silence renders to exact zeros).
    static func align(_ recorded: [[Float]], count: Int) -> [[Float]]? {
        guard let start = recorded[0].firstIndex(where: { $0 != 0 }), start + count <= recorded[0].count else { return nil }
        return recorded.map { Array($0[start..<(start + count)]) }
    }

    /// The largest |difference| between two recordings of the same length and channel count.
    static func worstDifference(_ a: [[Float]], _ b: [[Float]]) -> Float {
        var worst: Float = 0
        for c in a.indices { for i in a[c].indices { worst = max(worst, abs(a[c][i] - b[c][i])) } }
        return worst
    }

    /// Signal through: the live output equals the offline render sample for sample.
    @Test func liveEqualsOffline() throws {
        let server = try JackServer()
        defer { server.stop() }
        let preset = Self.writePreset()
        let live = try LiveProcess(["--preset", preset, "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let signal = [Self.noise(96000, seed: 1), Self.noise(96000, seed: 2)]
        let recorded = try Self.playThrough(live, name: "tl", signal: signal)
        let expected = try Self.offline(Self.presetJSON, signal)
        guard let got = Self.align(recorded, count: 96000) else { Issue.record("nothing recorded"); return }
        let worst = Self.worstDifference(got, expected)
        print("JACK live vs offline: worst difference \(worst) over 2 × 96000 samples")
        #expect(worst == 0, "live and offline differ by up to \(worst)")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Convolution live: a REW-text `fir` and a true-stereo `convolver` (a 2 s response at
    /// 44.1 kHz, resampled; predelay, mix, width) under jackd equal the offline render sample
    /// for sample. The FFT levels work on a grid of absolute stream positions; the live stream
    /// runs through cycles of silence before the signal arrives, and the grid would fall
    /// elsewhere on it (−135 dB apart, found by this test) but for the convolver holding its
    /// position while its whole state is silent: the first sound starts the grid at 0, live and
    /// offline alike. Live, the large levels run on worker threads (none late, from `status`);
    /// offline on the calling thread: the same bits.
    @Test func convolutionLiveEqualsOffline() throws {
        let server = try JackServer()
        defer { server.stop() }
        let fixture = try ResponseFileFixture(seconds: 2)
        let preset = fixture.directory + "/responses.json"
        _ = FileManager.default.createFile(atPath: preset, contents: Data(fixture.preset.utf8))
        let live = try LiveProcess(["--preset", preset, "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let signal = [Self.noise(96000, seed: 3), Self.noise(96000, seed: 4)]
        let recorded = try Self.playThrough(live, name: "tl", signal: signal)
        let expected = try Self.offline(fixture.preset, signal, directory: fixture.directory)
        guard let got = Self.align(recorded, count: 96000) else { Issue.record("nothing recorded"); return }
        let worst = Self.worstDifference(got, expected), peak = expected.flatMap { $0 }.map(abs).max() ?? 1
        let db = 20 * log10(max(Double(worst), 1e-30) / Double(peak))
        // The convolver's levels of 2,048 taps and more ran on its worker, none late.
        let convolution = try live.status()["convolution"] as? [String: Any]
        let runs = convolution?["workerRuns"] as? Int ?? 0, late = convolution?["late"] as? Int ?? -1
        print("JACK live vs offline, fir from REW text + true-stereo convolver: worst difference \(worst)" + (worst == 0 ? " (bit-identical)" : String(format: " (%.1f dB of the peak)", db)) + " over 2 × 96000 samples; \(runs) worker runs, \(late) late")
        #expect(worst == 0, "live and offline differ by up to \(worst) (\(db) dB)")
        #expect(runs > 0 && late == 0, "convolution status: \(String(describing: convolution))")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Dynamics live: the shipped podcast-voice chain (high-pass, EQ, de-esser, RMS compressor,
    /// true-peak limiter) under jackd equals the offline render sample for sample, its 143
    /// frames of latency included (both aligned on their first non-zero sample); `set` on the
    /// compressor's threshold is applied and `meters` carries each node's gain reduction.
    @Test func dynamicsLiveEqualOffline() throws {
        let server = try JackServer()
        defer { server.stop() }
        let live = try LiveProcess(["--preset", "podcast-voice", "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let signal = [Self.noise(96000, seed: 11), Self.noise(96000, seed: 12)].map { $0.map { $0 * 3.5 } }  // peaks near 0 dBFS: the limiter works
        let recorded = try Self.playThrough(live, name: "tl", signal: signal)
        let json = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("Presets/podcast-voice.json"), encoding: .utf8)
        let expected = try Self.offline(json, signal)
        guard let got = Self.align(recorded, count: 90000), let want = Self.align(expected, count: 90000) else { Issue.record("nothing recorded"); return }
        let worst = Self.worstDifference(got, want)
        let status = try live.status()
        let reductions = (status["meters"] as? [String: Any]).map { m in ["deesser", "leveler", "ceiling"].compactMap { (m[$0] as? [String: Any])?["maxGainReductionDB"] as? Double } } ?? []
        print("JACK live podcast-voice vs offline: worst difference \(worst); latency \(status["latencyFrames"] ?? "?") frames; max gain reduction deesser/leveler/ceiling \(reductions)")
        #expect(worst == 0 && status["latencyFrames"] as? Int == 143)
        #expect(reductions.count == 3 && reductions.allSatisfy { $0 > 0 })
        live.send("set leveler.threshold -40")
        #expect(live.waitForLine { $0.hasPrefix("ok: set leveler.threshold") } != nil, "stderr: \(live.errors)")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Effects live: every effect kind in one chain (`EveryNodePresets.effectNodes`) under
    /// jackd equals the offline render sample for sample.
    @Test func effectsLiveEqualOffline() throws {
        let n = 96000
        try Self.liveEqualsOffline(chain: EveryNodePresets.effectNodes, name: "tl", label: "every effect kind in one chain",
                                   signal: [Self.noise(n, seed: 13), Self.noise(n, seed: 14)])
    }

    /// Voice clean-up live: `dehum`, `denoise` and `deplosive` (the denoiser's latency, a window and four hops of
    /// look-ahead, in the stream and in `status`) on noise with 50 Hz hum, on a server of their own: the every-effect chain above
    /// already loads a period of a 2-core machine (with them in it, CI once saw an xrun).
    @Test func voiceCleanupLiveEqualOffline() throws {
        let n = 96000
        let hum = (0..<n).map { Float(0.05 * sin(2 * Double.pi * 50 * Double($0) / Self.rate)) }
        let status = try Self.liveEqualsOffline(chain: EveryNodePresets.voiceNodes, name: "tv", label: "dehum + denoise + deplosive",
                                                signal: [zip(Self.noise(n, seed: 15), hum).map(+), zip(Self.noise(n, seed: 16), hum).map(+)])
        #expect(status["latencyFrames"] as? Int == 2048, "the denoiser's window and look-ahead: \(status)")
    }

    /// Active speakers live (#40): a stereo input through a 3-way LR4 crossover and per-driver
    /// alignment (fractional delays in ms and mm, trims, an inverted driver, protection
    /// limiters): `timbre live` makes six output ports by itself (no `--outputs`), and all six
    /// recorded from jackd equal the offline render bit for bit; the alignment's latency is
    /// reported to JACK.
    @Test func threeWaySpeakerLiveEqualsOffline() throws {
        let n = 96000
        let status = try Self.liveEqualsOffline(chain: Self.threeWayChain, name: "tx", label: "3-way crossover, six outputs",
                                                signal: [Self.noise(n, seed: 17), Self.noise(n, seed: 18)], outputs: 6)
        print("3-way speaker live: latency \(status["latencyFrames"] ?? "?") frames, DSP load \(status["dspLoadPercent"] ?? "?") %")
        #expect((status["latencyFrames"] as? Int ?? 0) > 0, "\(status)")
        #expect(status["outputNames"] as? [String] == ["woofer L", "woofer R", "mid L", "mid R", "tweeter L", "tweeter R"], "\(status)")
    }

    /// The shipped `monitor-mix` live (#40): `timbre live` opens four input ports (what the graph
    /// reads) and six output ports (main, and the two monitor mixes on outputs of their own) by
    /// itself; all six recorded from jackd equal the offline render bit for bit, the limiters'
    /// latency aligned across the main and the monitor outputs.
    @Test func monitorMixLiveEqualsOffline() throws {
        let n = 96000
        let preset = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("Presets/monitor-mix.json"), encoding: .utf8)
        let status = try Self.liveEqualsOffline(preset: preset, name: "tm", label: "monitor-mix, four inputs and six outputs",
                                                signal: (0..<4).map { Self.noise(n, seed: UInt64(19 + $0)) }, outputs: 6)
        #expect((status["inputs"] as? [String])?.count == 4, "\(status)")
        #expect(status["outputNames"] as? [String] == ["main L", "main R", "singer L", "singer R", "guitarist L", "guitarist R"], "\(status)")
    }

    /// Buses wider than stereo live: `surround-stems` opens 13 input ports (two 5.1 stems and a
    /// mono dialog) and six outputs by itself, named by their speakers (aliases `ts:L` … `ts:BR`),
    /// and the six recorded outputs equal the offline render.
    @Test func surroundStemsLiveEqualsOffline() throws {
        let n = 48000
        let preset = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("Presets/surround-stems.json"), encoding: .utf8)
        let status = try Self.liveEqualsOffline(preset: preset, name: "ts", label: "surround-stems, 13 inputs and six outputs",
                                                signal: (0..<13).map { Self.noise(n, seed: UInt64(40 + $0)) }, outputs: 6) { server in
            // The six outputs by their speakers, as aliases (`jack_lsp -A`).
            let lsp = try server.tool("/usr/bin/jack_lsp", ["-A"])
            for speaker in ["L", "R", "C", "LFE", "BL", "BR"] { #expect(lsp.contains("ts:\(speaker)\n"), "\(speaker) in \(lsp)") }
        }
        #expect((status["inputs"] as? [String])?.count == 13, "\(status)")
    }

    static let threeWayChain = """
      {"type": "crossover", "id": "xo", "frequencies": [250, 2500], "order": 4},
      {"type": "drivers", "id": "drv", "outputs": [
        {"label": "woofer L", "limit": -1}, {"label": "woofer R", "limit": -1},
        {"label": "mid L", "delay": 0.125, "gain": -1.5}, {"label": "mid R", "delay": 0.125, "gain": -1.5},
        {"label": "tweeter L", "delayMm": 62.5, "gain": -4, "invert": true, "limit": -6}, {"label": "tweeter R", "delayMm": 62.5, "gain": -4, "invert": true, "limit": -6}]}
    """

    /// Plays `signal` through `timbre live` running `chain` on a jackd of its own and expects the
    /// recording to equal the offline render bit for bit, with no skipped cycle. The
    /// oscillators and the dither run from frame 0 of the host's stream, not from the first
    /// sound, so the offline render gets the same lead of silence: the host's `startFrameTime`
    /// and the player's and recorder's first frame times place the signal and the recording on
    /// the host's stream. Returns the host's `status`.
    ///
    /// The dummy backend runs without real-time scheduling on a shared 2-core machine, so the
    /// server can mark a cycle late for reasons of its own: a run with xruns is printed and run
    /// once more on a fresh server, and the second must have none.
    @discardableResult
    static func liveEqualsOffline(chain: String = "", preset: String? = nil, name: String, label: String, signal: [[Float]], outputs: Int = 2,
                                  inspect: ((JackServer) throws -> Void)? = nil) throws -> [String: Any] {
        var status = try liveEqualsOfflineOnce(chain: chain, preset: preset, name: name, label: label, signal: signal, outputs: outputs, inspect: inspect)
        if let xruns = status["xruns"] as? Int, xruns > 0 {
            print("JACK live vs offline, \(label): the server reported \(xruns) xruns (DSP load \(status["dspLoadPercent"] ?? "?") %); once more on a fresh server")
            status = try liveEqualsOfflineOnce(chain: chain, preset: preset, name: name, label: label, signal: signal, outputs: outputs, inspect: inspect)
        }
        #expect(status["xruns"] as? Int == 0, "xruns in two runs: \(status)")
        return status
    }

    private static func liveEqualsOfflineOnce(chain: String, preset: String?, name: String, label: String, signal: [[Float]], outputs: Int,
                                              inspect: ((JackServer) throws -> Void)?) throws -> [String: Any] {
        let server = try JackServer()
        defer { server.stop() }
        let json = preset ?? #"{"version": 1, "name": "live", "chain": [\#(chain)]}"#
        let live = try LiveProcess(["--preset", writePreset(json), "--name", name])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let n = signal[0].count
        let recording = try play(live, name: name, signal: signal, outputs: outputs)
        let status = try live.status()
        #expect((status["outputs"] as? [String])?.count == outputs, "output ports: \(status["outputs"] ?? "none")")
        try inspect?(server)
        let hostStart = try #require(status["startFrameTime"] as? Int, "status: \(status)")
        let playStart = try #require(recording.playerStart), recordStart = try #require(recording.recorderStart)
        // A skipped cycle would shift the stream (an xrun alone does not: the output is checked below).
        #expect(status["missedFrames"] as? Int == 0 && status["missedCycles"] as? Int == 0, "a skipped cycle would shift the stream: \(status)")
        // Where the signal's first frame fell on the host's stream, and in the recording.
        let lead = playStart - hostStart, at = playStart - recordStart, recorded = recording.channels
        try #require(lead > 0 && at >= 0 && at + n <= recorded[0].count, "host \(hostStart), player \(playStart), recorder \(recordStart)")
        let padded = signal.map { [Float](repeating: 0, count: lead) + $0 }
        let expected = try offline(json, padded).map { Array($0[lead..<(lead + n)]) }
        let got = recorded.map { Array($0[at..<(at + n)]) }
        let worst = worstDifference(got, expected)
        print("JACK live vs offline, \(label): worst difference \(worst) over \(outputs) × \(n) samples (signal at stream frame \(lead)); xruns \(status["xruns"] ?? "?")")
        #expect(worst == 0, "live and offline differ by up to \(worst)")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
        return status
    }

    /// Plugins live: LV2 (eg-amp as two mono instances) and LADSPA (swh amp) beside built-in
    /// nodes in `timbre live` under jackd: the recorded output equals the offline render bit for
    /// bit, `set amp.gain` reaches the plugin, and `status` reports each plugin's run time.
    @Test func pluginsLiveEqualOffline() throws {
        let server = try JackServer()
        defer { server.stop() }
        let json = #"{"version": 1, "name": "plugins live", "chain": [{"type": "plugin", "id": "amp", "uri": "http://lv2plug.in/plugins/eg-amp", "controls": {"gain": -4}}, {"type": "eq", "id": "eq", "bands": [{"frequency": 3000, "gain": 4}]}, {"type": "plugin", "id": "lamp", "ladspa": "amp_1181.so:amp", "controls": {"amps_gain_db": 2}}]}"#
        let live = try LiveProcess(["--preset", Self.writePreset(json), "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let signal = [Self.noise(96000, seed: 5), Self.noise(96000, seed: 6)]
        let recorded = try Self.playThrough(live, name: "tl", signal: signal)
        let expected = try Self.offline(json, signal)
        guard let got = Self.align(recorded, count: 96000) else { Issue.record("nothing recorded"); return }
        let worst = Self.worstDifference(got, expected)
        print("JACK live vs offline with LV2 and LADSPA plugins: worst difference \(worst) over 2 × 96000 samples")
        #expect(worst == 0, "live and offline differ by up to \(worst)")
        live.send("set amp.gain -10")
        let status = try live.status()
        let plugins = status["plugins"] as? [String: Any]
        let amp = plugins?["amp"] as? [String: Any]
        print("status plugins: \(plugins ?? [:])")
        #expect((amp?["blocks"] as? Int ?? 0) > 0 && amp?["runMeanMicroseconds"] != nil, "\(status)")
        let chain = (status["document"] as? [String: Any])?["chain"] as? [[String: Any]]
        #expect((chain?.first?["controls"] as? [String: Any])?["gain"] as? Double == -10, "set amp.gain reached the document: \(String(describing: chain?.first))")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// A file player live: the output recorded from JACK equals `timbre render` of the same
    /// preset sample for sample (both aligned on their first non-zero sample: the file starts
    /// with 1.5 s of silence, so the recorder is running before the sound starts); the
    /// prefetch thread kept up (no underrun frames in `status`); `looped` and `finished` are
    /// printed.
    @Test func playersLiveEqualOffline() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("players")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        _ = try ProcessRunner.tool("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", dir + "/bed.wav",
                                    "synth", "1", "whitenoise", "vol", "0.3", "pad", "1.5", "0"])
        let preset = dir + "/players.json"
        try Data(#"{"version": 1, "name": "bed", "graph": {"channels": [{"id": "bed", "player": {"file": "bed.wav", "loops": 1}}], "master": {"chain": [{"type": "peak", "frequency": 1000, "gain": 3}]}}}"#.utf8)
            .write(to: URL(fileURLWithPath: preset))
        let render = try ProcessRunner.run(ProcessRunner.timbreBinary, ["render", "--preset", preset, "-o", dir + "/offline.wav", "--encoding", "float", "--quiet"])
        #expect(render.status == 0, "\(render.stderr)")
        // Read with libsndfile (float samples exactly; sox would round small ones to its 32-bit integers).
        let reader = try SoundFileReader(path: dir + "/offline.wav")
        let frames = Int(reader.frameCount)
        let planar = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
        defer { planar.forEach { $0.deallocate() } }
        let got = try planar.withUnsafeBufferPointer { try reader.read(into: $0.baseAddress!, maxFrames: frames) }
        let offline = planar.map { Array(UnsafeBufferPointer(start: $0, count: got)) }
        #expect(offline[0].count == 240_000, "offline frames \(offline[0].count)")

        let recorder = try TapClient(name: "rec", channels: 2, player: false, length: 48_000 * 7)
        let live = try PlayerFolder.live(preset)
        try recorder.connect(from: "tp")
        recorder.start()
        #expect(live.waitForLine(timeout: 15) { $0.hasPrefix("finished: bed") } != nil, "\(live.output) \(live.errors)")
        #expect(live.output.contains { $0.hasPrefix("looped: bed") })
        let underruns = ((try live.status()["players"] as? [String: Any])?["bed"] as? [String: Any])?["underrunFrames"] as? Int
        #expect(recorder.waitUntilDone(timeout: 20))
        let recorded = [recorder.channel(0), recorder.channel(1)]
        recorder.close()
        let sound = 2 * 48_000 + 48_000  // from the first non-zero sample: 1 s of noise, 1.5 s of silence, 1 s of noise
        guard let got = Self.align(recorded, count: sound), let want = Self.align(offline, count: sound) else {
            Issue.record("nothing recorded"); return
        }
        var worst: Float = 0
        for c in 0..<2 { for i in 0..<sound { worst = max(worst, abs(got[c][i] - want[c][i])) } }
        print("JACK player vs offline render: worst difference \(worst) over 2 × \(sound) samples; underrun frames \(String(describing: underruns))")
        #expect(worst == 0)
        #expect(underruns == 0)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Writes a float WAV of seeded noise through sox and returns its planar samples as libsndfile reads them.
    static func noiseFile(_ path: String, seconds: Double) throws -> [[Float]] {
        _ = try ProcessRunner.tool("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", path,
                                           "synth", "\(seconds)", "whitenoise", "vol", "0.3"])
        let reader = try SoundFileReader(path: path)
        let frames = Int(reader.frameCount)
        let planar = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
        defer { planar.forEach { $0.deallocate() } }
        let got = try planar.withUnsafeBufferPointer { try reader.read(into: $0.baseAddress!, maxFrames: frames) }
        return planar.map { Array(UnsafeBufferPointer(start: $0, count: got)) }
    }

    /// Where `window` occurs in `recorded` channel 0 (exact match), or nil.
    static func find(_ window: ArraySlice<Float>, in recorded: [Float]) -> Int? {
        guard let first = window.first else { return nil }
        for i in 0..<(recorded.count - window.count) where recorded[i] == first {
            if recorded[i..<(i + window.count)].elementsEqual(window) { return i }
        }
        return nil
    }

    /// `pause`, `play` and `seek 1.5` on a live player (autoplay off): nothing plays before
    /// `play`; after the seek the stream continues from file frame 72000 exactly — the 240
    /// frames of the 5 ms fade-in are that frame on, scaled by the ramp (1e-6), then the file
    /// bit for bit; `status` follows (`currentTime` past 1.5 s, `playing`).
    @Test func seekLandsOnTheExactFrame() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("seek")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        let file = try Self.noiseFile(dir + "/n.wav", seconds: 4)
        let preset = try folder.preset("seek", channels: #"{"id": "p", "player": {"file": "n.wav", "autoplay": false}}"#)
        let recorder = try TapClient(name: "rec", channels: 2, player: false, length: 48_000 * 4)
        let live = try PlayerFolder.live(preset)
        try recorder.connect(from: "tp")
        recorder.start()
        #expect(ProcessRunner.wait(timeout: 10) { recorder.position > 24_000 })
        let silentBefore = recorder.channel(0)[0..<20_000].allSatisfy { $0 == 0 }
        live.send("play p")
        #expect(live.waitForLine { $0 == "ok: play p" } != nil, "\(live.errors)")
        #expect(ProcessRunner.wait(timeout: 10) { recorder.position > 72_000 })
        live.send("seek p 1.5")
        #expect(live.waitForLine { $0 == "ok: seek p 1.5" } != nil, "\(live.errors)")
        _ = ProcessRunner.wait(timeout: 2) { ((try? live.status()["players"] as? [String: Any])?["p"] as? [String: Any])?["currentTime"] as? Double ?? 0 > 1.5 }
        let status = (try live.status()["players"] as? [String: Any])?["p"] as? [String: Any]
        #expect(recorder.waitUntilDone(timeout: 20))
        let recorded = recorder.channel(0)
        recorder.close()
        let fade = 240, cut = 72_000
        // The file after the fade-in, found in the recording; the 240 frames before it are the fade-in.
        guard let at = Self.find(file[0][(cut + fade)..<(cut + fade + 4800)], in: recorded) else {
            Issue.record("file frames from \(cut + fade) not found after the seek"); return
        }
        var worst: Float = 0
        for i in 0..<fade { worst = max(worst, abs(recorded[at - fade + i] - file[0][cut + i] * Float(i + 1) / Float(fade + 1))) }
        print("JACK seek 1.5: file frame \(cut) lands at recorded frame \(at - fade); fade-in deviation \(worst); status \(String(describing: status))")
        #expect(silentBefore, "autoplay off: silence before play")
        #expect(worst < 1e-6)
        #expect((status?["currentTime"] as? Double ?? 0) > 1.5 && status?["playing"] as? Bool == true)
        live.send("pause p")
        #expect(live.waitForLine { $0 == "ok: pause p" } != nil)
        #expect(((try live.status()["players"] as? [String: Any])?["p"] as? [String: Any])?["playing"] as? Bool == false)
        live.send("seek q 1")
        #expect(ProcessRunner.wait(timeout: 5) { live.errors.contains("\"q\" is not a player (players: p)") }, "\(live.errors)")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// `set <id>.rate 2` (the player's `rate`) while playing: the stream goes on from where it was (not from
    /// the top) at twice the speed — `currentTime` advances about 2 s per second afterwards.
    @Test func rateChangesWhilePlaying() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("rate")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        _ = try Self.noiseFile(dir + "/n.wav", seconds: 12)
        let preset = try folder.preset("rate", channels: #"{"id": "p", "player": {"file": "n.wav", "rateMode": "varispeed"}}"#)
        let live = try PlayerFolder.live(preset)
        // The player's position and the host's clock in one status reply: JACK's cycles × the
        // buffer size / the rate is the audio time rendered, whatever the machine's load.
        func reading() -> (time: Double, audio: Double) {
            let status = (try? live.status()) ?? [:]
            let time = ((status["players"] as? [String: Any])?["p"] as? [String: Any])?["currentTime"] as? Double ?? -1
            let cycles = status["cycles"] as? Double ?? 0, buffer = status["bufferSize"] as? Double ?? 0
            return (time, cycles * buffer / 48000)
        }
        usleep(1_000_000)
        let before = reading().time
        live.send("set p.rate 2")  // AVAudioPlayer's name for the player's rate
        #expect(live.waitForLine { $0.hasPrefix("ok: set p.rate 2") } != nil, "\(live.errors)")
        usleep(300_000)
        let r0 = reading()
        usleep(1_500_000)
        let r1 = reading()
        let speed = (r1.time - r0.time) / (r1.audio - r0.audio)
        print(String(format: "JACK rate change: currentTime %.3f before, %.3f → %.3f over %.3f s of audio after (%.3f× the audio clock)", before, r0.time, r1.time, r1.audio - r0.audio, speed))
        #expect(r0.time >= before, "continued, not restarted")
        // Two readings a status reply apart each: at most a buffer (256 frames) of skew at each end.
        #expect(r1.audio - r0.audio > 0.5 && abs(speed - 2) <= 2 * 2 * 256 / 48000 / (r1.audio - r0.audio) + 0.01)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// A file truncated while it plays: the player stops with a message naming the file,
    /// reports `finished`, and the host goes on (`status` answers). A preset whose player file
    /// is missing is refused at `load` with the JSON path, and the running graph is kept.
    @Test func truncatedFileStopsThePlayer() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("trunc")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        _ = try ProcessRunner.tool("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-b", "16", dir + "/long.wav", "synth", "8", "pinknoise", "vol", "0.2"])
        let preset = try folder.preset("trunc", channels: #"{"id": "p", "player": {"file": "long.wav"}}"#)
        let live = try PlayerFolder.live(preset, ["--presets-dir", dir])
        usleep(500_000)
        _ = try ProcessRunner.tool("truncate", ["-s", "400000", dir + "/long.wav"])
        #expect(live.waitForLine(timeout: 15) { $0 == "finished: p" } != nil, "\(live.output) \(live.errors)")
        #expect(live.errors.contains("long.wav: ended at frame") && live.errors.contains("truncated while playing"), "\(live.errors)")
        #expect(try live.status()["preset"] as? String == "trunc")
        // Loading a preset whose player file is missing is reported with the JSON path; the running graph stays.
        let bad = dir + "/bad.json"
        try Data(#"{"version": 1, "name": "bad", "graph": {"channels": [{"id": "p", "player": {"file": "gone.wav"}}]}}"#.utf8)
            .write(to: URL(fileURLWithPath: bad))
        live.send("load \(bad)")
        #expect(ProcessRunner.wait(timeout: 5) { live.errors.contains("graph.channels[0].player.file") && live.errors.contains("gone.wav") }, "\(live.errors)")
        #expect(try live.status()["preset"] as? String == "trunc")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// An OSC client that sent `/timbre/subscribe` receives the players' events as
    /// `/timbre/event s:kind s:id`: `looped` then `finished`, in order.
    @Test func oscClientsReceivePlayerEvents() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("events")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        _ = try Self.noiseFile(dir + "/n.wav", seconds: 0.5)
        let preset = try folder.preset("events", channels: #"{"id": "p", "player": {"file": "n.wav", "loops": 1, "autoplay": false}}"#)
        let port = UInt16(22000 + Int((getpid() + 7) % 20000))
        let live = try PlayerFolder.live(preset, ["--osc-port", "\(port)"])
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET); addr.sin_port = port.bigEndian; addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        func send(_ m: OSCMessage) {
            let d = [UInt8](m.encoded())
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, d, d.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        send(OSCMessage(address: "/timbre/subscribe", arguments: []))
        #expect(live.waitForLine { $0 == "ok: subscribed" } != nil, "\(live.errors)")
        send(OSCMessage(address: "/timbre/play", arguments: [.string("p")]))
        var events: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while events.count < 2 {
            let got = recv(fd, &buffer, buffer.count, 0)
            guard got > 0, let m = try? OSCMessage.parse(Data(buffer[0..<got])) else { break }
            if m.address == "/timbre/event", m.arguments.count == 2, case .string(let kind) = m.arguments[0], case .string(let id) = m.arguments[1] {
                events.append("\(kind) \(id)")
            }
        }
        print("OSC events: \(events)")
        #expect(events == ["looped p", "finished p"])
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// `finished` reaches stdout within one period of the player's last frame leaving the
    /// client, and never before it: the recorder's position when the line arrives, minus the
    /// frame where the recorded sound ends, is 0…256 frames (one period) plus the 2 ms the
    /// host's control loop may sleep.
    @Test func finishedArrivesWithinAPeriod() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("finish")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        _ = try ProcessRunner.tool("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", dir + "/n.wav",
                                           "synth", "1", "whitenoise", "vol", "0.3", "pad", "1", "0"])
        let preset = try folder.preset("finish", channels: #"{"id": "p", "player": {"file": "n.wav"}}"#)
        let recorder = try TapClient(name: "rec", channels: 2, player: false, length: 48_000 * 4)
        let live = try PlayerFolder.live(preset)
        try recorder.connect(from: "tp")
        recorder.start()
        var positionAtLine = -1
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if live.output.contains("finished: p") { positionAtLine = recorder.position; break }
            usleep(200)
        }
        #expect(recorder.waitUntilDone(timeout: 10))
        let recorded = recorder.channel(0)
        recorder.close()
        guard let last = recorded.lastIndex(where: { $0 != 0 }), positionAtLine > 0 else { Issue.record("no sound or no finished line"); return }
        let late = positionAtLine - (last + 1)
        print("JACK finished: line arrived \(late) frames (\(String(format: "%.1f", Double(late) / 48)) ms) after the last frame was recorded")
        #expect(late >= 0 && late <= 256 + 96, "finished arrived \(late) frames after the sound ended")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// A disk too slow for real time (a test hook delays every 4096-frame read by 400 ms): the
    /// player falls behind, the missing frames are counted in `status` and reported on stdout,
    /// and the output holds only the file's frames in order or silence — never stale audio.
    @Test func slowDiskUnderrunsAreCountedAndSilent() throws {
        let server = try JackServer()
        defer { server.stop() }
        let folder = try PlayerFolder("slow")
        defer { withExtendedLifetime(folder) {} }  // the files are read until the end
        let dir = folder.path
        let file = try Self.noiseFile(dir + "/n.wav", seconds: 8)
        let preset = try folder.preset("slow", channels: #"{"id": "p", "player": {"file": "n.wav"}}"#)
        let recorder = try TapClient(name: "rec", channels: 2, player: false, length: 48_000 * 6)
        let live = try PlayerFolder.live(preset, environment: ["TIMBRE_TEST_READ_DELAY_MS": "400"])
        try recorder.connect(from: "tp")
        recorder.start()
        #expect(recorder.waitUntilDone(timeout: 20))
        let report = live.waitForLine(timeout: 5) { $0.hasPrefix("underrun: p") }
        let underruns = ((try live.status()["players"] as? [String: Any])?["p"] as? [String: Any])?["underrunFrames"] as? Int ?? 0
        let recorded = recorder.channel(0)
        recorder.close()
        // Every non-silent run of the recording continues the file where the previous one stopped.
        var filePosition: Int? = nil, stale = 0, i = 0, runs = 0
        while i < recorded.count {
            if recorded[i] == 0 { i += 1; continue }
            var j = i
            while j < recorded.count && recorded[j] != 0 { j += 1 }
            if j - i >= 64 {
                runs += 1
                let start = filePosition ?? (file[0].firstIndex(of: recorded[i]) ?? -1)
                if start < 0 || start + (j - i) > file[0].count || !recorded[i..<j].elementsEqual(file[0][start..<(start + j - i)]) { stale += 1 }
                filePosition = start + (j - i)
            }
            i = j
        }
        print("JACK slow disk: \(underruns) underrun frames in status, report \(report ?? "none"), \(runs) runs of sound, \(stale) not continuing the file")
        #expect(underruns > 0)
        #expect(report != nil)
        #expect(runs > 1 && stale == 0)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Buffer-size changes while running (256 → 1024 → 128): the client follows them and its
    /// output stays equal to the offline render, window by window.
    @Test func bufferSizeChangesKeepOutputCorrect() throws {
        let server = try JackServer()
        defer { server.stop() }
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        let n = 3 * 48000
        let during = [Self.noise(n, seed: 3), Self.noise(n, seed: 4)]
        var toolErrors: [String] = []
        let recordedDuring = try Self.playThrough(live, name: "tl", signal: during) { player in
            // Change the size a third and two thirds of the way through, and wait until the
            // client has reported each change.
            _ = ProcessRunner.wait(timeout: 10) { player.position >= n / 3 }
            do { try server.tool("/usr/bin/jack_bufsize", ["1024"]) } catch { toolErrors.append("\(error)") }
            #expect(live.waitForLine { $0 == "buffer size: 1024" } != nil, "change to 1024 reported")
            _ = ProcessRunner.wait(timeout: 10) { player.position >= 2 * n / 3 }
            do { try server.tool("/usr/bin/jack_bufsize", ["128"]) } catch { toolErrors.append("\(error)") }
        }
        #expect(toolErrors.isEmpty, "jack_bufsize failed: \(toolErrors)")
        let status = try live.status()
        #expect(status["bufferSize"] as? Int == 128, "\(status)")
        let (matched, windows) = Self.matchedWindows(recordedDuring, try Self.offline(Self.presetJSON, during))
        print("JACK buffer size 256 → 1024 → 128 while playing: \(matched)/\(windows) 100 ms windows bit-identical to the offline render")
        #expect(matched == windows, "\(matched)/\(windows)")
        #expect(live.waitForLine { $0 == "buffer size: 128" } != nil, "buffer-size change reported: \(live.output)")
        #expect(try live.status()["cycles"] as? Int ?? 0 > 0)
    }

    /// A parameter change and a preset load take effect within one period plus the
    /// smoothing time, with no step larger than the signal's own.
    @Test func parameterChangeAndLoadAreSmooth() throws {
        let server = try JackServer()
        defer { server.stop() }
        let json = #"{"version": 1, "name": "sine", "chain": [{"type": "gain", "id": "trim", "gain": 0}]}"#
        let other = Self.writePreset(#"{"version": 1, "name": "other", "chain": [{"type": "gain", "id": "trim", "gain": -6}, {"type": "peak", "frequency": 1000, "gain": 3}]}"#)
        let live = try LiveProcess(["--preset", Self.writePreset(json), "--name", "tl", "--presets-dir", FileManager.default.temporaryDirectory.path])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        let n = 3 * 48000
        let sine = (0..<n).map { i in i == 0 ? Float(0.05) : Float(0.05 * sin(2 * Double.pi * 1000 * Double(i) / Self.rate)) }
        let recorded = try Self.playThrough(live, name: "tl", signal: [sine, sine]) { player in
            while player.position < 48000 { usleep(2000) }
            live.send("set trim.gain 12")
            while player.position < 96000 { usleep(2000) }
            live.send("load \(other)")
        }
        guard let y = Self.align(recorded, count: n)?[0] else { Issue.record("nothing recorded"); return }
        func level(_ r: Range<Int>) -> Float { y[r].map { abs($0) }.max() ?? 0 }
        func maxStep(_ r: Range<Int>) -> Float { (r.lowerBound + 1..<r.upperBound).map { abs(y[$0] - y[$0 - 1]) }.max() ?? 0 }
        #expect(abs(level(20000..<40000) - 0.05) < 0.001)
        let loud = level(80000..<94000)
        #expect(abs(20 * log10(loud / 0.05) - 12) < 0.05, "+12 dB applied: \(loud)")
        // Transition length: from the first sample above the old level to the new level.
        let first = try #require((40000..<96000).first { abs(y[$0]) > 0.0505 })
        let reached = try #require((first..<96000).first { abs(y[$0]) > 0.995 * loud })
        // Crossfade plus gain ramp, plus one period for the block the swap lands in.
        let allowed = 256 + Int((LiveEngine.crossfadeSeconds + GainKernel.defaultRampSeconds) * Self.rate)
        #expect(reached - first <= allowed, "transition took \(reached - first) frames")
        #expect(maxStep(40000..<96000) <= maxStep(80000..<94000) * 1.01, "no click on set")
        // The load: −6 dB and a +3 dB bell at 1 kHz → −3 dB: quieter, no step beyond the louder signal's.
        let after = level(130000..<143000)
        #expect(abs(20 * log10(after / 0.05) - (-3)) < 0.1, "loaded preset level \(after)")
        #expect(maxStep(96000..<130000) <= maxStep(80000..<94000) * 1.01, "no click on load")
    }

    /// Port connects and disconnects are reported; the client keeps running.
    @Test func portDisconnectIsReported() throws {
        let server = try JackServer()
        defer { server.stop() }
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--connect-inputs", "system:capture_1,system:capture_2"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        #expect(live.waitForLine { $0.contains("connected: system:capture_1 → tl:in_1") } != nil, "\(live.output)")
        _ = try server.tool("/usr/bin/jack_disconnect", ["system:capture_1", "tl:in_1"])
        #expect(live.waitForLine { $0.contains("disconnected: system:capture_1 → tl:in_1") } != nil, "\(live.output)")
        #expect(try live.status()["preset"] as? String == "jack test")
        let lsp = try server.tool("/usr/bin/jack_lsp", ["-c"])
        #expect(lsp.contains("tl:in_2") && lsp.contains("system:capture_2"))
    }

    /// Server killed (SIGTERM) while running: exit 2 with a clear message, nothing hangs.
    @Test func serverKilledExitsTwo() throws {
        let server = try JackServer()
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        server.kill()
        let code = live.waitForExit(timeout: 15)
        #expect(code == 2, "exit \(String(describing: code)), stderr: \(live.errors)")
        #expect(live.errors.contains("timbre: error: JACK server shut down"))
    }

    /// SIGTERM and SIGINT deactivate, close and exit 0.
    @Test(arguments: [SIGTERM, SIGINT])
    func signalsStopCleanly(signal: Int32) throws {
        let server = try JackServer()
        defer { server.stop() }
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        kill(live.process.processIdentifier, signal)
        #expect(live.waitForExit(timeout: 10) == 0)
        #expect(try ProcessRunner.wait(timeout: 5) { !(try server.tool("/usr/bin/jack_lsp", [])).contains("tl:") }, "client closed")
    }

    /// An invalid preset exits 1 with the JSON path; an invalid command or preset while
    /// running is reported and the graph is kept.
    @Test func invalidPresetsAndCommands() throws {
        let server = try JackServer()
        defer { server.stop() }
        let bad = Self.writePreset(#"{"version": 1, "name": "bad", "chain": [{"type": "eq", "bands": [{}, {"gain": 25}]}]}"#)
        let failing = try LiveProcess(["--preset", bad])
        #expect(failing.waitForExit(timeout: 10) == 1)
        #expect(failing.errors.contains("chain[0].bands[1].gain") && failing.errors.contains("25"), "\(failing.errors)")

        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--presets-dir", FileManager.default.temporaryDirectory.path])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        live.send("set eq.bands[1].gain 40")
        live.send("frobnicate")
        live.send("load \(bad)")
        live.send("bypass nosuchnode on")
        let status = try live.status()
        #expect(status["preset"] as? String == "jack test")
        let errors = live.errors
        #expect(errors.contains("chain[1].bands[1].gain: 40 is out of range"), "\(errors)")
        #expect(errors.contains("unknown command"))
        #expect(errors.contains("no node with id \"nosuchnode\""))
        live.send("set eq.bands[1].gain 5")
        #expect(live.waitForLine { $0 == "ok: set eq.bands[1].gain 5" } != nil)
        live.send(#"insert 0 {"type": "gain", "id": "pad", "gain": -6}"#)
        #expect(live.waitForLine { $0 == "ok: inserted at 0" } != nil, "\(live.errors)")
        #expect(((try live.status()["document"] as? [String: Any])?["chain"] as? [[String: Any]])?.first?["id"] as? String == "pad")
        live.send("remove pad")
        #expect(live.waitForLine { $0 == "ok: removed pad" } != nil)
    }

    /// OSC on loopback and --watch reloads.
    @Test func oscAndWatch() throws {
        let server = try JackServer()
        defer { server.stop() }
        let path = Self.writePreset()
        let port = UInt16(20000 + Int(getpid() % 20000))
        let live = try LiveProcess(["--preset", path, "--name", "tl", "--osc-port", "\(port)", "--watch"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET); addr.sin_port = port.bigEndian; addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        func send(_ m: OSCMessage) {
            let d = [UInt8](m.encoded())
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, d, d.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        send(OSCMessage(address: "/timbre/set", arguments: [.string("trim.gain"), .float(-7.5)]))
        send(OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .int(1)]))
        #expect(live.waitForLine { $0 == "ok: bypass hp on" } != nil, "\(live.errors)")
        let doc = try #require(try live.status()["document"] as? [String: Any])
        let chain = try #require(doc["chain"] as? [[String: Any]])
        #expect(chain[2]["gain"] as? Double == -7.5 && chain[0]["bypass"] as? Bool == true)

        try Data(#"{"version": 1, "name": "rewritten", "chain": [{"type": "gain", "gain": -1}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(live.waitForLine { $0.contains("loaded") && $0.contains("rewritten") } != nil, "\(live.output) \(live.errors)")
        #expect(try live.status()["preset"] as? String == "rewritten")
    }

    /// Latency through JACK: each port reports the connected ports' latency plus the plan's
    /// own, as `status` computes it from the plan: 0 frames for the plain preset, the pitch
    /// shifter's 6616 frames (at 48 kHz) for one with a `pitch` node, x42 dpl's 64 frames (its
    /// LV2 latency port) for one with that plugin, the true-peak limiter's 143 frames (2 ms
    /// lookahead + 47) for the shipped podcast-voice chain.
    @Test(arguments: ["plain", "pitch", "plugin", "limiter"])
    func reportsLatencyThroughJack(kind: String) throws {
        let server = try JackServer()
        defer { server.stop() }
        let preset = switch kind {
        case "pitch": Self.writePreset(#"{"version": 1, "name": "shifted", "chain": [{"type": "pitch", "id": "p", "semitones": 3}]}"#)
        case "plugin": Self.writePreset(#"{"version": 1, "name": "limited", "chain": [{"type": "plugin", "id": "lim", "uri": "http://gareus.org/oss/lv2/dpl#stereo"}]}"#)
        case "limiter": "podcast-voice"
        default: Self.writePreset()
        }
        let expectedLatency = ["pitch": 6616, "plugin": 64, "limiter": 143][kind] ?? 0
        let live = try LiveProcess(["--preset", preset, "--name", "tl", "--connect-outputs", "system:playback_1,system:playback_2"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        #expect(live.waitForLine { $0.contains("connected: tl:out_2 → system:playback_2") } != nil, "\(live.output)")
        let probe = try JackClient(name: "probe")
        defer { probe.close() }
        func latency(_ port: String, _ mode: jack_latency_callback_mode_t) -> (UInt32, UInt32)? {
            guard let p = jack_port_by_name(probe.client, port) else { return nil }
            var r = jack_latency_range_t()
            jack_port_get_latency_range(p, mode, &r)
            return (r.min, r.max)
        }
        let own = try #require(try live.status()["latencyFrames"] as? Int)
        #expect(own == expectedLatency, "plan latency \(own)")
        let system = try #require(latency("system:playback_1", JackPlaybackLatency))
        // Ports settle after the connection's latency recomputation: wait for the values.
        var ours: (UInt32, UInt32)?, oursIn: (UInt32, UInt32)?
        _ = ProcessRunner.wait(timeout: 5) {
            ours = latency("tl:out_1", JackPlaybackLatency); oursIn = latency("tl:in_1", JackPlaybackLatency)
            return ours.map { $0 == system } ?? false
        }
        print("Playback latency: system:playback_1 \(system), tl:out_1 \(String(describing: ours)), tl:in_1 \(String(describing: oursIn)) frames; plan latency \(own)")
        #expect(system.1 > 0, "the dummy backend reports a playback latency")
        #expect(ours.map { $0 == system } ?? false, "tl:out_1 passes the downstream latency through")
        #expect(oursIn.map { $0.0 == system.0 + UInt32(own) && $0.1 == system.1 + UInt32(own) } ?? false,
                "tl:in_1 = downstream latency + the plan's \(own) frames")
    }

    /// NaN from another client: the poisoned periods come out silent, the event is counted in
    /// `status` and on stderr, and once finite input returns the output is the offline render
    /// of that input from rest — from the first period on.
    @Test func nanInputRecoversWithinOnePeriod() throws {
        let server = try JackServer()
        defer { server.stop() }
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil)
        let period = 256
        let nanStart = 94 * period, nanEnd = 141 * period, n = nanEnd + 48000
        var signal = [Self.noise(n, seed: 5), Self.noise(n, seed: 6)]
        let sine = Signals.sine(n - nanEnd, hz: 440, amplitude: 0.4)
        for c in 0..<2 {
            for i in nanStart..<nanEnd { signal[c][i] = c == 0 || i % 2 == 0 ? .nan : .infinity }
            for i in nanEnd..<n { signal[c][i] = sine[i - nanEnd] }
        }
        let recorded = try Self.playThrough(live, name: "tl", signal: signal)
        guard let got = Self.align(recorded, count: n) else { Issue.record("nothing recorded"); return }
        let expected = try Self.offline(Self.presetJSON, [Array(sine), Array(sine)])
        var silentOK = true, firstBad = -1
        for c in 0..<2 {
            for i in nanStart..<nanEnd where got[c][i] != 0 { silentOK = false }
            for i in nanEnd..<n where got[c][i] != expected[c][i - nanEnd] { if firstBad < 0 || i < firstBad { firstBad = i }; break }
        }
        let recovery = firstBad < 0 ? 0 : (firstBad - nanEnd) / period + 1
        print("JACK NaN burst of \((nanEnd - nanStart) / period) periods: output silent through it: \(silentOK); the first period after it already equals the offline render of the sine: \(firstBad < 0) (periods to recover: \(recovery))")
        #expect(silentOK, "poisoned periods are silent")
        #expect(firstBad < 0, "output after the NaN differs from the offline render from frame \(firstBad)")
        #expect(Double(recovery) <= Tolerance[.nanRecoveryBlocks].limit)
        let status = try live.status()
        #expect(status["nonFiniteBlocks"] as? Int == (nanEnd - nanStart) / period, "\(status["nonFiniteBlocks"] ?? "none")")
        #expect(ProcessRunner.wait(timeout: 3) { live.errors.contains("NaN or infinity reached the output") }, "\(live.errors)")
    }

    /// 6,000 random and mutated datagrams and lines at a running `timbre live`: it keeps
    /// answering `status`, its error output stays rate-limited, and its output still equals
    /// the offline render of whatever document the accepted edits left.
    @Test func fuzzingTheLiveHost() throws {
        let server = try JackServer()
        defer { server.stop() }
        let port = UInt16(21000 + Int(getpid() % 20000))
        // In a folder of its own: a mutated datagram can be a `/timbre/save s` whose name is
        // any word, written into the presets folder (the current one). Run from the checkout,
        // such files once landed in the repository.
        let folder = try ProcessRunner.temporaryDirectory("timbre-fuzz")
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--osc-port", "\(port)"], cwd: folder)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET); addr.sin_port = port.bigEndian; addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var rng = SeededRandom(seed: 61)
        var datagrams = 0, lines = 0
        for k in 0..<5000 {
            let d = [UInt8](ControlFuzz.datagram(k, &rng))
            let sent = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, d, d.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            if sent == d.count { datagrams += 1 }
            if k % 500 == 499 { usleep(20_000) }  // let the control loop drain (it is bounded either way)
        }
        for k in 0..<1000 {
            let line = ControlFuzz.line(k, &rng)
            let verb = line.split(separator: " ").first.map(String.init) ?? ""
            if ["quit", "exit", "load", "save"].contains(verb) || line.contains("\n") { continue }  // not fuzz targets: these end or replace the session, or write files
            live.send(line); lines += 1
        }
        // Datagrams and lines arrive on two threads: wait until the document stops changing.
        var status = try live.status()
        var stable = false
        for _ in 0..<20 where !stable {
            usleep(250_000)
            let next = try live.status()
            stable = NSDictionary(dictionary: next["document"] as? [String: Any] ?? [:]).isEqual(to: status["document"] as? [String: Any] ?? [:])
            status = next
        }
        #expect(stable, "the document settles once the input stops")
        #expect(live.process.isRunning)
        let errorLines = live.errors.split(separator: "\n").count
        print("Fuzzed timbre live with \(datagrams) datagrams and \(lines) lines: still running, status answers; \(errorLines) error lines printed (rate-limited)")
        #expect(errorLines < 300, "error output is rate-limited: \(errorLines) lines")
        try Self.expectRendersItsDocument(live, status["document"], after: "fuzzing datagrams and lines")
        #expect(try live.status()["preset"] != nil)
    }

    /// `--meters` under jackd, a preset without meter nodes: the output (`master`) is always
    /// metered. A −20 dBFS stereo sine reads −20 LUFS momentary, sample peak −20 dBFS and
    /// (AES17) RMS −20 dBFS on the meter line, in `status`, and in the OSC reply to `/timbre/meters`,
    /// which goes to the sender.
    @Test func metersWhilePlaying() throws {
        let server = try JackServer()
        defer { server.stop() }
        let port = UInt16(22000 + Int(getpid() % 20000))
        let live = try LiveProcess(["--preset", Self.writePreset(#"{"version": 1, "name": "m", "chain": [{"type": "gain", "id": "g", "gain": 0}]}"#),
                                    "--name", "tl", "--meters", "--osc-port", "\(port)"])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        let n = 3 * 48000
        let sine = Signals.sine(n, hz: 1000, amplitude: 0.1)
        var osc: String?
        var line = ""
        _ = try Self.playThrough(live, name: "tl", signal: [sine, sine]) { player in
            _ = ProcessRunner.wait(timeout: 10) { player.position >= 2 * 48000 }
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(fd) }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET); addr.sin_port = port.bigEndian; addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let d = [UInt8](OSCMessage(address: "/timbre/meters", arguments: []).encoded())
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, d, d.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let got = recv(fd, &buffer, buffer.count, 0)
            if got > 0, let m = try? OSCMessage.parse(Data(buffer[0..<got])), case .string(let text)? = m.arguments.first { osc = text }
            line = live.output.last { $0.hasPrefix("meter: master:") } ?? ""  // printed while the sine plays
        }
        print("JACK --meters: \(line)")
        #expect(line.contains("| M -20.0") || line.contains("| M -19.9") || line.contains("| M -20.1"), "meter line: \(line)")
        guard let text = osc, let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let out = json["master"] as? [String: Any] else { Issue.record("no OSC reply to /timbre/meters"); return }
        let channels = (out["channels"] as? [[String: Any]]) ?? []
        print("OSC /timbre/meters reply: momentary \(out["momentaryLUFS"] ?? "none") LUFS, channels \(channels)")
        #expect(abs((out["momentaryLUFS"] as? Double ?? 0) + 20) <= 0.2)
        #expect(channels.count == 2)
        for c in channels {
            #expect(abs((c["samplePeakDBFS"] as? Double ?? 0) + 20) <= 0.05, "peak \(c)")
            // RMS since the host started, which includes the moment of silence before the sine.
            #expect(abs((c["rmsDBFS"] as? Double ?? 0) + 20) <= 0.3, "RMS \(c)")
        }
        let status = try live.status()
        #expect(((status["meters"] as? [String: Any])?["master"] as? [String: Any])?["integratedLUFS"] is Double)
    }
}

