import Foundation
import TimbreControl
import TimbreEngine
import TimbreJack
import TimbreWeb

/// `timbre live --http`: the web surface's side of the control loop. Pages' messages arrive
/// through the inbox (`.webMessage`) and go through the same `ControlInterpreter` as stdin
/// and OSC, with tighter limits (no `quit`; `load`, `save` and takes only inside their
/// folders, whatever `--allow-any-path` says). Every turn of the loop ``tick(now:)``
/// broadcasts the state when the document, the players or the presets folder changed, and a
/// meter frame 30 times a second, built from the snapshots the control side reads anyway.
package final class WebSession {
    package let server: WebControlServer
    package let host: JackHost
    package let interpreter: ControlInterpreter
    package let takes: TakeSession
    package let presetsFolder: String
    package let schema: JSONValue
    /// Pages that asked for no meter frames.
    private var quiet: Set<Int> = []
    /// What the last state sent was made of.
    private var lastFingerprint: Fingerprint?
    package struct Fingerprint: Equatable {
        package var document: JSONValue, presets: [String], players: [String], bufferSize: Int, sampleRate: Double
    }
    private var lastMeters = 0.0, lastPresetScan = 0.0, lastStateCheck = 0.0
    /// The curves and handles of the document they were computed for.
    private var drawn: (document: JSONValue, curves: JSONValue?, handles: JSONValue)?
    private var presets: [String] = []
    package static let framesPerSecond = 30.0

    /// Pages that have had their hello.
    var greeted: Set<Int> = []
    package init(server: WebControlServer, host: JackHost, interpreter: ControlInterpreter, takes: TakeSession, presetsFolder: String, schema: JSONValue) {
        self.server = server; self.host = host; self.interpreter = interpreter; self.takes = takes
        self.presetsFolder = presetsFolder; self.schema = schema
    }

    /// Verbs a page may send (`quit` stays with stdin, the socket and signals).
    package static let verbs: Set<String> = ["set", "bypass", "load", "save", "insert", "remove", "play", "pause", "stop", "seek", "learn", "status", "meters", "record"]

    /// Handles one message from page `client`.
    package func handle(_ text: String, from client: Int) {
        let request: WebRequest
        do { request = try WebRequest.parse(text) } catch {
            return reply(client, id: error.id, .failure(ControlError(error.message)))
        }
        switch request {
        case .meters(let id, let on):
            if on { quiet.remove(client) } else { quiet.insert(client) }
            reply(client, id: id, .success(.ok("meters \(on ? "on" : "off")")))
        case .set(let id, let address, let value):
            do throws(ControlError) {
                reply(client, id: id, .success(try interpreter.perform(.setValue(address: address, value: value))))
            } catch { reply(client, id: id, .failure(error)) }
        case .command(let id, let line):
            let words = line.split(separator: " ").map(String.init)
            guard let verb = words.first else { return reply(client, id: id, .failure(ControlError("empty command"))) }
            guard Self.verbs.contains(verb) else {
                return reply(client, id: id, .failure(ControlError("\(ControlError.quote(verb)) is not a command a page may send (\(Self.verbs.sorted().joined(separator: ", ")))")))
            }
            do throws(ControlError) { try confine(words) } catch { return reply(client, id: id, .failure(error)) }
            for result in interpreter.handle(.line(line)) { reply(client, id: id, result) }
        }
    }

    /// Files a page names stay in their folders: presets in the presets folder (even with
    /// --allow-any-path), takes in the current folder.
    package func confine(_ words: [String]) throws(ControlError) {
        switch words.first {
        case "load", "save":
            let rest = words.dropFirst().filter { $0 != "--positions" }
            guard let name = rest.first else { return }
            if words.first == "load" && !name.contains("/") && !FileManager.default.fileExists(atPath: presetsFolder + "/" + name) { return }  // a shipped preset
            try Self.inside(rest.joined(separator: " "), presetsFolder, "presets load from and save to")
        case "record":
            if words.count >= 3, words[1] == "start" { try Self.inside(words[2], FileManager.default.currentDirectoryPath, "takes go to") }
        default: return
        }
    }

    /// Throws unless `path` lies inside `folder` once every link is followed.
    package static func inside(_ path: String, _ folder: String, _ what: String) throws(ControlError) {
        do { _ = try ControlPolicy.presetPath(path, inside: folder) } catch {
            throw ControlError("\(ControlError.quote(path)): from the page, \(what) \(URL(fileURLWithPath: folder).standardizedFileURL.path) only")
        }
    }

    package func reply(_ client: Int, id: Int?, _ result: Result<ControlInterpreter.Reply, ControlError>) {
        var o: [String: JSONValue] = ["v": .number(1), "type": .string("reply")]
        if let id { o["id"] = .number(Double(id)) }
        switch result {
        case .success(.ok(let text)): o["ok"] = .bool(true); o["text"] = .string(text)
        case .success(.said(let lines)): o["ok"] = .bool(true); o["text"] = .string(lines.joined(separator: "; "))
        case .success(.status(let json)): o["ok"] = .bool(true); o["status"] = json
        case .success(.meters(let json)): o["ok"] = .bool(true); o["meters"] = json
        case .success(.subscribed), .success(.quit): o["ok"] = .bool(true)
        case .failure(let e): o["ok"] = .bool(false); o["error"] = .string(e.remoteMessage)  // names where, quotes nothing from files
        }
        server.send(JSONValue.object(o).jsonText, to: client)
    }

    /// Called every turn of the control loop: the state at most 20 times a second (sent when
    /// it changed), meter frames 30 times a second, and nothing without pages.
    /// `players` is the loop's own reading of them this turn, if it took one.
    package func tick(now: Double, players: [PlayerStatus]? = nil) {
        guard server.clientCount > 0 else { return }
        var read = players
        func currentPlayers() -> [PlayerStatus] {
            if let read { return read }
            read = PlayerStatus.all(host.engine)
            return read!
        }
        if now - lastPresetScan >= 1 { presets = Self.presets(in: presetsFolder); lastPresetScan = now }
        // A page hears nothing before its hello (it may connect between the loop's turns).
        let ungreeted = server.clientIDs.subtracting(greeted)
        if now - lastStateCheck >= 0.05 {
            lastStateCheck = now
            // Serialised only when something a page draws changed.
            let fingerprint = Fingerprint(document: host.engine.document, presets: presets,
                                          players: currentPlayers().map { "\($0.id) \($0.playing) \($0.duration) \($0.loopsLeft)" },
                                          bufferSize: host.bufferSize, sampleRate: host.engine.sampleRate)
            if fingerprint != lastFingerprint {
                lastFingerprint = fingerprint
                server.broadcast(#"{"state":\#(stateJSON().jsonText),"type":"state","v":1}"#, except: ungreeted)
            }
        }
        if now - lastMeters >= 1 / Self.framesPerSecond {
            // On schedule (30 a second on average at the loop's 10 ms pace), not from now.
            lastMeters = max(lastMeters + 1 / Self.framesPerSecond, now - 1 / Self.framesPerSecond)
            server.broadcast(meterFrame(players: currentPlayers()), except: quiet.union(ungreeted))
        }
    }

    /// Seconds until the next meter frame is due; nil without pages.
    package func secondsUntilDue(now: Double) -> Double? {
        guard server.clientCount > 0 else { return nil }
        return max(0, lastMeters + 1 / Self.framesPerSecond - now)
    }

    /// A page connected: it gets the hello (the protocol, the schema its controls come from,
    /// the state).
    package func connected(_ client: Int) {
        quiet.remove(client)
        greeted.formIntersection(server.clientIDs)
        greeted.insert(client)
        if presets.isEmpty { presets = Self.presets(in: presetsFolder) }
        server.send(hello(), to: client)
    }

    package func hello() -> String {
        JSONValue.object(["v": .number(1), "type": .string("hello"), "protocol": .number(1), "schema": schema, "state": stateJSON()]).jsonText
    }

    /// What a page draws: the document, the players, the presets, and the EQ curves with a
    /// handle per band, computed from the same designs the render uses.
    package func stateJSON() -> JSONValue {
        let engine = host.engine
        if drawn?.document != engine.document {
            let (curves, handles) = Self.curves(engine.preset, sampleRate: engine.sampleRate)
            drawn = (engine.document, curves, handles)
        }
        var players: [String: JSONValue] = [:]
        for p in PlayerStatus.all(engine) {
            guard case .object(var o) = p.json else { continue }
            o["currentTime"] = nil; o["underrunFrames"] = nil  // these move: they come with the meter frames
            players[p.id] = .object(o)
        }
        var state: [String: JSONValue] = [
            "preset": .string(engine.preset.name), "sampleRate": .number(engine.sampleRate), "bufferSize": .number(Double(host.bufferSize)),
            "document": engine.document, "presets": .array(presets.map { .string($0) }), "players": .object(players),
            "handles": drawn?.handles ?? .array([]),
        ]
        if let curves = drawn?.curves { state["curves"] = curves }
        return .object(state)
    }

    /// The response of every filter node and of all of them at 241 frequencies from 20 Hz to
    /// 20 kHz (dB), from the designs the render uses, and the handles to drag.
    package static func curves(_ preset: Preset, sampleRate rate: Double) -> (JSONValue?, JSONValue) {
        var handles: [JSONValue] = []
        for node in preset.allNodes {
            // Handles for every band, flat or bypassed (a flat band has no filter section).
            if let address = address(of: node, in: preset) { handles += Self.handles(of: node, address: address) }
        }
        // The same computation as `timbre response` (its first total: the chain, or the graph's
        // first channel's path), on the page's grid; nothing drawn at or past Nyquist.
        let frequencies = (0..<241).map { 20 * pow(1000, Double($0) / 240) }
        let response = PresetResponse(preset: preset, sampleRate: rate, frequenciesHz: frequencies)
        func rounded(_ values: [Double]) -> JSONValue {
            .array(zip(frequencies, values).map { f, v in .number(f < rate / 2 ? (v * 100).rounded() / 100 : 0) })
        }
        var curves: [String: JSONValue] = [:]
        let byPath = Dictionary(preset.allNodes.map { ($0.path, $0) }) { a, _ in a }
        for (curve, path) in zip(response.nodes, response.nodePaths) {
            guard let node = byPath[path], let term = node.responseTerm(sampleRate: rate), !term.sections.isEmpty else { continue }
            curves[address(of: node, in: preset) ?? path] = rounded(curve.magnitudeDB)
        }
        guard !curves.isEmpty || !handles.isEmpty else { return (nil, .array(handles)) }
        return (.object(["frequencies": .array(frequencies.map { .number(($0 * 10).rounded() / 10) }),
                         "total": rounded(response.totals.first?.magnitudeDB ?? []), "nodes": .object(curves)]), .array(handles))
    }

    /// A meter frame, written straight into text (it goes out 30 times a second): for every
    /// meter (the output, each channel and group, the meter, loudness, spectrum and dynamics
    /// nodes) what the page draws — per channel `peakPower` and `averagePower` (AVAudioPlayer's
    /// 1.5 s-hold peak and 300 ms average), loudness M/S/I, a spectrum's third-octave bands and
    /// peak, a dynamics node's gain reduction — then the players' places, the takes, DSP load
    /// and xruns. `meters` (the command) has every other field.
    package func meterFrame(players: [PlayerStatus]) -> String {
        var out = #"{"v":1,"type":"meters","meters":{"#
        out.reserveCapacity(4096)
        var first = true
        func key(_ k: String) {
            if !first { out += "," }
            first = false
            JSONValue.string(k).write(into: &out)
            out += ":"
        }
        for (name, r) in host.engine.readings.sorted(by: { $0.key < $1.key }) {
            key(name)
            out += #"{"type":""# + r.kind.rawValue + "\""
            if !r.channels.isEmpty {
                out += #","channels":["#
                for (k, c) in r.channels.enumerated() {
                    out += k > 0 ? #",{"peakPower":"# : #"{"peakPower":"#
                    Self.number(c.peakPower, into: &out)
                    out += #","averagePower":"#
                    Self.number(c.averagePower, into: &out)
                    out += "}"
                }
                out += "]"
            }
            if let l = r.loudness {
                out += #","momentaryLUFS":"#; Self.number(l.momentaryLUFS, into: &out)
                out += #","shortTermLUFS":"#; Self.number(l.shortTermLUFS, into: &out)
                out += #","integratedLUFS":"#; Self.number(l.integratedLUFS, into: &out)
            }
            if let sp = r.spectrum {
                out += #","peakFrequencyHz":"#; Self.number(sp.peakFrequencyHz, into: &out)
                out += #","peakLevelDB":"#; Self.number(sp.peakLevelDB, into: &out)
                out += #","bands":["#
                for (k, b) in sp.bands.enumerated() {
                    out += k > 0 ? #",{"frequencyHz":"# : #"{"frequencyHz":"#
                    Self.number(b.centerHz, into: &out)
                    out += #","levelDB":"#
                    Self.number(b.levelDB, into: &out)
                    out += "}"
                }
                out += "]"
            }
            out += "}"
        }
        for (name, g) in host.engine.plan.gainReductionStates {
            key(name)
            out += #"{"gainReductionDB":"#; Self.number(g.currentDB, into: &out)
            out += #","maxGainReductionDB":"#; Self.number(g.maximumDB, into: &out)
            out += "}"
        }
        out += #"},"players":"#
        JSONValue.object(Dictionary(players.map { ($0.id, $0.json) }) { a, _ in a }).write(into: &out)
        out += #","takes":"#
        takes.summaryJSON.write(into: &out)
        out += #","dspLoadPercent":"#
        Self.number(Double(host.jack.cpuLoad), into: &out)
        out += #","xruns":"# + String(host.xruns) + "}"
        return out
    }

    /// `x` with two decimals (silence, −∞, as null), without a formatter.
    package static func number(_ x: Double, into out: inout String) {
        guard x.isFinite, x > -1000, abs(x) < 1e12 else { out += "null"; return }
        let hundredths = Int((x * 100).rounded())
        if hundredths < 0 { out += "-" }
        let a = abs(hundredths)
        out += String(a / 100)
        let fraction = a % 100
        if fraction != 0 { out += fraction < 10 ? ".0" + String(fraction) : "." + String(fraction) }
    }

    /// How live commands name `node`: its id, or `chain[i]` in a chain preset; nil when it
    /// cannot be addressed (a graph node without an id).
    package static func address(of node: NodeSpec, in preset: Preset) -> String? {
        if let id = node.id { return id }
        if case .chain = preset.form, node.path.hasPrefix("chain["), !node.path.dropFirst(6).contains(".") { return String(node.path) }
        return nil
    }

    /// Draggable points of a node: each band of an `eq`, or a bell or shelf node's own
    /// frequency and gain.
    package static func handles(of node: NodeSpec, address: String) -> [JSONValue] {
        guard case .array(let encoded) = PresetEncoder.encode([node]), case .object(let fields)? = encoded.first else { return [] }
        func num(_ v: JSONValue?) -> Double? { if case .number(let d)? = v { return d }; return nil }
        if case .array(let bands)? = fields["bands"] {
            return bands.enumerated().compactMap { i, b in
                guard case .object(let band) = b, let f = num(band["frequency"]) else { return nil }
                return .object(["address": .string("\(address).bands[\(i)]"), "label": .string("\(address) band \(i + 1)"),
                                "frequency": .number(f), "gain": .number(num(band["gain"]) ?? 0), "q": .number(num(band["q"]) ?? 1)])
            }
        }
        if let f = num(fields["frequency"]), let g = num(fields["gain"]) {
            var h: [String: JSONValue] = ["address": .string(address), "label": .string(address), "frequency": .number(f), "gain": .number(g)]
            if let q = num(fields["q"]) { h["q"] = .number(q) }
            return [.object(h)]
        }
        return []
    }

    /// The presets a page may load: `*.json` files in the folder (not hidden, not backups or
    /// sidecars), sorted.
    package static func presets(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") && !$0.hasSuffix(".live-edits.json") && !$0.contains(".wav.") }.sorted()
    }
}
