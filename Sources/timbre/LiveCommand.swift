import TimbreHost
import ArgumentParser
import Atomics
import Foundation
import TimbreEngine
import TimbrePlugins
import TimbreControl
import TimbreFile
import TimbreJack
import TimbreWeb

/// Set by SIGINT/SIGTERM (async-signal-safe atomic store), read by the control loop.
let stopSignal = ManagedAtomic<Int32>(0)

struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Run a preset live as a JACK client; change it while it plays.",
        usage: "timbre live --preset <preset> [<options>]",
        discussion: """
        Commands on stdin, on a Unix-domain socket (--control-socket: only this \
        user can connect; replies go to the client), and over OSC (--osc-port, \
        loopback only, any local user can send) at the address shown:
          set <node>.<param> <value>     /timbre/set s f
              e.g. set eq.bands[3].gain 4, set trim.gain -6
          bypass <node> on|off           /timbre/bypass s i
          load <preset.json>             /timbre/load s
              replace the whole preset (from --presets-dir)
          save [--positions] [preset.json]
                                         /timbre/save [T|F] [s]
              write the running preset (and MIDI mappings), by default over the
              --preset file; --positions keeps where each player is
          insert <position> <node JSON>  /timbre/insert i s
              e.g. insert 0 {"type": "gain", "id": "pad", "gain": -6}
          remove <node>                  /timbre/remove s
          play|pause|stop <player>       /timbre/play s, /timbre/pause s,
                                         /timbre/stop s
              a player channel; stop pauses and rewinds
          seek <player> <seconds>        /timbre/seek s f
              sample-exact, 5 ms fades; set <player>.rate 1.5 and set <player>.loops 2
              change a playing player
          learn <node>.<param> [min max [linear|log|db]]
                                         /timbre/learn s [f f [s]]
              with --midi: bind the next controller that moves (the preset's midi
              section maps controllers, notes and program changes)
          status                         /timbre/status
              one line of JSON: preset, rate, buffer, xruns, DSP load, NaN blocks,
              meters, players
          meters                         /timbre/meters
              as JSON: the output (master: peaks, RMS, loudness) and every meter,
              loudness and dynamics node (OSC replies go to the sender)
          record start <file> [master|inputs|<channel>]
                                         /timbre/record s "start" s s
              record the output (master), the dry inputs, or a channel's or group's bus
              of a graph; several takes may run
          record stop|pause|resume|marker [label]|discard|status
                                         /timbre/record s …
          quit

        Players print looped: <id>, finished: <id> and underrun lines; an OSC \
        client that sends /timbre/subscribe receives them as /timbre/event \
        s:kind s:id.

        Every change crossfades over 15 ms and smooths gains, so nothing clicks. \
        An invalid command, datagram or preset is reported (at most 10 errors a \
        second) and the running graph is kept. OSC bundles are accepted; their \
        messages apply in order. Numbers are decimal (no nan, inf or hex); \
        switches (bypass, mute, solo) take 0/1, on/off.

        The server is found through $JACK_DEFAULT_SERVER like every JACK client. \
        Exit status: 0 after quit/SIGINT/SIGTERM, 1 for a bad preset or usage, \
        2 when JACK fails or shuts down.
        """)

    @Option(name: .long, help: "Preset JSON file or shipped preset name.") var preset: String
    @Option(name: .long, help: "JACK client name.") var name: String = "timbre"
    @Option(name: .long, help: "Number of input ports (0 for a graph of players only).") var inputs: Int = 2
    @Option(name: .long, help: "Number of output ports.") var outputs: Int = 2
    @Option(name: .long, help: "Ports to connect to our inputs, comma-separated, in order.") var connectInputs: String?
    @Option(name: .long, help: "Ports to connect our outputs to, comma-separated, in order.") var connectOutputs: String?
    @Option(name: .long, help: "Listen for OSC on 127.0.0.1:PORT (UDP; off unless given). Any process of any user on this machine can send to it: what it carries cannot load plugin files by path, nor presets outside --presets-dir.") var oscPort: Int?
    @Flag(name: .long, help: "Open a JACK MIDI input port midi_in: the preset's midi section maps controllers, notes and program changes to parameters and commands; `learn <node>.<param>` binds the next controller that moves.") var midi = false
    @Option(name: .long, help: "MIDI ports to connect to midi_in, comma-separated (with --midi).") var connectMidi: String?
    @Option(name: .long, help: "Serve the control page at [HOST:]PORT (HOST defaults to 127.0.0.1). Loopback: any local user's browser can open it. Any other address needs a token (--http-token, or one is generated and printed in the URL).") var http: String?
    @Option(name: .long, help: "The token the control page needs (required beyond loopback; generated when not given).") var httpToken: String?
    @Option(name: .long, help: "Listen for commands on a Unix-domain socket at PATH, created with mode 0600: only this user can connect. One command per line, as on stdin; replies (ok:, error:, status:, meters:) go back to the client.") var controlSocket: String?
    @Option(name: .long, help: "The folder `load` commands (stdin, OSC) read presets from (default: the current one).") var presetsDir: String = "."
    @Flag(name: .long, help: "Let `load` commands read presets from any path.") var allowAnyPath = false
    @Flag(name: .long, help: "Reload the preset file when it changes.") var watch = false
    @Flag(name: .long, help: "Print a meter line about ten times a second: the output (master) and every meter, loudness and dynamics node.") var meters = false

    func run() throws {
        guard (0...32).contains(inputs), (1...32).contains(outputs) else { throw HostError.usage("--inputs must be 0…32 (0: a graph of players only) and --outputs 1…32") }
        if let p = oscPort, !(1...65535).contains(p) { throw HostError.usage("--osc-port \(p) is out of range (allowed 1…65535)") }
        let (document, label) = try Self.loadDocument(preset)
        let host: JackHost
        do {
            let directory = FileManager.default.fileExists(atPath: preset) ? URL(fileURLWithPath: preset).deletingLastPathComponent().path : nil
            host = try JackHost(name: name, document: document, inputs: inputs, outputs: outputs, midiInput: midi,
                                host: .files(in: directory, plugins: PluginHost.loader))
        } catch let e as PresetError {
            throw HostError.usage("\(label): \(e)")
        } catch {
            throw HostError.io("JACK: \(error)")
        }
        let prefetcher = PlayerPrefetcher()
        prefetcher.readDelay = Double(ProcessInfo.processInfo.environment["TIMBRE_TEST_READ_DELAY_MS"] ?? "").map { $0 / 1000 } ?? 0
        prefetcher.update(Array(host.engine.playerStates.values))
        prefetcher.start()
        defer { prefetcher.stop() }
        do { try host.activate() } catch { throw HostError.io("JACK: \(error)") }
        for (k, port) in (connectInputs?.split(separator: ",").map(String.init) ?? []).enumerated() where k < inputs {
            do { try host.jack.connect(port, host.inputPortNames[k]) } catch { reportError("\(error)") }
        }
        for (k, port) in (connectOutputs?.split(separator: ",").map(String.init) ?? []).enumerated() where k < outputs {
            do { try host.jack.connect(host.outputPortNames[k], port) } catch { reportError("\(error)") }
        }
        if let midiPort = host.midiPortName {
            for port in connectMidi?.split(separator: ",").map(String.init) ?? [] {
                do { try host.jack.connect(port, midiPort) } catch { reportError("\(error)") }
            }
        } else if connectMidi != nil {
            throw HostError.usage("--connect-midi needs --midi")
        }
        signal(SIGINT) { _ in stopSignal.store(SIGINT, ordering: .relaxed) }
        signal(SIGTERM) { _ in stopSignal.store(SIGTERM, ordering: .relaxed) }
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)  // a file size limit fails a take's write (EFBIG) instead of killing the host
        // The parent (or libjack) may have left these blocked in this thread: unblock them so
        // the handlers above run here, whatever the other threads block.
        var wanted = sigset_t()
        sigemptyset(&wanted); sigaddset(&wanted, SIGINT); sigaddset(&wanted, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)

        let inbox = ControlInbox()
        inbox.readStandardInput()
        if let port = oscPort {
            do { try inbox.listenOSC(port: UInt16(port)) } catch { throw HostError.io("OSC: \(error)") }
        }
        if let path = controlSocket {
            do { try inbox.listenUnixSocket(path: path) } catch { throw HostError.usage("--control-socket: \(error)") }
        }
        defer { inbox.closeControlSocket() }
        var web: WebControlServer?
        if let http {
            let parts = http.split(separator: ":", omittingEmptySubsequences: false)
            let (address, portText) = parts.count >= 2 ? (parts.dropLast().joined(separator: ":"), String(parts.last!)) : ("127.0.0.1", http)
            guard let port = Int(portText), (0...65535).contains(port), !address.isEmpty else {
                throw HostError.usage("--http \(http): expected [HOST:]PORT, e.g. 127.0.0.1:8080 or 8080")
            }
            let token = httpToken ?? (WebAccessPolicy.isLoopback(address) ? nil : WebAccessPolicy.makeToken())
            let server = WebControlServer(policy: WebAccessPolicy(host: address, port: port, token: token), assets: WebPage.assets,
                                          connected: { inbox.push(.webConnected($0)) }, receive: { inbox.push(.webMessage($0, from: $1)) })
            do { _ = try server.start() } catch { throw HostError.io("--http \(http): \(error)") }
            web = server
        }
        defer { web?.stop() }
        let takes = TakeSession(host: host, say: say, fail: reportError)
        let folder = presetsDir, anyPath = allowAnyPath
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw HostError.usage("--presets-dir \(folder) is not a folder")
        }
        // `load` from a control message: a file inside the presets folder (links followed), or
        // a shipped preset's name; anything else only with --allow-any-path.
        let controlLoad: (String) throws -> (JSONValue, String) = { argument in
            if anyPath { return try Self.loadDocument(argument) }
            let resolved = try ControlPolicy.presetPath(argument, inside: folder)
            if FileManager.default.fileExists(atPath: resolved) { return (try Self.loadDocument(resolved).0, argument) }
            if !argument.contains("/") { return try Self.loadDocument(argument) }  // a shipped preset's name
            throw ControlError("\(argument): no such preset in \(folder)")
        }
        let controlClock = ThreadCPUClock.current  // this thread runs the control loop
        let interpreter = ControlInterpreter(engine: host.engine, loadDocument: controlLoad, hostStatus: {
            [
                "takes": takes.statusJSON,
                "bufferSize": .number(Double(host.bufferSize)),
                "cycles": .number(Double(host.cycles)),
                "xruns": .number(Double(host.xruns)),
                "missedCycles": .number(Double(host.missedCycles)),
                "missedFrames": .number(Double(host.missedFrames)),
                "dspLoadPercent": .number((host.jack.cpuLoad * 100).rounded() / 100),
                "cpuSeconds": Self.cpuSeconds(audio: host.audioThreadCPUSeconds, control: controlClock?.seconds, web: web?.threadClock?.seconds),
                "inputs": .array(host.inputPortNames.map { .string($0) }),
                "outputs": .array(host.outputPortNames.map { .string($0) }),
                "players": .object(Dictionary(PlayerStatus.all(host.engine).map { ($0.id, $0.json) }) { a, _ in a }),
                "midiInput": host.midiPortName.map { .object(["port": .string($0), "dropped": .number(Double(host.midiDropped)),
                                                               "ignored": .number(Double(host.midiIgnored))]) } ?? .null,
            ]
        })
        var webSession: WebSession?
        if let web {
            let schema = (try? PresetDecoder.parse(Data(EmbeddedPresets.schema.utf8))) ?? .object([:])
            webSession = WebSession(server: web, host: host, interpreter: interpreter, takes: takes, presetsFolder: folder, schema: schema)
        }
        if midi { interpreter.midi = MIDIMapper(mappings: host.engine.preset.midi, range: { MIDIMapper.defaultRange($0, in: host.engine.preset) }) }
        // `save`: over the preset file given with --preset (the user's own), or a file in the
        // presets folder; written to a temporary file beside it, then renamed.
        let launchedFrom = FileManager.default.fileExists(atPath: preset) ? preset : nil
        interpreter.playerPositions = {
            Dictionary(PlayerStatus.all(host.engine).map { ($0.id, (offset: max(0, $0.currentTime - $0.state.spec.start), playing: $0.playing)) }) { a, _ in a }
        }
        interpreter.saveDocument = { document, requested in
            let target: String
            if let requested {
                target = anyPath ? requested : try ControlPolicy.presetPath(requested, inside: folder)
            } else {
                guard let launchedFrom else { throw ControlError("the preset is a shipped one: give a file name (save my.json)") }
                target = launchedFrom
            }
            let object = try JSONSerialization.jsonObject(with: Data(document.jsonText.utf8))
            let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try Self.writeAtomically(String(decoding: pretty, as: UTF8.self) + "\n", to: target)
            return requested ?? target
        }
        say("ready: \(host.jack.name) \(inputs) in / \(outputs) out at \(host.jack.sampleRate) Hz, buffer \(host.bufferSize); preset \(host.engine.preset.name)"
            + (oscPort.map { "; OSC on 127.0.0.1:\($0)" } ?? "") + (controlSocket.map { "; control socket \($0)" } ?? "") + (host.midiPortName.map { "; MIDI in \($0)" } ?? ""))
        if let web {
            let p = web.policy
            let shown = p.host.contains(":") && !p.host.hasPrefix("[") ? "[\(p.host)]" : p.host
            say("web: http://\(shown):\(p.port)/" + (p.token.map { "?token=\($0)" } ?? ""))
        }
        func noteBandsLeftOut() {
            if let notice = host.engine.preset.bandsLeftOutNotice(sampleRate: Double(host.jack.sampleRate)) { say("note: \(notice)") }
        }
        noteBandsLeftOut()
        if !midi && !host.engine.preset.midi.isEmpty {
            say("note: the preset maps \(host.engine.preset.midi.count) MIDI message\(host.engine.preset.midi.count == 1 ? "" : "s"); start with --midi to use them")
        }

        var errors = RateLimitedReporter()
        var watchedDate = Self.modificationDate(preset)
        // The document as last loaded from the file (or saved to it): live edits are the difference.
        var fileDocument = host.engine.document
        var lastWatchCheck = Date()
        var lastXrunReport = Date.distantPast, lastMissedReport = Date.distantPast
        var lastNonFiniteReport = Date.distantPast, reportedNonFinite = 0
        var lastMeterLine = Date.distantPast
        var lastPlayerCheck = 0.0
        var playerEvents = PlayerEvents()
        var subscribers: [ControlInbox.OSCPeer] = []
        let clock = { Date().timeIntervalSinceReferenceDate }
        func reject(_ message: String) {
            if errors.admit(now: clock()) { reportError(message) }
        }
        // The loop's options as plain values (a property wrapper's getter on every turn showed in profiles).
        let printMeters = meters, watchFile = watch, pace = Self.loopPace(midi: midi)
        while true {
            if stopSignal.load(ordering: .relaxed) != 0 {
                say("stopping (signal \(stopSignal.load(ordering: .relaxed)))")
                takes.stop()
                host.close()
                return
            }
            for event in host.pollEvents() {
                switch event {
                case .connected(let a, let b): say("connected: \(a) → \(b)")
                case .disconnected(let a, let b): say("disconnected: \(a) → \(b)")
                case .bufferSize(let n): say("buffer size: \(n)")
                case .sampleRate(let r): say("sample rate: \(r) Hz (plan recompiled)"); noteBandsLeftOut()
                case .xrun(let total):
                    // At most one xrun line a second (the dummy backend reports many).
                    if Date().timeIntervalSince(lastXrunReport) >= 1 { say("xruns: \(total)"); lastXrunReport = Date() }
                case .missedCycles(let total, let frames):
                    if Date().timeIntervalSince(lastMissedReport) >= 1 {
                        say("missed cycles: \(total) (\(frames) frames the server's clock ran without us)"); lastMissedReport = Date()
                    }
                case .shutdown(let why):
                    FileHandle.standardError.write(Data("timbre: error: JACK server shut down: \(why)\n".utf8))
                    takes.stop()
                    inbox.closeControlSocket()
                    Foundation.exit(2)
                }
            }
            if host.isShutDown {
                FileHandle.standardError.write(Data("timbre: error: JACK server shut down\n".utf8))
                takes.stop()
                inbox.closeControlSocket()
                Foundation.exit(2)
            }
            takes.poll()
            let nonFinite = host.engine.nonFiniteBlocks
            if nonFinite > reportedNonFinite, Date().timeIntervalSince(lastNonFiniteReport) >= 1 {
                FileHandle.standardError.write(Data("timbre: warning: NaN or infinity reached the output: \(nonFinite) block\(nonFinite == 1 ? "" : "s") silenced so far (the filters holding it were cleared)\n".utf8))
                reportedNonFinite = nonFinite; lastNonFiniteReport = Date()
            }
            let (items, dropped) = inbox.drain()
            if dropped > 0 { reject("control input arrives faster than it can be applied: \(dropped) items dropped") }
            for item in items {
                // The web page's messages and connections go to its session.
                if case .webConnected(let client) = item { webSession?.connected(client); continue }
                if case .webMessage(let text, let client) = item { webSession?.handle(text, from: client); continue }
                // A control-socket client hears the replies to its own lines.
                var client: ControlInbox.SocketClient?
                if case .socketLine(_, let c) = item { client = c }
                func answer(_ line: String) { if let client { inbox.reply(line: line, to: client) } }
                // Takes: `record …` on stdin or the socket, /timbre/record s… over OSC.
                if case .line(let text) = item, text.split(separator: " ").first == "record" {
                    _ = takes.handle(text.split(separator: " ").dropFirst().map(String.init)); continue
                }
                if case .socketLine(let text, let c) = item, text.split(separator: " ").first == "record" {
                    takes.handle(text.split(separator: " ").dropFirst().map(String.init),
                                 echo: { inbox.reply(line: $0, to: c) }, echoFailure: { inbox.reply(line: "error: " + $0, to: c) })
                    continue
                }
                if case .packet(let data, _) = item, let m = try? OSCMessage.parse(data), m.address == "/timbre/record" {
                    _ = takes.handle(m.arguments.compactMap { if case .string(let s) = $0 { return s }; return nil }); continue
                }
                for result in interpreter.handle(item) {
                    switch result {
                    case .success(.ok(let text)): say("ok: " + text); answer("ok: " + text)
                    case .success(.status(let json)):
                        if case .packet(_, let peer?) = item { inbox.reply(OSCMessage(address: "/timbre/status", arguments: [.string(json.jsonText)]), to: peer) }
                        else if client != nil { answer("status: " + json.jsonText) }
                        else { say("status: " + json.jsonText) }
                    case .success(.meters(let json)):
                        if case .packet(_, let peer?) = item { inbox.reply(OSCMessage(address: "/timbre/meters", arguments: [.string(json.jsonText)]), to: peer) }
                        else if client != nil { answer("meters: " + json.jsonText) }
                        else { say("meters: " + json.jsonText) }
                    case .success(.subscribed):
                        if case .packet(_, let peer?) = item, subscribers.count < 64 { subscribers.append(peer) }
                        say("ok: subscribed")
                    case .success(.quit): answer("bye"); takes.stop(); say("bye"); host.close(); return
                    case .failure(let e):
                        reject(e.message)
                        answer("error: " + e.message)
                        // The sender hears why (rate-limited like the printed errors).
                        if case .packet(_, let peer?) = item { inbox.reply(OSCMessage(address: "/timbre/error", arguments: [.string(e.remoteMessage)]), to: peer) }
                    }
                }
            }
            for result in interpreter.handleMIDI(host.drainMIDI(), now: clock()) {
                switch result {
                case .success(.ok(let text)): say("ok: " + text)
                case .success: break
                case .failure(let e): reject(e.message)
                }
            }
            if let summary = errors.flush(now: clock()) { reportError(summary) }
            inbox.flushSocketReplies()
            // Players: every turn (10–50 ms) is soon enough (the prefetcher keeps seconds in its rings).
            let playersDue = clock() - lastPlayerCheck >= 0.002
            let players = playersDue ? PlayerStatus.all(host.engine) : nil
            // A pass ending soon: wake when it should end, then every 2 ms until it has (so
            // `looped`/`finished` arrive within a period of the last frame, as before).
            let passEnds = players?.compactMap(\.secondsToPassEnd).min().map { max(0.002, $0) }
            webSession?.tick(now: clock(), players: players)
            if playersDue { lastPlayerCheck = clock(); prefetcher.update(Array(host.engine.playerStates.values)) }
            for line in players.map({ playerEvents.events($0) }) ?? [] {
                say(line)
                // `looped: id (…)`, `finished: id`, `underrun: id: …` → /timbre/event s:kind s:id
                let kind = String(line.prefix { $0 != ":" })
                let id = String(line.dropFirst(kind.count + 2).prefix { $0 != " " && $0 != ":" })
                for peer in subscribers { inbox.reply(OSCMessage(address: "/timbre/event", arguments: [.string(kind), .string(id)]), to: peer) }
            }
            for failure in prefetcher.takeFailures() { reportError("player stopped: \(failure)") }
            if printMeters, Date().timeIntervalSince(lastMeterLine) >= 0.1 {
                lastMeterLine = Date()
                say(Self.meterLine(host.engine.meters))
            }
            if watchFile, Date().timeIntervalSince(lastWatchCheck) > 0.25 {
                lastWatchCheck = Date()
                let date = Self.modificationDate(preset)
                if date != watchedDate {
                    watchedDate = date
                    // The file given on the command line is the user's own: loaded as at start.
                    // Live edits since it was last loaded are said, and kept in a backup file.
                    do {
                        let (document, label) = try Self.loadDocument(preset)
                        let edits = LiveEdits.differences(from: fileDocument, to: host.engine.document)
                        if !edits.isEmpty && document != host.engine.document {
                            let backup = preset + ".live-edits.json"
                            try Self.writeAtomically(host.engine.document.jsonText + "\n", to: backup)
                            say("note: \(label) changed on disk; reloading it replaces \(edits.count) live edit\(edits.count == 1 ? "" : "s") ("
                                + edits.prefix(4).joined(separator: ", ") + (edits.count > 4 ? ", …" : "") + "), kept in \(backup)")
                        }
                        try host.engine.load(document: document)
                        fileDocument = document
                        say("ok: loaded \(label) (\(host.engine.preset.name))")
                    } catch { reportError("\(error)") }
                }
            }
            // At once for a command; otherwise at the next meter frame a page is due, and at
            // least every 20 ms with MIDI, 50 ms without (JACK's events, `--meters`), and when a
            // player's pass is due to end.
            // Each wake costs tens of microseconds of scheduling: an idle host wakes 20 times a second.
            inbox.wait(seconds: min(pace, webSession?.secondsUntilDue(now: clock()) ?? pace, passEnds ?? pace))
        }
    }

    /// `status`'s `cpuSeconds`: CPU time used so far by JACK's thread (`audio`), the control
    /// loop (`control`) and the web server's thread (`web`, with --http), read from each
    /// thread's CPU-time clock (microseconds kept).
    static func cpuSeconds(audio: Double?, control: Double?, web: Double?) -> JSONValue {
        var o: [String: JSONValue] = [:]
        for (key, value) in [("audio", audio), ("control", control), ("web", web)] {
            if let value { o[key] = .number((value * 1e6).rounded() / 1e6) }
        }
        return .object(o)
    }

    /// The control loop's longest sleep: 20 ms with a MIDI input (its edits are coalesced per
    /// 20 ms anyway), else 50 ms (players' rings hold seconds; events are printed, not acted on).
    static func loopPace(midi: Bool) -> Double { midi ? 0.02 : 0.05 }

    static func loadDocument(_ argument: String) throws(HostError) -> (JSONValue, String) {
        try PresetLoader.loadDocument(argument)
    }

    /// One compact line: per node, the channels' held peaks and average power, and loudness.
    static func meterLine(_ meters: JSONValue) -> String {
        guard case .object(let nodes) = meters, !nodes.isEmpty else { return "meter: none" }
        func num(_ v: JSONValue?) -> String { if case .number(let d)? = v { return String(format: "%.1f", d) }; return "-inf" }
        var parts: [String] = []
        for key in nodes.keys.sorted() {
            guard case .object(let o)? = nodes[key] else { continue }
            var text = key + ":"
            if case .array(let channels)? = o["channels"] {
                for (k, ch) in channels.enumerated() {
                    guard case .object(let c) = ch else { continue }
                    text += " \(k + 1) \(num(c["peakPower"]))/\(num(c["averagePower"]))"
                }
                text += " dBFS"
            }
            if case .string("loudness")? = o["type"] {
                text += " | M \(num(o["momentaryLUFS"])) S \(num(o["shortTermLUFS"])) I \(num(o["integratedLUFS"])) LUFS, LRA \(num(o["loudnessRangeLU"])) LU"
            }
            if o["gainReductionDB"] != nil {
                text += " GR \(num(o["gainReductionDB"])) dB (max \(num(o["maxGainReductionDB"])))"
            }
            parts.append(text)
        }
        return "meter: " + parts.joined(separator: "; ")
    }

    /// `text` into a temporary file beside `path`, flushed, then renamed over it.
    static func writeAtomically(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".timbre-save-\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ControlError("\(path): cannot write: \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress!, $0.count) }
        let synced = fsync(fd) == 0
        let closed = close(fd) == 0
        guard written == bytes.count, synced, closed, rename(temporary, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary)
            throw ControlError("\(path): cannot write: \(why)")
        }
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// One line on stdout, written unbuffered (scripts and tests read it line by line;
    /// `fflush(nil)` would also take stdin's lock, which the reader thread holds).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// A failed command or a non-fatal failure (the session goes on), on stderr.
    func reportError(_ line: String) {
        FileHandle.standardError.write(Data("timbre: error: \(line)\n".utf8))
    }
}
