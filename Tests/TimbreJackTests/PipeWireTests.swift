import Foundation
import Testing
import TimbreEngine
import TimbreFile
import TimbreTestSupport

/// `timbre live` through PipeWire's JACK library (what `pw-jack` does) under a headless
/// PipeWire daemon (`docs/pipewire-headless.conf`: dummy driver, 48 kHz, 256-frame quanta).
/// Every JACK client here is a Timbre child process: a `timbre live` player as the source, the
/// host under test, and `timbre record` taking its outputs. Serialized: one daemon at a time.
@Suite(.serialized) struct PipeWireTests {
    static var configuration: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/pipewire-headless.conf").path
    }

    /// A Timbre JACK client of the running PipeWire.
    static func client(_ args: [String], command: String = "live", cwd: String) throws -> LiveProcess {
        try LiveProcess(args, command: command, environment: PipeWireServer.jackEnvironment, cwd: cwd)
    }

    /// Audio through PipeWire equals the offline render window for window while the quantum
    /// changes 256 → 64 → 2048 → 512 → 128 during playback; every change is reported.
    @Test func audioPassesThroughQuantumChanges() throws {
        let server = try PipeWireServer(configuration: Self.configuration)
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-pw-audio")
        let seconds = 8.0
        let noise = try LiveJackTests.noiseFile(d + "/noise.wav", seconds: seconds)
        _ = FileManager.default.createFile(atPath: d + "/host.json", contents: Data(LiveJackTests.presetJSON.utf8))
        _ = FileManager.default.createFile(atPath: d + "/source.json", contents: Data(#"{"version": 1, "name": "source", "graph": {"channels": [{"id": "bed", "player": {"file": "noise.wav", "autoplay": false}}]}}"#.utf8))
        let host = try Self.client(["--preset", "host.json", "--name", "tl"], cwd: d)
        defer { host.send("quit") }
        #expect(host.waitForLine { $0.hasPrefix("ready:") } != nil, "\(host.errors)")
        let recorder = try Self.client(["-o", "out.wav", "--inputs", "tl:out_1,tl:out_2", "--encoding", "float", "--name", "rec"], command: "record", cwd: d)
        #expect(recorder.waitForLine { $0.hasPrefix("recording:") } != nil, "\(recorder.errors)")
        let source = try Self.client(["--preset", "source.json", "--name", "src", "--inputs", "0", "--connect-outputs", "tl:in_1,tl:in_2"], cwd: d)
        defer { source.send("quit") }
        #expect(source.waitForLine { $0.hasPrefix("ready:") } != nil, "\(source.errors)")
        #expect(source.waitForLine { $0.hasPrefix("connected:") } != nil)
        usleep(300_000)
        source.send("play bed")
        var reported: [String] = []
        for (k, quantum) in [64, 2048, 512, 128].enumerated() {
            usleep(1_500_000)
            try server.force("clock.force-quantum", quantum)
            if let line = host.waitForLine(timeout: 5, { $0 == "buffer size: \(quantum)" }) { reported.append(line) }
            _ = k
        }
        #expect(source.waitForLine(timeout: seconds + 10) { $0.hasPrefix("finished: bed") } != nil, "\(source.output) \(source.errors)")
        usleep(500_000)
        let status = try host.status()
        let sourceStatus = try source.status()
        recorder.send("quit")
        #expect(recorder.waitForExit(timeout: 10) == 0, "\(recorder.errors)")
        try server.force("clock.force-quantum", 0)
        let recorded = try SoundFileSamples.read(d + "/out.wav")
        let expected = try LiveJackTests.offline(LiveJackTests.presetJSON, noise)
        let (matched, windows) = LiveJackTests.matchedWindows(recorded, expected)
        let missed = (status["missedCycles"] as? Int ?? 0) + (sourceStatus["missedCycles"] as? Int ?? 0)
        print("PipeWire (pipewire-jack), quantum 256 → 64 → 2048 → 512 → 128 while playing: \(matched)/\(windows) 100 ms windows bit-identical to the offline render; host reported \(reported); status xruns \(status["xruns"] ?? "?"), missed cycles: host \(status["missedCycles"] ?? "?") (\(status["missedFrames"] ?? "?") frames), source \(sourceStatus["missedCycles"] ?? "?")")
        #expect(reported.count == 4, "quantum changes reported: \(reported) \(host.output)")
        // A cycle PipeWire runs without one of the two Timbre clients in the path (it skips
        // one at each quantum change; more when the machine is loaded: CI once saw 20) leaves
        // a gap of at most 2048 frames, which can reach into two 100 ms windows. Every window
        // no gap touches must be exact (seen here: 77 and 74 of 80 with 4 to 6 missed cycles).
        let allowed = 2 * max(missed, 4)
        #expect(matched >= windows - allowed && matched >= windows / 2, "\(matched)/\(windows), \(missed) missed cycles")
        #expect(status["bufferSize"] as? Int == 128)
    }

    /// Latency is on the ports as soon as the host is active (no link needed), rate changes
    /// recompile the plan and republish it, cycles PipeWire runs without us are counted, and
    /// the daemon's death ends the host with exit 2.
    @Test func latencyRateMissedCyclesAndShutdown() throws {
        let server = try PipeWireServer(configuration: Self.configuration)
        let d = try ProcessRunner.temporaryDirectory("timbre-pw-latency")
        _ = FileManager.default.createFile(atPath: d + "/lim.json", contents: Data(#"{"version": 1, "name": "lim", "chain": [{"type": "limiter", "id": "lim", "ceiling": -1}]}"#.utf8))
        let host = try Self.client(["--preset", "lim.json", "--name", "tl"], cwd: d)
        #expect(host.waitForLine { $0.hasPrefix("ready:") } != nil, "\(host.errors)")
        let own = try host.status()["latencyFrames"] as? Int ?? -1
        usleep(300_000)
        func playbackLatency() throws -> String {
            let listing = try server.jackTool("jack_lsp", ["-l", "tl:in_1"])
            return listing.split(separator: "\n").first { $0.contains("playback latency") }.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        }
        let at48 = try playbackLatency()
        print("PipeWire: the limiter's \(own) frames of lookahead on tl:in_1 at once: \(at48)")
        #expect(own > 0 && at48 == "port playback latency = [ \(own) \(own) ] frames", "\(at48)")

        try server.force("clock.force-rate", 44100)
        #expect(host.waitForLine { $0.hasPrefix("sample rate: 44100 Hz") } != nil, "\(host.output)")
        usleep(300_000)
        let status44 = try host.status()
        let own44 = status44["latencyFrames"] as? Int ?? -1
        let at44 = try playbackLatency()
        print("PipeWire at 44.1 kHz: status sampleRate \(status44["sampleRate"] ?? "?"), latency \(own44) frames, \(at44)")
        #expect(status44["sampleRate"] as? Double == 44100 && own44 > 0 && own44 < own && at44 == "port playback latency = [ \(own44) \(own44) ] frames")
        try server.force("clock.force-rate", 0)

        // Stopped for 300 ms: PipeWire's clock runs on without us.
        kill(host.process.processIdentifier, SIGSTOP)
        usleep(300_000)
        kill(host.process.processIdentifier, SIGCONT)
        #expect(host.waitForLine { $0.hasPrefix("missed cycles:") } != nil, "\(host.output)")
        let status = try host.status()
        let missedFrames = status["missedFrames"] as? Int ?? 0
        print("PipeWire: stopped 300 ms: missed cycles \(status["missedCycles"] ?? "?"), \(missedFrames) frames; xruns \(status["xruns"] ?? "?")")
        #expect(missedFrames >= 9600, "a 300 ms stop misses at least 200 ms of frames: \(missedFrames)")

        server.stop()
        let exit = host.waitForExit(timeout: 10)
        print("PipeWire daemon stopped: timbre live exit \(exit.map(String.init) ?? "none"), \(host.errors.split(separator: "\n").last ?? "")")
        #expect(exit == 2 && host.errors.contains("JACK server shut down"))
    }
}
