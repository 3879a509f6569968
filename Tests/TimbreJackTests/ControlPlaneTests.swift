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
        // save --positions: the player's place as its offset, playing as autoplay.
        var mark = live.output.count
        live.send("pause backing")
        #expect(live.waitForLine(after: mark) { $0 == "ok: pause backing" } != nil)
        let place = (try live.status()["players"] as? [String: Any])?["backing"] as? [String: Any]
        live.send("save --positions paused.json")
        #expect(live.waitForLine(after: mark) { $0 == "ok: saved paused.json with player positions" } != nil, "\(live.output) \(live.errors)")
        let saved = try PresetDecoder.decode(Data(contentsOf: URL(fileURLWithPath: d + "/paused.json")))
        let player = saved.playerSpecs.first?.spec
        print("save --positions while paused at \(place?["currentTime"] ?? "?") s: offset \(player?.offset ?? -1), autoplay \(player?.autoplay ?? true)")
        #expect(abs((player?.offset ?? -1) - (place?["currentTime"] as? Double ?? -2)) <= 0.001 && player?.autoplay == false)
        live.send("play backing")
        mark = live.output.count
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

/// A client of `timbre live --control-socket`: writes lines, reads the replies.
struct ControlSocketClient {
    let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) } }
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard rc == 0 else { let why = String(cString: strerror(errno)); Glibc.close(fd); throw ControlError("connect \(path): \(why)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) { var sent = 0; while sent < bytes.count { let n = write(fd, Array(bytes[sent...]), bytes.count - sent); if n <= 0 { return }; sent += n } }
    func send(_ line: String) { send(Array((line + "\n").utf8)) }

    /// The next reply line (nil after 5 s of silence or when the host closed the connection).
    mutating func readLine() -> String? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return nil }
            pending += buffer[0..<n]
        }
    }

    /// Sends `line` and returns the reply.
    mutating func ask(_ line: String) -> String? { send(line); return readLine() }

    func close() { Glibc.close(fd) }
}

extension LiveJackTests {
    /// `--control-socket`: a Unix-domain socket created 0600 that speaks the stdin commands and
    /// answers the client; another user cannot connect; a regular file at the path is never
    /// replaced (exit 1), a stale socket is; the socket is gone after quit and after SIGTERM.
    /// Fuzzed: 3,000 random lines, raw bytes, NULs, invalid UTF-8 and a 1 MB line over the
    /// socket; the host stays up, answers `status` on the socket, and renders exactly the
    /// offline plan of the document it ends with.
    @Test func controlSocketOnlyItsUserAndFuzzed() throws {
        let server = try JackServer()
        defer { server.stop() }
        let d = try ProcessRunner.temporaryDirectory("timbre-socket")
        chmod(d, 0o755)  // so that another user could reach the socket if its own mode let them
        let path = d + "/ctl.sock"

        // A regular file at the path is refused and left alone.
        _ = FileManager.default.createFile(atPath: path, contents: Data("mine".utf8))
        let refused = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--control-socket", path])
        #expect(refused.waitForExit(timeout: 10) == 1 && refused.errors.contains("exists and is not a socket"), "\(refused.errors)")
        #expect((try? String(contentsOfFile: path, encoding: .utf8)) == "mine")
        try FileManager.default.removeItem(atPath: path)

        // A stale socket (bound, nobody listening) is replaced.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un(); address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(stale)

        let live = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--control-socket", path])
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "\(live.errors)")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")
        var client = try ControlSocketClient(path: path)
        let set = client.ask("set trim.gain -2")
        let bad = client.ask("set nosuch.gain 1")
        let status = client.ask("status") ?? ""
        print("control socket mode \(String(info.st_mode & 0o777, radix: 8)): \(set ?? "none") | \(bad ?? "none") | \(status.prefix(60))…")
        #expect(set == "ok: set trim.gain -2")
        #expect(bad?.hasPrefix("error: no node with id \"nosuch\"") == true)
        #expect(status.hasPrefix("status: {") && status.contains(#""gain":-2"#))

        // Another user (nobody) cannot connect.
        let other = try ProcessRunner.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                                                               "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint('connected')", path])
        print("as nobody: exit \(other.status), \(other.stderr.split(separator: "\n").last ?? "")")
        #expect(other.status != 0 && other.stderr.contains("PermissionError") && !other.stdout.contains("connected"))

        // Fuzz: random and mutated lines, raw bytes, a line of 1 MB.
        var rng = SeededRandom(seed: 23)
        var sent = 0
        for k in 0..<3000 {
            if k % 10 == 0 {
                client.send((0..<Int.random(in: 1...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } + [10])
            } else {
                let line = ControlFuzz.line(k, &rng)
                let verb = line.split(separator: " ").first.map(String.init) ?? ""
                if ["quit", "exit", "load", "save", "record"].contains(verb) || line.contains("\n") { continue }
                client.send(line)
            }
            sent += 1
        }
        client.send([UInt8](repeating: UInt8(ascii: "x"), count: 1_000_000) + [10])
        // Replies arrive in order; the last one answers this status.
        client.send("status")
        var last = "", replies = 0
        while let line = client.readLine() {
            replies += 1; last = line
            if line.hasPrefix("status: ") { break }
        }
        print("control socket fuzz: \(sent) lines and a 1 MB line sent, \(replies) replies, the last \(last.prefix(40))…")
        #expect(live.process.isRunning && last.hasPrefix("status: {"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(last.dropFirst("status: ".count).utf8)) as? [String: Any])
        try Self.expectRendersItsDocument(live, json["document"], after: "the socket fuzz")

        // quit over the socket: bye, exit 0, the socket file is gone.
        #expect(client.ask("quit") == "bye")
        client.close()
        #expect(live.waitForExit(timeout: 5) == 0)
        #expect(!FileManager.default.fileExists(atPath: path))

        // SIGTERM removes it too.
        let again = try LiveProcess(["--preset", Self.writePreset(), "--name", "tl", "--control-socket", path])
        #expect(again.waitForLine { $0.hasPrefix("ready:") } != nil, "\(again.errors)")
        #expect(FileManager.default.fileExists(atPath: path))
        kill(again.process.processIdentifier, SIGTERM)
        #expect(again.waitForExit(timeout: 5) == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
