import Foundation
import Testing
import TimbreControl
import TimbreEngine
import TimbreTestSupport

/// The control plane only its user drives (issue #23, §4), against a running `timbre live`:
/// a control message naming a plugin file by path is refused and nothing is loaded (a probe
/// library whose constructor would leave a marker file); presets load from the presets folder
/// only (no `..`, no link out of it); OSC errors go back to the sender.
extension LiveJackTests {
    /// A LADSPA "plugin" whose constructor creates `$TIMBRE_PROBE_MARKER` when it is loaded.
    static func probeLibrary(in d: String) throws -> String {
        let source = d + "/probe.c", library = d + "/probe.so"
        _ = FileManager.default.createFile(atPath: source, contents: Data("""
            #include <fcntl.h>
            #include <stdlib.h>
            #include <unistd.h>
            __attribute__((constructor)) static void probe(void) {
                const char *p = getenv("TIMBRE_PROBE_MARKER");
                if (p) close(creat(p, 0644));
            }
            const void *ladspa_descriptor(unsigned long index) { (void)index; return 0; }
            """.utf8))
        _ = try ProcessRunner.tool("cc", ["-shared", "-fPIC", "-o", library, source])
        return library
    }

    @Test func controlMessagesCannotLoadCodeOrFilesFromElsewhere() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-control-plane")
        let library = try Self.probeLibrary(in: d)
        let marker = d + "/loaded"
        try FileManager.default.createDirectory(atPath: d + "/presets", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: d + "/presets/inside.json", contents: Data(#"{"version": 1, "name": "inside", "chain": [{"type": "gain", "gain": -3}]}"#.utf8))
        _ = FileManager.default.createFile(atPath: d + "/outside.json", contents: Data(#"{"version": 1, "name": "outside", "chain": []}"#.utf8))
        try FileManager.default.createSymbolicLink(atPath: d + "/presets/escape.json", withDestinationPath: d + "/outside.json")
        _ = FileManager.default.createFile(atPath: d + "/presets/with-path.json",
                                           contents: Data(#"{"version": 1, "name": "with a path", "chain": [{"type": "plugin", "ladspa": "\#(library):probe"}]}"#.utf8))
        let port = UInt16(23000 + Int(getpid() % 20000))
        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--osc-port", "\(port)", "--presets-dir", "presets"],
                                   environment: ["TIMBRE_PROBE_MARKER": marker], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")

        // OSC: /timbre/insert naming the library by path; the reply goes to the sender.
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET); addr.sin_port = port.bigEndian; addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let node = #"{"type": "plugin", "id": "x", "ladspa": "\#(library):probe"}"#
        let d1 = [UInt8](OSCMessage(address: "/timbre/insert", arguments: [.int(0), .string(node)]).encoded())
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, d1, d1.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let got = recv(fd, &buffer, buffer.count, 0)
        let reply = got > 0 ? try? OSCMessage.parse(Data(buffer[0..<got])) : nil
        var replyText = ""
        if case .string(let t)? = reply?.arguments.first { replyText = t }
        print("OSC insert of a plugin by path: reply \(reply?.address ?? "none"): \(replyText)")
        #expect(reply?.address == "/timbre/error" && replyText.contains("names a plugin file by path"))

        // stdin: the same insert, and a load of a preset that names it; both refused.
        var mark = live.output.count
        live.send("insert 0 " + node)
        live.send("load with-path.json")
        live.send("load ../outside.json")
        live.send("load escape.json")
        live.send("load " + d + "/outside.json")
        live.send("load inside.json")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: loaded inside.json") } != nil, "\(live.errors)")
        let errors = live.errors
        print("control-plane refusals:\n" + errors.split(separator: "\n").suffix(6).joined(separator: "\n"))
        #expect(errors.components(separatedBy: "names a plugin file by path").count - 1 >= 3, "OSC, stdin insert and the load are refused")
        #expect(errors.components(separatedBy: "is outside the presets folder").count - 1 == 3, "../, a link out, an absolute path: \(errors)")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing was loaded")
        mark = live.output.count
        live.send("status")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("status:") && $0.contains("\"preset\":\"inside\"") } != nil)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)

        // The same file in a preset given on the command line is the user's own: loaded (the
        // probe's constructor runs; it has no plugin, so the preset is then refused).
        let own = try LiveProcess(["--preset", "presets/with-path.json", "--name", "tl2"], environment: ["TIMBRE_PROBE_MARKER": marker], cwd: d)
        _ = own.waitForExit(timeout: 10)
        #expect(FileManager.default.fileExists(atPath: marker), "a command-line preset may name a plugin by path")
    }

    /// The master bus is adjustable live (`set master.volume`, `set master.pan`, or by the id
    /// the preset gives it), and `save` writes the running document atomically over the file
    /// given with --preset, or into the presets folder only; the saved file loads back as the
    /// same preset.
    @Test func masterEditsAndSave() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-save")
        let json = #"{"version": 1, "name": "desk", "graph": {"channels": [{"id": "voice", "input": [0, 1]}], "master": {"chain": [{"type": "gain", "id": "trim", "gain": -1}]}}}"#
        _ = FileManager.default.createFile(atPath: d + "/desk.json", contents: Data(json.utf8))
        let live = try LiveProcess(["--preset", "desk.json", "--name", "tl"], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        let mark = live.output.count
        live.send("set master.volume 0.5")
        live.send("set master.pan 0.25")
        live.send("save")
        live.send("save ../elsewhere.json")
        live.send("save copy.json")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: saved copy.json") } != nil, "\(live.output) \(live.errors)")
        let saved = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: d + "/desk.json")))) as? [String: Any]
        let master = (saved?["graph"] as? [String: Any])?["master"] as? [String: Any]
        print("saved desk.json master: \(master ?? [:]); errors: \(live.errors)")
        #expect(master?["volume"] as? Double == 0.5 && master?["pan"] as? Double == 0.25)
        #expect(live.errors.contains("is outside the presets folder") && !FileManager.default.fileExists(atPath: d + "/../elsewhere.json"))
        #expect(FileManager.default.fileExists(atPath: d + "/copy.json"))
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: d)).contains { $0.hasSuffix(".tmp") })
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
        // The saved file is the preset the host ran: a render of it equals the live document's.
        let reloaded = try PresetDecoder.decode(Data(contentsOf: URL(fileURLWithPath: d + "/desk.json")))
        guard case .graph(let g) = reloaded.form else { Issue.record("not a graph"); return }
        #expect(g.master.volume == 0.5 && g.master.pan == 0.25 && g.master.chain.count == 1)
    }
    /// `--inputs 0` for a graph of players only: no input ports, the player plays out of the
    /// outputs, a take of the (absent) inputs is refused, and `--watch` says which live edits a
    /// reload of the changed file replaces and keeps them in a backup file.
    @Test func playersOnlyWithoutInputsAndWatchKeepsEdits() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-inputs0")
        _ = try ProcessRunner.tool("sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", d + "/backing.wav", "synth", "4", "sine", "440", "gain", "-12"])
        let json = #"{"version": 1, "name": "players", "graph": {"channels": [{"id": "backing", "player": {"file": "backing.wav"}}], "master": {"volume": 1}}}"#
        _ = FileManager.default.createFile(atPath: d + "/players.json", contents: Data(json.utf8))
        let live = try LiveProcess(["--preset", "players.json", "--name", "tp", "--inputs", "0", "--watch"], cwd: d)
        #expect(live.waitForLine { $0.hasPrefix("ready: tp 0 in / 2 out") } != nil, "\(live.output) \(live.errors)")
        let ports = try ProcessRunner.tool("/usr/bin/jack_lsp", [])
        #expect(ports.contains("tp:out_1") && !ports.contains("tp:in_"), "\(ports)")
        let recorder = try TapClient(name: "rec", channels: 1, player: false, length: 48_000)
        try recorder.jack.connect("tp:out_1", recorder.portNames[0])
        recorder.start()
        #expect(recorder.waitUntilDone(timeout: 10))
        let peak = recorder.channel(0).map { abs($0) }.max() ?? 0
        print("players only, --inputs 0: output peak \(peak) (the file's 0.251)")
        #expect(abs(peak - 0.2512) < 0.01)
        var mark = live.output.count
        live.send("record start nope.wav inputs")
        #expect(ProcessRunner.wait(timeout: 5) { live.errors.contains("this host has no input ports to record") }, "\(live.errors)")
        // A live edit, then the file changes on disk.
        live.send("set master.volume 0.5")
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: set master.volume") } != nil)
        mark = live.output.count
        usleep(1_100_000)  // a new modification time
        _ = FileManager.default.createFile(atPath: d + "/players.json", contents: Data(json.replacingOccurrences(of: #""name": "players""#, with: #""name": "players 2""#).utf8))
        let note = live.waitForLine(after: mark) { $0.hasPrefix("note: players.json changed on disk") }
        print("--watch: \(note ?? "no note")")
        #expect(note?.contains("graph.master.volume 1 → 0.5") == true && note?.contains("players.json.live-edits.json") == true)
        let backup = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: d + "/players.json.live-edits.json")))) as? [String: Any]
        #expect(((backup?["graph"] as? [String: Any])?["master"] as? [String: Any])?["volume"] as? Double == 0.5)
        #expect(live.waitForLine(after: mark) { $0.hasPrefix("ok: loaded players.json (players 2)") } != nil)
        live.send("quit")
        #expect(live.waitForExit(timeout: 5) == 0)
    }
}
