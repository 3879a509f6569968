import Foundation
import TimbreEngine

/// Applies control input to a `LiveEngine`: the one place that turns a stdin line or an
/// OSC datagram into an edit, a preset load or a status reply. Hosts stay thin: they feed
/// it items and print what comes back.
///
/// Every edit goes through `PresetDocumentEditor` and the strict preset decoder; a
/// rejected item changes nothing. An `insert` or `load` naming a plugin file by path is
/// refused (``ControlPolicy``): control messages load plugins only from the installed places.
public final class ControlInterpreter {
    public enum Reply: Equatable, Sendable {
        /// Done; the text is the `ok: …` acknowledgement.
        case ok(String)
        case status(JSONValue)
        case meters(JSONValue)
        /// Lines said as they are (no `ok:` prefix): what a take session answers.
        case said([String])
        /// The sender wants the players' events.
        case subscribed
        case quit
    }

    public let engine: LiveEngine
    /// Resolves a `load` argument to a document and a label for messages.
    let loadDocument: (String) throws -> (JSONValue, String)
    /// Host fields for `status` (rate, buffer, xruns, ports …), merged over the engine's.
    let hostStatus: () -> [String: JSONValue]
    /// Writes the running document for `save` (the host decides where it may go); returns
    /// the path written. nil: this host cannot save.
    public var saveDocument: ((JSONValue, String?) throws -> String)?
    /// Each player's place for `save --positions`: seconds into its region, and whether it
    /// plays (by channel id).
    public var playerPositions: (() -> [String: (offset: Double, playing: Bool)])?
    /// MIDI mappings in use (`--midi`), kept equal to the running preset's `midi` section.
    public var midi: MIDIMapper?
    /// Carries out `record …` (the words after `record`), returning the lines to say; nil:
    /// this host does not record.
    public var recordTakes: (([String]) throws(ControlError) -> [String])?

    public init(engine: LiveEngine, loadDocument: @escaping (String) throws -> (JSONValue, String),
                hostStatus: @escaping () -> [String: JSONValue] = { [:] }) {
        self.engine = engine; self.loadDocument = loadDocument; self.hostStatus = hostStatus
    }

    /// Parses and applies one inbox item. A datagram may be a bundle: its messages are
    /// applied in order and each gets its own result.
    package func handle(_ item: ControlInbox.Item) -> [Result<Reply, ControlError>] {
        switch item {
        case .webConnected, .webMessage:
            return [.failure(ControlError("a page's messages go through the web session"))]
        case .line(let line), .socketLine(let line, _):
            do throws(ControlError) {
                guard let command = try ControlCommand.parse(line: line) else { return [] }
                return [.success(try perform(command))]
            } catch { return [.failure(error)] }
        case .packet(let data, _):
            let packet: OSCPacket
            do { packet = try OSCPacket.parse(data) } catch { return [.failure(error)] }
            return packet.messages.map { m in
                do throws(ControlError) { return .success(try perform(try m.command())) } catch { return .failure(error) }
            }
        }
    }

    /// Applies a command.
    public func perform(_ command: ControlCommand) throws(ControlError) -> Reply {
        let editor = PresetDocumentEditor(document: engine.document, preset: engine.preset)
        switch command {
        case .set(let address, let value):
            try apply(try editor.setting(address, to: value))
            return .ok("set \(address) \(JSONValue.number(value).brief)")
        case .setValue(let address, let value):
            try apply(try editor.setting(address, toValue: value))
            return .ok("set \(address) \(value.brief)")
        case .bypass(let node, let on):
            try apply(try editor.bypassing(node, on))
            return .ok("bypass \(node) \(on ? "on" : "off")")
        case .load(let path):
            let doc: JSONValue, label: String
            do { (doc, label) = try loadDocument(path) } catch {
                throw ControlError("\(error)", remote: (error as? any RedactableError)?.redactedDescription
                                   ?? (error as? ControlError)?.remoteMessage ?? "\(ControlError.quote(path)): the preset cannot be loaded")
            }
            try ControlPolicy.refusePluginFilePaths(in: doc, what: label)
            do { try engine.load(document: doc) } catch { throw ControlError("\(label): \(error)", remote: "\(label): \(error.redactedDescription)") }
            return .ok("loaded \(label) (\(engine.preset.name))")
        case .record(let words):
            guard let recordTakes else { throw ControlError("record: this host does not record") }
            return .said(try recordTakes(words))
        case .save(let path, let positions):
            guard let saveDocument else { throw ControlError("save: this host has no preset file to save to") }
            let document = positions ? Self.document(engine.document, with: playerPositions?() ?? [:]) : engine.document
            do { return .ok("saved \(try saveDocument(document, path))" + (positions ? " with player positions" : "")) } catch { throw ControlError("save: \(error)") }
        case .insert(let position, let node):
            try ControlPolicy.refusePluginFilePaths(in: node, what: "insert")
            try apply(try editor.inserting(node, at: position))
            return .ok("inserted at \(position)")
        case .remove(let node):
            try apply(try editor.removing(node))
            return .ok("removed \(node)")
        case .play(let id):
            let state = try player(id)
            if state.finished { state.feeder?.requestSeek(fileSeconds: state.spec.start) }
            state.playing = true
            return .ok("play \(id)")
        case .pause(let id):
            try player(id).playing = false
            return .ok("pause \(id)")
        case .stop(let id):
            let state = try player(id)
            state.playing = false
            state.feeder?.requestSeek(fileSeconds: state.spec.start)
            return .ok("stop \(id)")
        case .seek(let id, let seconds):
            let state = try player(id)
            if let end = state.spec.end, seconds >= end {
                throw ControlError("seek \(id): \(JSONValue.number(seconds).brief) s is past the region's end (\(JSONValue.number(end).brief) s)")
            }
            state.feeder?.requestSeek(fileSeconds: max(seconds, state.spec.start))
            return .ok("seek \(id) \(JSONValue.number(seconds).brief)")
        case .subscribe:
            return .subscribed
        case .learn(let target, let lo, let hi, let curve):
            guard let midi else { throw ControlError("learn: this host has no MIDI input (start it with --midi)") }
            guard let (range, ownCurve) = lo.flatMap({ l in hi.map { h in (min(l, h)...max(l, h), curve ?? .linear) } })
                    ?? MIDIMapper.defaultRange(target, in: engine.preset).map({ ($0.0, curve ?? $0.1) }) else {
                throw ControlError("learn: give \(target)'s range (learn \(target) <min> <max> [linear|log|db])")
            }
            // A dry run checks that the parameter exists and takes the range's ends.
            _ = try editor.setting(target, to: lo ?? range.lowerBound)
            _ = try editor.setting(target, to: hi ?? range.upperBound)
            midi.learn(target, min: lo ?? range.lowerBound, max: hi ?? range.upperBound, curve: ownCurve)
            return .ok("learn \(target): move a controller")
        case .status:
            return .status(status())
        case .meters:
            return .meters(engine.meters)
        case .quit:
            return .quit
        }
    }

    /// Applies MIDI messages (oldest first) through ``midi``: notes and program changes run
    /// their commands now; controller moves are coalesced and applied once their target's
    /// interval has passed (call this every turn of the control loop, with or without
    /// messages). The results are what should be said: commands run, mappings learned,
    /// failures; controller edits themselves are quiet (counted in `status`).
    public func handleMIDI(_ messages: [[UInt8]], now: Double) -> [Result<Reply, ControlError>] {
        guard let midi else { return [] }
        if midi.mappings != engine.preset.midi && midi.learning == nil { midi.replace(engine.preset.midi) }  // a preset was loaded
        var out: [Result<Reply, ControlError>] = []
        for message in messages {
            for action in midi.receive(message) {
                switch action {
                case .command(let text):
                    do throws(ControlError) {
                        guard let command = try ControlCommand.parse(line: text) else { continue }
                        out.append(.success(try perform(command)))
                    } catch { out.append(.failure(ControlError("MIDI \(ControlError.quote(text)): \(error.message)"))) }
                case .learned(let mapping):
                    guard case .object(var top) = engine.document else { continue }
                    top["midi"] = .array(midi.mappings.map(\.json))
                    do throws(ControlError) {
                        try apply(.object(top))
                        out.append(.success(.ok("learned \(mapping.json.jsonText)")))
                    } catch { out.append(.failure(error)) }
                }
            }
        }
        for command in midi.due(now: now) {
            do throws(ControlError) { _ = try perform(command) } catch { out.append(.failure(ControlError("MIDI: \(error.message)"))) }
        }
        return out
    }

    /// `document` with each listed player's `offset` and `autoplay` set (a graph's channels).
    static func document(_ document: JSONValue, with positions: [String: (offset: Double, playing: Bool)]) -> JSONValue {
        guard case .object(var top) = document, case .object(var graph)? = top["graph"], case .array(var channels)? = graph["channels"] else { return document }
        for k in channels.indices {
            guard case .object(var channel) = channels[k], case .string(let id)? = channel["id"], let place = positions[id],
                  case .object(var player)? = channel["player"] else { continue }
            player["offset"] = .number((place.offset * 1000).rounded() / 1000)
            player["autoplay"] = .bool(place.playing)
            channel["player"] = .object(player); channels[k] = .object(channel)
        }
        graph["channels"] = .array(channels); top["graph"] = .object(graph)
        return .object(top)
    }

    /// The stream of the player channel `id` in the current plan.
    func player(_ id: String) throws(ControlError) -> PlayerState {
        if let s = engine.plan.playerStates.first(where: { $0.key == "player:\(id)" })?.state { return s }
        let ids = engine.plan.playerStates.map { String($0.key.dropFirst("player:".count)) }
        throw ControlError("\(ControlError.quote(id)) is not a player (\(ids.isEmpty ? "this preset has none" : "players: " + ids.joined(separator: ", ")))")
    }

    /// The engine's state merged with the host's fields.
    public func status() -> JSONValue {
        var fields: [String: JSONValue] = [
            "preset": .string(engine.preset.name),
            "form": .string(engine.preset.formName),
            "sampleRate": .number(engine.sampleRate),
            "latencyFrames": .number(Double(engine.latencyFrames)),
            "nonFiniteBlocks": .number(Double(engine.nonFiniteBlocks)),
            "meters": engine.meters,
            "document": engine.document,
        ]
        // Plugin nodes: which plugin, its latency, and how long its `run` takes per block.
        var plugins: [String: JSONValue] = [:]
        for (key, state) in engine.plan.pluginStates {
            let stats = state.statistics
            plugins[key] = .object([
                "plugin": .string(state.spec.source.description), "name": .string(state.name),
                "instances": .number(Double(state.instanceCount)), "latencyFrames": .number(Double(state.latencyFrames)),
                "blocks": .number(Double(stats.blocks)),
                "runMeanMicroseconds": .number((stats.meanMicroseconds * 100).rounded() / 100),
                "runMaxMicroseconds": .number((stats.maxMicroseconds * 100).rounded() / 100),
            ])
        }
        if !plugins.isEmpty { fields["plugins"] = .object(plugins) }
        if let midi { fields["midi"] = midi.statusJSON }
        for (k, v) in hostStatus() { fields[k] = v }
        return .object(fields)
    }

    /// Applies an edited document: continuous filter and EQ parameters move inside the running
    /// kernels, anything else swaps in a new plan (``LiveEngine/apply(document:)``).
    func apply(_ edited: JSONValue) throws(ControlError) {
        do { try engine.apply(document: edited) } catch { throw ControlError(error.description) }
    }
}
