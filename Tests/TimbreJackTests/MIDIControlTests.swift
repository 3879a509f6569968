import Foundation
import Testing
import TimbreEngine
import TimbreTestSupport

/// MIDI control of `timbre live --midi` under jackd (issue #23, §2), from a JACK client of our
/// own that sends MIDI: controllers (7- and 14-bit, per channel), a switch, a note with a
/// release, a program change that loads a preset, `learn`, a flood of controller moves, and
/// 20,000 random MIDI byte strings.
extension LiveJackTests {
    static let midiPresetJSON = #"""
    {"version": 1, "name": "midi desk", "chain": [
      {"type": "highpass", "id": "hp", "frequency": 60, "slope": 24},
      {"type": "eq", "id": "eq", "bands": [{"frequency": 300, "gain": -3}, {"frequency": 3000, "gain": 4, "q": 1.5}]},
      {"type": "gain", "id": "trim", "gain": -2},
      {"type": "pan", "id": "pan", "pan": 0}
    ], "midi": [
      {"cc": 7, "target": "trim.gain", "min": -40, "max": 0},
      {"cc": 16, "bits": 14, "target": "eq.bands[1].frequency", "min": 100, "max": 10000, "curve": "log"},
      {"cc": 64, "target": "hp.bypass"},
      {"cc": 10, "channel": 2, "target": "pan.pan"},
      {"note": 60, "command": "bypass eq on", "release": "bypass eq off"},
      {"program": 2, "command": "load other.json"}
    ]}
    """#

    /// The value at `path` (`chain` node id, then keys) in a status reply's document.
    static func documentValue(_ status: [String: Any], node: String, _ keys: [Any]) -> Any? {
        guard let doc = status["document"] as? [String: Any], let chain = doc["chain"] as? [[String: Any]],
              var value: Any = chain.first(where: { $0["id"] as? String == node }) else { return nil }
        for key in keys {
            if let k = key as? String { guard let o = value as? [String: Any], let v = o[k] else { return nil }; value = v }
            if let i = key as? Int { guard let a = value as? [Any], i < a.count else { return nil }; value = a[i] }
        }
        return value
    }

    @Test func midiControlsParametersCommandsAndLearns() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-midi")
        _ = FileManager.default.createFile(atPath: d + "/desk.json", contents: Data(Self.midiPresetJSON.utf8))
        _ = FileManager.default.createFile(atPath: d + "/other.json", contents: Data(#"{"version": 1, "name": "other", "chain": [{"type": "gain", "id": "trim", "gain": -6}]}"#.utf8))
        let sender = try MIDISender(name: "keys")
        let live = try LiveProcess(["--preset", "desk.json", "--name", "tl", "--midi", "--connect-midi", sender.portName], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        #expect(live.waitForLine { $0.hasPrefix("connected: keys:midi_out") } != nil, "\(live.output)")

        /// Sends, waits until JACK took them and the control loop applied them (> 2 intervals).
        func play(_ messages: [[UInt8]]) {
            sender.send(messages)
            #expect(sender.waitUntilSent(timeout: 5))
            usleep(120_000)
        }
        func value(_ node: String, _ keys: [Any]) throws -> Double? { Self.documentValue(try live.status(), node: node, keys) as? Double }
        func flag(_ node: String, _ key: String) throws -> Bool { Self.documentValue(try live.status(), node: node, [key]) as? Bool ?? false }

        // 7-bit controller over a range; the last value wins.
        play([[0xB0, 7, 127], [0xB0, 7, 0]])
        #expect(try value("trim", ["gain"]) == -40)
        play([[0xB0, 7, 100]])
        let trim = try value("trim", ["gain"])
        #expect(abs((trim ?? 0) - (-40 + 40 * 100 / 127.0)) < 1e-5, "trim \(trim ?? .nan)")
        // 14-bit: MSB at 16, LSB at 48, on a log curve from 100 Hz to 10 kHz.
        play([[0xB0, 16, 64], [0xB0, 48, 0]])
        let frequency = try value("eq", ["bands", 1, "frequency"]) ?? 0
        let expectedFrequency = 100 * pow(100, 8192 / 16383.0)
        print("MIDI 14-bit CC 16/48 = 8192: eq.bands[1].frequency \(frequency) Hz (expected \(expectedFrequency))")
        #expect(abs(frequency - expectedFrequency) < 1e-3)
        // A switch: on from 64 up.
        play([[0xB0, 64, 127]])
        #expect(try flag("hp", "bypass"))
        play([[0xB0, 64, 10]])
        #expect(try !flag("hp", "bypass"))
        // Channels: the pan mapping listens to channel 2 only.
        play([[0xB0, 10, 0]])
        #expect(try value("pan", ["pan"]) == 0)
        play([[0xB1, 10, 0]])
        #expect(try value("pan", ["pan"]) == -1)
        // A note runs its command; its release runs the other.
        play([[0x90, 60, 100]])
        #expect(try flag("eq", "bypass"))
        play([[0x80, 60, 0]])
        #expect(try !flag("eq", "bypass"))

        // A flood: 3,000 controller moves at ~3,000 a second, ending at 64. The host keeps
        // answering, and the last value is in place soon after the last message.
        let flood = (0..<3000).map { k -> [UInt8] in [0xB0, 7, k == 2999 ? 64 : UInt8(k % 128)] }
        sender.send(flood)
        var slowest = 0.0
        while sender.sentCount < sender.context.pointee.queued.load(ordering: .relaxed) {
            let t0 = Date()
            _ = try live.status()
            slowest = max(slowest, Date().timeIntervalSince(t0))
            usleep(50_000)
        }
        let sentAt = Date()
        var settled: Double?
        for _ in 0..<1000 where settled == nil {
            if let g = try value("trim", ["gain"]), abs(g - (-40 + 40 * 64 / 127.0)) < 1e-5 { settled = Date().timeIntervalSince(sentAt) }
            else { usleep(10_000) }
        }
        let midiStatus = try live.status()["midi"] as? [String: Any] ?? [:]
        print("MIDI flood of 3,000 CCs: slowest status reply during it \(String(format: "%.3f", slowest)) s; last value in place \(settled.map { String(format: "%.3f", $0) } ?? "never") s after the last message; \(midiStatus["received"] ?? "?") received, \(midiStatus["coalesced"] ?? "?") coalesced, \(midiStatus["edits"] ?? "?") edits")
        // The host kept answering and the last value arrived (how fast is the benchmarks' to
        // judge, not a test's on a shared 2-core machine: the figures are printed above).
        #expect(slowest.isFinite && settled != nil)
        #expect((midiStatus["coalesced"] as? Int ?? 0) > 1000)

        // learn: the next controller that moves (CC 21 on channel 3) takes eq.bands[0].gain.
        var mark = live.output.count
        live.send("learn eq.bands[0].gain")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: learn eq.bands[0].gain") } != nil, "\(live.output) \(live.errors)")
        mark = live.output.count
        play([[0xB2, 21, 127]])
        let learned = live.waitForLine(after: mark) { $0.hasPrefix("ok: learned") }
        print("MIDI learn: \(learned ?? "nothing")")
        #expect(learned?.contains(#""cc":21"#) == true && learned?.contains(#""channel":3"#) == true)
        play([[0xB2, 21, 0]])
        #expect(try value("eq", ["bands", 0, "gain"]) == -20)
        let mappings = (try live.status()["midi"] as? [String: Any])?["mappings"] as? [[String: Any]] ?? []
        #expect(mappings.count == 7 && mappings.contains { $0["target"] as? String == "eq.bands[0].gain" && $0["cc"] as? Int == 21 })
        // save keeps the mappings, the learned one included.
        mark = live.output.count
        live.send("save")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: saved") } != nil)
        let saved = try PresetDecoder.decode(Data(contentsOf: URL(fileURLWithPath: d + "/desk.json")))
        #expect(saved.midi.count == 7 && saved.midi.contains { $0.trigger == .controlChange(21, fine: false) && $0.channel == 3 })

        // Program change 2 loads other.json (from the presets folder): its mappings (none) apply.
        mark = live.output.count
        play([[0xC0, 2]])
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: loaded other.json") } != nil, "\(live.output) \(live.errors)")
        play([[0xB0, 7, 0]])
        #expect(try value("trim", ["gain"]) == -6, "the old mapping no longer applies")
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }

    /// 20,000 random MIDI byte strings (1–12 bytes: running-status fragments, SysEx, real-time
    /// bytes, every status) at a mapped host: it stays up, answers `status`, and renders the
    /// offline plan of the document it ends with.
    @Test func midiFuzz() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-midi-fuzz")
        var json = Self.midiPresetJSON.replacingOccurrences(of: #"{"program": 2, "command": "load other.json"}"#, with: #"{"program": 2, "command": "bypass hp on"}"#)
        json = json.replacingOccurrences(of: #""name": "midi desk""#, with: #""name": "fuzzed""#)
        _ = FileManager.default.createFile(atPath: d + "/desk.json", contents: Data(json.utf8))
        let sender = try MIDISender(name: "noise", perCycle: 64)
        let live = try LiveProcess(["--preset", "desk.json", "--name", "tl", "--midi", "--connect-midi", sender.portName], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        var rng = SeededRandom(seed: 97)
        let messages = (0..<20_000).map { k -> [UInt8] in
            let n = Int.random(in: 1...12, using: &rng)
            var m = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if k % 3 == 0 { m[0] = [0xB0, 0xB1, 0x90, 0x80, 0xC0, 0xF0, 0xF8][Int.random(in: 0...6, using: &rng)] }
            return m
        }
        sender.send(messages)
        #expect(sender.waitUntilSent(timeout: 30))
        usleep(300_000)
        #expect(live.process.isRunning)
        let status = try live.status()
        let midi = status["midi"] as? [String: Any] ?? [:], input = status["midiInput"] as? [String: Any] ?? [:]
        print("MIDI fuzz: 20,000 random byte strings sent; host up; \(midi["received"] ?? "?") channel messages read, \(input["ignored"] ?? "?") ignored (SysEx, longer than 3 bytes or no status byte), \(input["dropped"] ?? "?") dropped, \(midi["edits"] ?? "?") edits")
        try Self.expectRendersItsDocument(live, status["document"], after: "the MIDI fuzz")
    }
}

extension LiveJackTests {
    /// docs/LIVE.md's MIDI example is a preset the decoder reads, with its six mappings.
    @Test func midiExampleInTheDocsDecodes() throws {
        let page = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("docs/LIVE.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "## MIDI").dropFirst().first)
        let json = try #require(section.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let preset = try PresetDecoder.decode(Data(json.utf8))
        #expect(preset.midi.count == 6)
        #expect(preset.midi.contains { $0.trigger == .controlChange(16, fine: true) && $0.curve == .log })
    }
}
