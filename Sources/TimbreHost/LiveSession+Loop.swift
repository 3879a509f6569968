import TimbreFile
import Foundation
import TimbreControl
import TimbreEngine
import TimbreJack

/// What the control loop remembers between turns.
struct LoopState {
    var errors = RateLimitedReporter()
    /// The watched file's date, and the document as last loaded from it (live edits are the difference).
    var watchedDate: Date?
    var fileDocument: JSONValue = .null
    var lastWatchCheck = Date()
    var lastXrunReport = Date.distantPast, lastMissedReport = Date.distantPast
    var lastNonFiniteReport = Date.distantPast, reportedNonFinite = 0
    var lastMeterLine = Date.distantPast
    var lastPlayerCheck = 0.0
    var playerEvents = PlayerEvents()
    var subscribers: [ControlInbox.OSCPeer] = []
    /// Seconds until a player's pass is due to end (the loop wakes then).
    var passEnds: Double?
}

extension LiveSession {
    /// Why ``run()`` returned.
    enum Ending { case quit, signal(Int32), requested, serverGone(String) }

    /// Runs the control loop until `quit`, ``requestStop()``, SIGINT/SIGTERM (after
    /// ``stopOnSignals()``) or the JACK server going away. Returns the exit status `timbre
    /// live` reports: 0, or 2 when the server went away.
    public func run() -> Int32 {
        start()
        while true {
            if let ending = turn() { return finish(ending) }
            // At once for a command; otherwise at the next meter frame a page is due, at least
            // every 20 ms with MIDI, 50 ms without (JACK's events, meters), and when a player's
            // pass is due to end. An idle host wakes 20 times a second.
            let pace = LiveText.loopPace(midi: options.midi)
            inbox.wait(seconds: min(pace, webSession?.secondsUntilDue(now: Self.clock()) ?? pace, loop.passEnds ?? pace))
        }
    }

    static func clock() -> Double { Date().timeIntervalSinceReferenceDate }

    func start() {
        loop.watchedDate = Self.modificationDate(options.preset)
        loop.fileDocument = host.engine.document
        say("ready: \(host.jack.name) \(host.inputPortNames.count) in / \(host.outputPortNames.count) out at \(host.jack.sampleRate) Hz, buffer \(host.bufferSize); preset \(host.engine.preset.name)"
            + (options.oscPort.map { "; OSC on 127.0.0.1:\($0)" } ?? "") + (options.controlSocket.map { "; control socket \($0)" } ?? "")
            + (host.midiPortName.map { "; MIDI in \($0)" } ?? ""))
        if let web {
            let p = web.policy
            let shown = p.host.contains(":") && !p.host.hasPrefix("[") ? "[\(p.host)]" : p.host
            say("web: http://\(shown):\(p.port)/" + (p.token.map { "?token=\($0)" } ?? ""))
        }
        noteBandsLeftOut()
        let mappings = host.engine.preset.midi.count
        if !options.midi && mappings > 0 { say("note: the preset maps \(mappings) MIDI message\(mappings == 1 ? "" : "s"); start with --midi to use them") }
    }

    func noteBandsLeftOut() {
        if let notice = host.engine.preset.bandsLeftOutNotice(sampleRate: Double(host.jack.sampleRate)) { say("note: \(notice)") }
    }

    /// One turn of the loop; the ending when it is over.
    func turn() -> Ending? {
        let signalled = Self.signalled.load(ordering: .relaxed)
        if signalled != 0 { return .signal(signalled) }
        if stopRequest.load(ordering: .relaxed) { return .requested }
        if let gone = hostEvents() { return .serverGone(gone) }
        takes.poll()
        reportNonFinite()
        if handleControlInput() { return .quit }
        for result in interpreter.handleMIDI(host.drainMIDI(), now: Self.clock()) {
            switch result {
            case .success(.ok(let text)): say("ok: " + text)
            case .success: break
            case .failure(let e): reject(e.message)
            }
        }
        if let summary = loop.errors.flush(now: Self.clock()) { reportError(summary) }
        inbox.flushSocketReplies()
        tickPlayers()
        for failure in prefetcher.takeFailures() { reportError("player stopped: \(failure)") }
        if options.meters, Date().timeIntervalSince(loop.lastMeterLine) >= 0.1 {
            loop.lastMeterLine = Date()
            say(LiveText.meterLine(host.engine.meters))
        }
        if options.watch, Date().timeIntervalSince(loop.lastWatchCheck) > 0.25 { reloadIfChanged() }
        return nil
    }

    func finish(_ ending: Ending) -> Int32 {
        switch ending {
        case .quit, .requested:
            takes.stop(); host.close(); close()
            return 0
        case .signal(let number):
            say("stopping (signal \(number))")
            takes.stop(); host.close(); close()
            return 0
        case .serverGone(let why):
            // The client is not closed: the server is gone.
            reportError("JACK server shut down" + (why.isEmpty ? "" : ": \(why)"))
            takes.stop()
            inbox.closeControlSocket()
            return 2
        }
    }

    /// A failed command or datagram, reported at most ten times a second.
    func reject(_ message: String) {
        if loop.errors.admit(now: Self.clock()) { reportError(message) }
    }

    /// JACK's events, said; the reason when the server has gone away.
    func hostEvents() -> String? {
        for event in host.pollEvents() {
            switch event {
            case .connected(let a, let b): say("connected: \(a) → \(b)")
            case .disconnected(let a, let b): say("disconnected: \(a) → \(b)")
            case .bufferSize(let n): say("buffer size: \(n)")
            case .sampleRate(let r): say("sample rate: \(r) Hz (plan recompiled)"); noteBandsLeftOut()
            case .xrun(let total):
                // At most one xrun line a second (the dummy backend reports many).
                if Date().timeIntervalSince(loop.lastXrunReport) >= 1 { say("xruns: \(total)"); loop.lastXrunReport = Date() }
            case .missedCycles(let total, let frames):
                if Date().timeIntervalSince(loop.lastMissedReport) >= 1 {
                    say("missed cycles: \(total) (\(frames) frames the server's clock ran without us)"); loop.lastMissedReport = Date()
                }
            case .shutdown(let why): return why
            }
        }
        return host.isShutDown ? "" : nil
    }

    func reportNonFinite() {
        let nonFinite = host.engine.nonFiniteBlocks
        guard nonFinite > loop.reportedNonFinite, Date().timeIntervalSince(loop.lastNonFiniteReport) >= 1 else { return }
        reportWarning("NaN or infinity reached the output: \(nonFinite) block\(nonFinite == 1 ? "" : "s") silenced so far (the filters holding it were cleared)")
        loop.reportedNonFinite = nonFinite; loop.lastNonFiniteReport = Date()
    }

    /// Commands from stdin, the socket, OSC and pages, applied in arrival order; true on `quit`.
    func handleControlInput() -> Bool {
        let (items, dropped) = inbox.drain()
        if dropped > 0 { reject("control input arrives faster than it can be applied: \(dropped) items dropped") }
        for item in items {
            // The web page's messages and connections go to its session.
            if case .webConnected(let client) = item { webSession?.connected(client); continue }
            if case .webMessage(let text, let client) = item { webSession?.handle(text, from: client); continue }
            for result in interpreter.handle(item) where route(result, for: item) { return true }
        }
        return false
    }

    /// Says a result and answers the transport it came from: a socket client hears its own
    /// replies, an OSC sender its status, meters and errors (without values read from files).
    /// True on `quit`.
    func route(_ result: Result<ControlInterpreter.Reply, ControlError>, for item: ControlInbox.Item) -> Bool {
        var client: ControlInbox.SocketClient?, peer: ControlInbox.OSCPeer?
        if case .socketLine(_, let c) = item { client = c }
        if case .packet(_, let p?) = item { peer = p }
        func answer(_ line: String) { if let client { inbox.reply(line: line, to: client) } }
        func data(_ kind: String, _ json: JSONValue) {
            if let peer { inbox.reply(OSCMessage(address: "/timbre/\(kind)", arguments: [.string(json.jsonText)]), to: peer) }
            else if client != nil { answer("\(kind): " + json.jsonText) } else { say("\(kind): " + json.jsonText) }
        }
        switch result {
        case .success(.ok(let text)): say("ok: " + text); answer("ok: " + text)
        case .success(.said(let lines)): for line in lines { say(line); answer(line) }
        case .success(.status(let json)): data("status", json)
        case .success(.meters(let json)): data("meters", json)
        case .success(.subscribed):
            if let peer, loop.subscribers.count < 64 { loop.subscribers.append(peer) }
            say("ok: subscribed")
        case .success(.quit): answer("bye"); say("bye"); return true
        case .failure(let e):
            reject(e.message)
            answer("error: " + e.message)
            // The sender hears why (rate-limited like the printed errors).
            if let peer { inbox.reply(OSCMessage(address: "/timbre/error", arguments: [.string(e.remoteMessage)]), to: peer) }
        }
        return false
    }
}

extension LiveSession {
    /// Players: their events said (and sent to OSC subscribers), the page's meter frame, the
    /// prefetcher told what plays. Every turn (2–50 ms) is soon enough: the prefetcher keeps
    /// seconds in its rings.
    func tickPlayers() {
        let playersDue = Self.clock() - loop.lastPlayerCheck >= 0.002
        let players = playersDue ? PlayerStatus.all(host.engine) : nil
        // A pass ending soon: wake when it should end, then every 2 ms until it has (so
        // `looped`/`finished` arrive within a period of the last frame).
        loop.passEnds = players?.compactMap(\.secondsToPassEnd).min().map { max(0.002, $0) }
        webSession?.tick(now: Self.clock(), players: players)
        if playersDue { loop.lastPlayerCheck = Self.clock(); prefetcher.update(Array(host.engine.playerStates.values)) }
        for line in players.map({ loop.playerEvents.events($0) }) ?? [] {
            say(line)
            // `looped: id (…)`, `finished: id`, `underrun: id: …` → /timbre/event s:kind s:id
            let kind = String(line.prefix { $0 != ":" })
            let id = String(line.dropFirst(kind.count + 2).prefix { $0 != " " && $0 != ":" })
            for peer in loop.subscribers { inbox.reply(OSCMessage(address: "/timbre/event", arguments: [.string(kind), .string(id)]), to: peer) }
        }
    }

    /// `watch`: the preset file changed on disk. It is the user's own, loaded as at start; live
    /// edits since it was last loaded are said and kept in a backup file beside it.
    func reloadIfChanged() {
        loop.lastWatchCheck = Date()
        let date = Self.modificationDate(options.preset)
        guard date != loop.watchedDate else { return }
        loop.watchedDate = date
        do {
            let (document, label) = try PresetLoader.loadDocument(options.preset)
            let edits = LiveEdits.differences(from: loop.fileDocument, to: host.engine.document)
            if !edits.isEmpty && document != host.engine.document {
                let backup = options.preset + ".live-edits.json"
                try AtomicFileWrite.write(Data((host.engine.document.jsonText + "\n").utf8), to: backup)
                say("note: \(label) changed on disk; reloading it replaces \(edits.count) live edit\(edits.count == 1 ? "" : "s") ("
                    + edits.prefix(4).joined(separator: ", ") + (edits.count > 4 ? ", …" : "") + "), kept in \(backup)")
            }
            try host.engine.load(document: document)
            loop.fileDocument = document
            say("ok: loaded \(label) (\(host.engine.preset.name))")
        } catch { reportError("\(error)") }
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
