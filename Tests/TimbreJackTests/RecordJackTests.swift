import Foundation
import Testing
import TimbreFile
import TimbreJack
import TimbreTestSupport

/// `timbre record` and recording inside `timbre live`, under a private jackd (dummy backend):
/// a known signal from a second client recorded sample for sample, pre-roll, an exact
/// duration, pause/resume without a click, a SIGKILLed recorder, the server killed, a full disk.
@Suite(.serialized) struct RecordJackTests {
    static let rate = 48_000.0

    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-rec-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static func read(_ path: String) throws -> [[Float]] { try SoundFileSamples.read(path) }

    static func record(_ args: [String], cwd: String) throws -> LiveProcess {
        try LiveProcess(args, command: "record", cwd: cwd)
    }

    static func sidecar(_ path: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".json")))) as? [String: Any] ?? [:]
    }

    /// A second client plays 2 s of noise into `timbre record --inputs`: the take holds it
    /// sample for sample (float WAV), aligned at the offset JACK's graph gives (the ports report
    /// 0 frames of latency between two clients in one cycle; the take starts before the
    /// signal, so the offset is the silence recorded first), and nothing else but silence.
    @Test func recordsAKnownSignalSampleForSample() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let n = 96_000
        let signal = [LiveJackTests.noise(n, seed: 21), LiveJackTests.noise(n, seed: 22)]
        let player = try TapClient(name: "src", channels: 2, player: true, signal: signal, length: n)
        let rec = try Self.record(["-o", "take.wav", "--inputs", "src:out_1,src:out_2", "--encoding", "float"], cwd: d)
        #expect(rec.waitForLine { $0.hasPrefix("recording:") } != nil, "stderr: \(rec.errors)")
        usleep(200_000)
        player.start()
        #expect(player.waitUntilDone(timeout: 20))
        usleep(300_000)
        rec.send("marker end of signal")
        usleep(100_000)
        rec.send("stop")
        #expect(rec.waitForExit(timeout: 10) == 0, "stderr: \(rec.errors)")
        let take = try Self.read(d + "/take.wav")
        guard let at = take[0].firstIndex(where: { $0 != 0 }), at + n <= take[0].count else { Issue.record("signal not in the take"); return }
        let same = (0..<2).allSatisfy { c in Array(take[c][at..<(at + n)]) == signal[c] }
        let before = take.allSatisfy { $0[..<at].allSatisfy { $0 == 0 } }, after = take.allSatisfy { $0[(at + n)...].allSatisfy { $0 == 0 } }
        print("record: 2 x \(n) frames found sample for sample at frame \(at) of \(take[0].count); silence before: \(before), after: \(after)")
        #expect(same && before && after)
        let side = Self.sidecar(d + "/take.wav")
        let markers = side["markers"] as? [[String: Any]] ?? []
        #expect(markers.count == 1 && markers.first?["label"] as? String == "end of signal" && (markers.first?["frame"] as? Int ?? 0) > at + n, "\(side)")
        #expect(side["state"] as? String == "stopped" && (side["overruns"] as? [Any])?.isEmpty == true)
        // The marker is a cue point too (libsndfile reads it back).
        let cues = TakeCues.read(path: d + "/take.wav")
        print("cue points read back: \(cues)")
        // Every marker and every xrun (the dummy backend reports some) is a cue point.
        let xruns = (side["xruns"] as? [[String: Any]] ?? []).compactMap { $0["frame"] as? Int }
        let wanted = (markers.compactMap { $0["frame"] as? Int } + xruns).sorted().map(Int64.init)
        #expect(cues.map(\.frame).sorted() == wanted && cues.contains { $0.label == "end of signal" }, "cues \(cues), sidecar \(side)")
    }

    /// Every container a take can be: 1 s of a known signal with `--duration 1` gives exactly
    /// 48,000 frames equal to what was sent (float; FLAC at 24 bits, within one step).
    @Test(arguments: [("w64", "float"), ("caf", "float"), ("aiff", "float"), ("flac", "pcm24"), ("rf64", "float")])
    func everyContainer(ext: String, encoding: String) throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let n = 96_000
        let signal = [LiveJackTests.noise(n, seed: 61), LiveJackTests.noise(n, seed: 62)]
        let player = try TapClient(name: "src", channels: 2, player: true, signal: signal, length: n)
        player.start()
        #expect(ProcessRunner.wait(timeout: 10) { player.position > 4800 })
        let rec = try Self.record(["-o", "t.\(ext)", "--inputs", "src:out_1,src:out_2", "--encoding", encoding, "--duration", "1"], cwd: d)
        #expect(rec.waitForExit(timeout: 15) == 0, "stderr: \(rec.errors)")
        let take = try Self.read(d + "/t.\(ext)")
        let probe = Array(take[0][0..<64])
        let k = (0...(n - 64)).first { i in (0..<64).allSatisfy { abs(signal[0][i + $0] - probe[$0]) <= 1.2e-7 } }
        var worst: Float = .infinity
        if let k, k + 48_000 <= n { worst = 0; for c in 0..<2 { for i in 0..<48_000 { worst = max(worst, abs(take[c][i] - signal[c][k + i])) } } }
        print("\(ext) \(encoding): \(take[0].count) frames, worst difference from the signal \(worst)")
        #expect(take[0].count == 48_000 && worst <= (encoding == "float" ? 0 : 1.2e-7))
    }

    /// Load: `timbre live` with 32 inputs at 96 kHz (256-frame periods) records its dry inputs
    /// as float for 60 s — 12.3 MB/s — with noise on all 32 inputs from a second client:
    /// no overrun, exactly 60 s of frames, and JACK's DSP load with and without recording
    /// (10 s of `status` each) side by side.
    @Test func thirtyTwoChannelsAt96kHzFor60Seconds() throws {
        let server = try JackServer(bufferSize: 256, rate: 96_000)
        defer { server.stop() }
        let d = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let n = 96_000
        let noise = (0..<32).map { LiveJackTests.noise(n, seed: UInt64(100 + $0)) }
        let player = try TapClient(name: "src", channels: 32, player: true, signal: noise, length: n)
        let live = try LiveProcess(["--preset", "flat", "--name", "big", "--inputs", "32", "--outputs", "32",
                                    "--connect-inputs", (1...32).map { "src:out_\($0)" }.joined(separator: ",")], cwd: d)
        #expect(live.waitForLine(timeout: 15) { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        player.start()
        func load(seconds: Int) throws -> [Double] {
            var loads: [Double] = []
            for _ in 0..<seconds { usleep(1_000_000); loads.append(try live.status()["dspLoadPercent"] as? Double ?? .nan) }
            return loads
        }
        let idle = try load(seconds: 10)
        live.send("record start big.wav inputs")
        #expect(live.waitForLine { $0.hasPrefix("recording: big.wav") } != nil, "stderr: \(live.errors)")
        let busy = try load(seconds: 10)
        usleep(50_000_000)
        let mark = live.output.count
        live.send("record stop")
        let stopped = live.waitForLine(timeout: 20, after: mark) { $0.hasPrefix("stopped: big.wav") } ?? "none"
        let side = Self.sidecar(d + "/big.wav")
        let frames = side["frames"] as? Int ?? 0, overruns = (side["overruns"] as? [Any])?.count ?? -1
        let mean = { (x: [Double]) in x.reduce(0, +) / Double(x.count) }
        print(String(format: "32 ch at 96 kHz, float: %@; %d frames (%.2f s), %d overruns; JACK DSP load %.2f %% without recording, %.2f %% recording (means of 10 s, max %.2f / %.2f)",
                     stopped, frames, Double(frames) / 96_000, overruns, mean(idle), mean(busy), idle.max() ?? 0, busy.max() ?? 0))
        #expect(overruns == 0 && frames >= 60 * 96_000)
        live.send("quit")
        #expect(live.waitForExit(timeout: 10) == 0)
    }

    /// A channel's bus as the source (`record start voice.wav voice`): a graph whose `voice`
    /// channel takes inputs 1–4 (a four-channel bus, into a four-channel master) through a
    /// −6.0206 dB gain, beside a stereo `music` channel; the take has the bus's four channels —
    /// 0.5 × what was sent, within one 24-bit step — and the music is not in it.
    /// Stopping removes the tap with a plan swap; the host keeps playing.
    @Test func liveRecordsAChannelBus() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let json = #"{"version": 1, "name": "bus", "graph": {"channels": [{"id": "voice", "input": [0, 1, 2, 3], "chain": [{"type": "gain", "gain": -6.020599913279624}]}, {"id": "music", "input": [2, 3]}], "master": {"channels": 4, "chain": []}}}"#
        let live = try LiveProcess(["--preset", LiveJackTests.writePreset(json), "--name", "tl", "--inputs", "4"], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let n = 96_000
        let signal = (0..<4).map { LiveJackTests.noise(n, seed: UInt64(80 + $0)) }
        let player = try TapClient(name: "src", channels: 4, player: true, signal: signal, length: n)
        for k in 0..<4 { try player.jack.connect(player.portNames[k], "tl:in_\(k + 1)") }
        live.send("record start nowhere.wav drums")
        #expect(ProcessRunner.wait(timeout: 5) { live.errors.contains("drums") }, "an unknown bus is named: \(live.errors)")
        live.send("record start voice.wav voice")
        #expect(live.waitForLine { $0.hasPrefix("recording: voice.wav (voice)") } != nil, "stderr: \(live.errors)")
        player.start()
        #expect(player.waitUntilDone(timeout: 20))
        usleep(200_000)
        let mark = live.output.count
        live.send("record stop")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("stopped: voice.wav") } != nil, "stderr: \(live.errors)")
        #expect(!FileManager.default.fileExists(atPath: d + "/nowhere.wav") && live.errors.contains("drums"), "an unknown bus is refused: \(live.errors)")
        let take = try Self.read(d + "/voice.wav")
        guard let a = take[0].firstIndex(where: { $0 != 0 }), a + n <= take[0].count else { Issue.record("empty take"); return }
        #expect(take.count == 4, "the take has the bus's channels")
        var worst: Float = 0
        for c in 0..<min(4, take.count) { for i in 0..<n { worst = max(worst, abs(take[c][a + i] - 0.5 * signal[c][i])) } }
        print("channel bus take: 0.5 x the voice inputs within \(worst) (pcm24), at frame \(a)")
        #expect(worst <= 1.2e-7)
        let status = try live.status()
        #expect((status["takes"] as? [Any])?.isEmpty == true && (status["cycles"] as? Int ?? 0) > 0)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Examples/Karaoke under jackd: a second client sings (noise) into its input; after 3 s it
    /// has written the processed mix (stereo) and the dry voice, 144,000 frames each, the dry
    /// take equal to what was sung, the mix louder than silence where the backing plays.
    @Test func karaokeExampleWritesTheMixAndTheDryVoice() throws {
        // Beside the timbre binary, or (when that is the statically linked one in its own build
        // folder) beside this test bundle, which is built with the examples.
        let example = [ProcessRunner.timbreBinary, CommandLine.arguments[0]]
            .map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("KaraokeExample").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "KaraokeExample"
        guard FileManager.default.isExecutableFile(atPath: example) else { Issue.record("\(example) is not built"); return }
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let n = 240_000
        let voice = LiveJackTests.noise(n, seed: 71)
        let singer = try TapClient(name: "singer", channels: 1, player: true, signal: [voice], length: n)
        singer.start()
        let r = try ProcessRunner.run(example, ["3", d], environment: ["KARAOKE_VOICE_PORT": "singer:out_1"])
        print("KaraokeExample: \(r.stdout.split(separator: "\n").joined(separator: " | ")) \(r.stderr.prefix(200))")
        #expect(r.status == 0)
        let mix = try Self.read(d + "/karaoke-mix.wav"), dry = try Self.read(d + "/karaoke-voice-dry.wav")
        #expect(mix.count == 2 && mix[0].count == 144_000 && dry.count == 1 && dry[0].count == 144_000)
        let probe = Array(dry[0][1000..<1064])
        let k = (0...(n - 64)).first { voice[$0] == probe[0] && Array(voice[$0..<($0 + 64)]) == probe }
        guard let k, k + 143_000 <= n else { Issue.record("the dry take is not the voice sent (offset \(String(describing: k)))"); return }
        #expect(Array(dry[0][1000..<144_000]) == Array(voice[k..<(k + 143_000)]))
        #expect((mix[0].map { abs($0) }.max() ?? 0) > 0.05)
    }

    /// Pre-roll: the client records into memory from the start; `record` 1.5 s into a 4 s
    /// signal makes a take that begins exactly 1 s earlier (sidecar: 48,000 pre-roll frames)
    /// and is one unbroken, exact slice of the signal. `--duration 1` then gives exactly
    /// 48,000 frames after the pre-roll.
    @Test func preRollAndExactDuration() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let n = 192_000
        let signal = [LiveJackTests.noise(n, seed: 31), LiveJackTests.noise(n, seed: 32)]
        let player = try TapClient(name: "src", channels: 2, player: true, signal: signal, length: n)
        let rec = try Self.record(["-o", "pre.wav", "--inputs", "src:out_1,src:out_2", "--encoding", "float", "--pre-roll", "1", "--duration", "1"], cwd: d)
        #expect(rec.waitForLine { $0.hasPrefix("armed:") } != nil, "stderr: \(rec.errors)")
        player.start()
        #expect(ProcessRunner.wait(timeout: 10) { player.position > 72_000 })
        rec.send("record")
        #expect(rec.waitForExit(timeout: 10) == 0, "stderr: \(rec.errors)")
        let take = try Self.read(d + "/pre.wav")
        let side = Self.sidecar(d + "/pre.wav")
        print("pre-roll take: \(take[0].count) frames, sidecar preRollFrames \(side["preRollFrames"] ?? "?")")
        #expect(take[0].count == 96_000 && side["preRollFrames"] as? Int == 48_000)
        let probe = Array(take[0][0..<64])
        guard let k = (0...(n - 64)).first(where: { signal[0][$0] == probe[0] && Array(signal[0][$0..<($0 + 64)]) == probe }), k + 96_000 <= n else {
            Issue.record("the take's start is not in the signal"); return
        }
        let slice = (0..<2).allSatisfy { c in Array(take[c]) == Array(signal[c][k..<(k + 96_000)]) }
        print("pre-roll: take = signal[\(k)..<\(k + 96_000)] exactly: \(slice)")
        #expect(k > 0 && slice)
    }

    /// Pause and resume on a 440 Hz sine: the take fades out over 5 ms and in over 5 ms; no
    /// step between neighbouring samples is larger than the sine's own (2π·440/48000 of its
    /// amplitude) — no click.
    @Test func pauseAndResumeWithoutAClick() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let n = 240_000
        let sine = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / Self.rate)) }
        let player = try TapClient(name: "src", channels: 1, player: true, signal: [sine], length: n)
        player.start()
        let rec = try Self.record(["-o", "pr.wav", "--inputs", "src:out_1", "--encoding", "float"], cwd: d)
        #expect(rec.waitForLine { $0.hasPrefix("recording:") } != nil, "stderr: \(rec.errors)")
        usleep(700_000); rec.send("pause"); usleep(700_000); rec.send("resume"); usleep(700_000); rec.send("stop")
        #expect(rec.waitForExit(timeout: 10) == 0, "stderr: \(rec.errors)")
        let take = try Self.read(d + "/pr.wav")[0]
        var worst: Float = 0
        for i in 1..<take.count { worst = max(worst, abs(take[i] - take[i - 1])) }
        let allowed = Float(0.5 * 2 * Double.pi * 440 / Self.rate) * 1.01
        let sinePeak = take.map { abs($0) }.max() ?? 0
        print(String(format: "pause/resume: %d frames, largest step %.5f (the sine's own %.5f), peak %.3f", take.count, worst, allowed, sinePeak))
        #expect(take.count > 48_000 && take.count < 150_000, "the pause left out about 0.7 s")
        #expect(worst <= allowed)
    }

    /// SIGKILL mid-take: the file opens in libsndfile with all but at most the last 2 s of what
    /// was recorded, and `timbre repair` recovers every whole frame on disk, equal to the signal.
    @Test func killedRecorderLeavesARepairableFile() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let n = 480_000
        let signal = [LiveJackTests.noise(n, seed: 41), LiveJackTests.noise(n, seed: 42)]
        let player = try TapClient(name: "src", channels: 2, player: true, signal: signal, length: n)
        let rec = try Self.record(["-o", "kill.wav", "--inputs", "src:out_1,src:out_2", "--encoding", "float"], cwd: d)
        #expect(rec.waitForLine { $0.hasPrefix("recording:") } != nil, "stderr: \(rec.errors)")
        player.start()
        #expect(ProcessRunner.wait(timeout: 20) { player.position > 240_000 })
        let sent = player.position
        kill(rec.process.processIdentifier, SIGKILL)
        _ = rec.waitForExit(timeout: 5)
        let opened = try Self.read(d + "/kill.wav")
        let soxFrames = Int(try ProcessRunner.tool("soxi", ["-s", d + "/kill.wav"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        print("SIGKILL after \(sent) frames sent: libsndfile opens \(opened[0].count) frames, sox \(soxFrames)")
        #expect(opened[0].count >= sent - 96_000 && soxFrames >= sent - 96_000, "at most 2 s lost")
        let r = try ProcessRunner.run(ProcessRunner.timbreBinary, ["repair", d + "/kill.wav", "-o", d + "/fixed.wav", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let info = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
        let fixed = try Self.read(d + "/fixed.wav")
        let bytes = (try FileManager.default.attributesOfItem(atPath: d + "/kill.wav")[.size] as? Int) ?? 0
        let onDisk = (bytes - (info["dataOffset"] as? Int ?? 0)) / 8
        print("repair: \(info["frames"] ?? "?") frames recovered (whole frames on disk: \(onDisk)); \(r.stdout.prefix(200))")
        #expect(fixed[0].count == onDisk && fixed[0].count >= opened[0].count)
        guard let at = fixed[0].firstIndex(where: { $0 != 0 }) else { Issue.record("no signal"); return }
        let m = fixed[0].count - at
        #expect((0..<2).allSatisfy { c in Array(fixed[c][at...]) == Array(signal[c][0..<m]) }, "the recovered frames are the signal's")
    }

    /// SIGTERM and SIGINT finish the take like `stop`: exit 0, sizes right, sidecar "stopped".
    @Test(arguments: [SIGTERM, SIGINT])
    func signalFinishesTheTake(signal: Int32) throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let rec = try Self.record(["-o", "sig.wav", "--channels", "1", "--meters"], cwd: d)
        #expect(rec.waitForLine { $0.hasPrefix("recording:") } != nil, "stderr: \(rec.errors)")
        usleep(1_200_000)
        let mark = rec.output.count
        rec.send("status")
        let line = rec.waitForLine(after: mark) { $0.hasPrefix("record: ") } ?? ""
        #expect(line.contains("\"meters\":{\"master\"") && line.contains("\"ringFill\""), "status: \(line)")
        kill(rec.process.processIdentifier, signal)
        let status = rec.waitForExit(timeout: 10)
        let repair = try WaveFileRepair(path: d + "/sig.wav")
        print("signal \(signal): exit \(status.map(String.init) ?? "none"), \(repair.report)")
        #expect(status == 0 && repair.isIntact && repair.frames > 48_000 && Self.sidecar(d + "/sig.wav")["state"] as? String == "stopped")
    }

    /// The JACK server killed mid-take: `timbre record` says so, closes the file (its sizes
    /// right: `repair` finds nothing to fix) and exits 2.
    @Test func serverKilledFinalisesTheTake() throws {
        let server = try JackServer()
        let d = Self.tempDir()
        let rec = try Self.record(["-o", "srv.wav", "--channels", "2"], cwd: d)
        #expect(rec.waitForLine { $0.hasPrefix("recording:") } != nil, "stderr: \(rec.errors)")
        usleep(1_500_000)
        server.kill()
        let status = rec.waitForExit(timeout: 10)
        let repair = try WaveFileRepair(path: d + "/srv.wav")
        print("server killed: exit \(status.map(String.init) ?? "none"), \(repair.report); stderr: \(rec.errors.prefix(200))")
        #expect(status == 2 && rec.errors.contains("JACK server shut down"))
        #expect(repair.isIntact && repair.frames > 48_000)
    }

    /// A full disk during a take inside `timbre live`: a clear message, the file closed and
    /// readable (its header set to the frames on disk), the host still answering `status`.
    /// The disk: a 1 MiB tmpfs (mounting needs root, which `make test` has here).
    @Test func fullDiskStopsTheTakeNotTheHost() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let mountPoint = d + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = (try? ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]))?.status == 0
        defer { if mounted { _ = try? ProcessRunner.run("/bin/umount", [mountPoint]) } }
        guard mounted else { Issue.record("cannot mount a 1 MiB tmpfs here (this test needs root)"); return }
        let preset = LiveJackTests.writePreset()
        let live = try LiveProcess(["--preset", preset, "--name", "tl"], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        live.send("record start small/full.wav inputs")
        #expect(live.waitForLine { $0.hasPrefix("recording:") } != nil, "stderr: \(live.errors)")
        #expect(live.waitForLine(timeout: 20) { $0.hasPrefix("failed:") } != nil, "stderr: \(live.errors)")
        let status = try live.status()
        let take = try Self.read(mountPoint + "/full.wav")
        print("full disk (1 MiB tmpfs): \(live.errors.prefix(160)); the file opens with \(take[0].count) frames; status answers: \(status["xruns"] != nil)")
        #expect(live.errors.contains("recording stopped") && live.errors.contains("No space left"))
        let intact = try WaveFileRepair(path: mountPoint + "/full.wav").isIntact
        #expect(take[0].count > 48_000 / 4 && intact)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// Inside `timbre live`: the processed master and the dry inputs recorded at once; the
    /// master through a −6.0206 dB gain is the dry take times 0.5, frame for frame.
    @Test func liveRecordsMasterAndDryAtOnce() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = Self.tempDir()
        let json = #"{"version": 1, "name": "half", "chain": [{"type": "gain", "id": "g", "gain": -6.020599913279624}]}"#
        let live = try LiveProcess(["--preset", LiveJackTests.writePreset(json), "--name", "tl"], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        let n = 96_000
        let signal = [LiveJackTests.noise(n, seed: 51), LiveJackTests.noise(n, seed: 52)]
        let player = try TapClient(name: "src", channels: 2, player: true, signal: signal, length: n)
        for k in 0..<2 { try player.jack.connect(player.portNames[k], "tl:in_\(k + 1)") }
        live.send("record start mix.wav")
        live.send("record start dry.wav inputs")
        #expect(live.waitForLine { $0.contains("dry.wav (inputs)") } != nil, "stderr: \(live.errors)")
        player.start()
        #expect(player.waitUntilDone(timeout: 20))
        usleep(200_000)
        let mark = live.output.count
        live.send("record stop")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("stopped: dry.wav") } != nil)
        let mix = try Self.read(d + "/mix.wav"), dry = try Self.read(d + "/dry.wav")
        guard let a = mix[0].firstIndex(where: { $0 != 0 }), let b = dry[0].firstIndex(where: { $0 != 0 }) else { Issue.record("empty takes"); return }
        var worst: Float = 0, worstDry: Float = 0
        for c in 0..<2 {
            for i in 0..<n {
                worst = max(worst, abs(mix[c][a + i] - 0.5 * signal[c][i]))
                worstDry = max(worstDry, abs(dry[c][b + i] - signal[c][i]))
            }
        }
        // pcm24 (the default encoding): libsndfile writes x·(2^23 − 1) rounded and reads it
        // back divided by 2^23, so a sample comes back within one step, 2^-23 = 1.19e-7.
        print("live takes (pcm24): dry within \(worstDry) of the signal (at \(b)), master within \(worst) of 0.5 x the signal (at \(a))")
        #expect(worstDry <= 1.2e-7 && worst <= 1.2e-7)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }
}
