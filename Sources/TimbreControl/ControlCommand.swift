import Foundation
import TimbreEngine

/// A live-control command, from a stdin line (`set eq.bands[2].gain 3`) or an OSC message
/// (`/timbre/set`). Parsing checks the grammar and the numbers; the `PresetDocumentEditor`
/// checks ids and parameters, and the preset decoder checks ranges.
public enum ControlCommand: Equatable, Sendable {
    case set(address: String, value: Double)
    /// Sets a parameter to a choice, a switch or a number given as JSON (`set
    /// eq.bands[0].shape lowshelf` on stdin, a string over OSC, any value from the web page).
    case setValue(address: String, value: JSONValue)
    case bypass(node: String, on: Bool)
    case load(path: String)
    /// Writes the running document: to `path`, or (nil) over the preset it was loaded from;
    /// with `positions`, each player's place (as its `offset`) and whether it plays (as its
    /// `autoplay`), so a reload resumes there.
    case save(path: String?, positions: Bool = false)
    /// Inserts a node (its JSON object, on one line) at a position in the top-level chain.
    case insert(position: Int, node: JSONValue)
    /// Removes the node with this id.
    case remove(node: String)
    /// File players: play, pause, stop (pause and rewind to the region's start), seek to a
    /// second of the file.
    case play(player: String)
    case pause(player: String)
    case stop(player: String)
    case seek(player: String, seconds: Double)
    /// OSC: send this client the players' `looped` and `finished` events (`/timbre/event s s`).
    case subscribe
    /// `--midi`: bind the next controller that moves to a parameter, over a range (nil: the
    /// parameter's own) and curve.
    case learn(target: String, min: Double?, max: Double?, curve: MIDIMapping.Curve?)
    /// Takes: `record start FILE [master|inputs|<bus>]`, `record stop|pause|resume|discard|status
    /// [FILE]`, `record marker [label]`, `record` alone (start armed takes): the words after
    /// `record`, carried out by the host's take session (``ControlInterpreter/recordTakes``).
    case record(words: [String])
    case status
    /// The newest values of every `meter` and `loudness` node.
    case meters
    case quit

    /// The grammar, for help and error messages.
    public static let usage = "set <node>.<param> <value>, bypass <node> on|off, load <preset.json>, save [--positions] [preset.json], insert <position> <node JSON>, remove <node>, play|pause|stop <player>, seek <player> <seconds>, learn <node>.<param> [min max [linear|log|db]], record start <file> [master|inputs|<bus>] | stop|pause|resume|marker|discard|status, status, meters, quit"

    /// The verbs of `record`.
    public static let recordVerbs: Set<String> = ["start", "stop", "pause", "resume", "marker", "discard", "status"]

    /// Longest line accepted (a whole preset fits easily; anything longer is refused unread).
    public static let maxLineBytes = 65536

    /// Parses one stdin line. Returns nil for a blank line; throws one short message for
    /// anything else it does not understand.
    public static func parse(line: String) throws(ControlError) -> ControlCommand? {
        guard line.utf8.count <= maxLineBytes else {
            throw ControlError("line of \(line.utf8.count) bytes refused (at most \(maxLineBytes))")
        }
        if line.unicodeScalars.contains("\u{FFFD}") { throw ControlError("line is not valid UTF-8: \(ControlError.quote(line))") }
        if line.unicodeScalars.contains(where: { $0.value == 0 }) { throw ControlError("line contains a NUL byte") }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let verb = words.first else { return nil }
        switch (verb, words.count) {
        case ("set", 3):
            do throws(ControlError) {
                let address = try parameterAddress(words[1])
                // A word (a choice such as lowshelf) rather than a number.
                if let first = words[2].unicodeScalars.first, CharacterSet.letters.contains(first), words[2] != "nan", words[2] != "inf", words[2] != "infinity",
                   words[2].unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }) {
                    return .setValue(address: address, value: .string(words[2]))
                }
                return .set(address: address, value: try DecimalNumber.parse(words[2]))
            } catch { throw ControlError("set: \(error.message)") }
        case ("bypass", 3):
            let node: String
            do { node = try nodeID(words[1]) } catch { throw ControlError("bypass: \(error.message)") }
            switch words[2] {
            case "on", "true", "1": return .bypass(node: node, on: true)
            case "off", "false", "0": return .bypass(node: node, on: false)
            default: throw ControlError("bypass: expected on or off, got \(ControlError.quote(words[2]))")
            }
        case ("load", 2...):
            return .load(path: words.dropFirst().joined(separator: " "))
        case ("save", 1): return .save(path: nil)
        case ("save", 2) where words[1] == "--positions": return .save(path: nil, positions: true)
        case ("save", 3...) where words[1] == "--positions": return .save(path: words.dropFirst(2).joined(separator: " "), positions: true)
        case ("save", 2...): return .save(path: words.dropFirst().joined(separator: " "))
        case ("insert", 3...):
            guard let position = Int(words[1]), position >= 0 else { throw ControlError("insert: \(ControlError.quote(words[1])) is not a position (0, 1, 2 …)") }
            return try insert(position: position, json: words.dropFirst(2).joined(separator: " "))
        case ("remove", 2):
            do { return .remove(node: try nodeID(words[1])) } catch { throw ControlError("remove: \(error.message)") }
        case ("play", 2), ("pause", 2), ("stop", 2):
            let id: String
            do { id = try nodeID(words[1]) } catch { throw ControlError("\(verb): \(error.message)") }
            return verb == "play" ? .play(player: id) : verb == "pause" ? .pause(player: id) : .stop(player: id)
        case ("seek", 3):
            do throws(ControlError) {
                let id = try nodeID(words[1])
                let t = try DecimalNumber.parse(words[2])
                guard t >= 0 else { throw ControlError("\(JSONValue.number(t).brief) s is before the start of the file") }
                return .seek(player: id, seconds: t)
            } catch { throw ControlError("seek: \(error.message)") }
        case ("learn", 2), ("learn", 4), ("learn", 5):
            do throws(ControlError) {
                guard words.count >= 4 else { return try learn(words[1], range: nil, curve: nil) }
                return try learn(words[1], range: (try DecimalNumber.parse(words[2]), try DecimalNumber.parse(words[3])), curve: words.count == 5 ? words[4] : nil)
            } catch { throw ControlError("learn: \(error.message)") }
        case ("record", _):
            if words.count > 1, !recordVerbs.contains(words[1]) {
                throw ControlError("record: unknown verb \(ControlError.quote(words[1])) (record start <file> [master|inputs|<bus>], record stop|pause|resume|marker [label]|discard|status)")
            }
            return .record(words: Array(words.dropFirst()))
        case ("status", 1): return .status
        case ("meters", 1): return .meters
        case ("quit", 1), ("exit", 1): return .quit
        case ("set", _), ("bypass", _), ("remove", _), ("play", _), ("pause", _), ("stop", _), ("seek", _), ("status", _), ("meters", _), ("quit", _), ("exit", _), ("insert", _), ("load", _), ("learn", _):
            throw ControlError("\(verb): wrong number of arguments (commands: \(usage))")
        default:
            throw ControlError("unknown command \(ControlError.quote(line)) (commands: \(usage))")
        }
    }

    /// `insert`: a node's JSON object at a position (the line's and OSC's one check).
    static func insert(position: Int, json: String) throws(ControlError) -> ControlCommand {
        do { return .insert(position: position, node: try PresetDecoder.parse(Data(json.utf8))) } catch { throw ControlError("insert: \(error)") }
    }

    /// `learn`: a parameter, an optional range and curve name (the line's and OSC's one check).
    static func learn(_ word: String, range: (Double, Double)?, curve name: String?) throws(ControlError) -> ControlCommand {
        let target = try parameterAddress(word)
        guard let (lo, hi) = range else { return .learn(target: target, min: nil, max: nil, curve: nil) }
        guard lo != hi else { throw ControlError("the range \(JSONValue.number(lo).brief)…\(JSONValue.number(hi).brief) is empty") }
        var curve: MIDIMapping.Curve?
        if let name {
            guard let c = MIDIMapping.Curve(rawValue: name) else { throw ControlError("\(ControlError.quote(name)) is not a curve (linear, log, db)") }
            guard c != .log || (lo > 0 && hi > 0) else { throw ControlError("a log curve needs a range above 0") }
            curve = c
        }
        return .learn(target: target, min: lo, max: hi, curve: curve)
    }

    /// A line for a recording host (`timbre record`): the same grammar, where the take's verbs
    /// may also stand alone — `pause`, `resume`, `marker intro`, `stop`, `discard`, `status`
    /// read as `record pause` and so on.
    public static func parse(takeLine line: String) throws(ControlError) -> ControlCommand? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        if let first = words.first, first != "start", recordVerbs.contains(first), line.utf8.count <= maxLineBytes { return .record(words: words) }
        return try parse(line: line)
    }

    /// A node id as typed (or `chain[i]`): non-empty, no dot, so `hp.x` is not taken for `hp`.
    static func nodeID(_ word: String) throws(ControlError) -> String {
        guard !word.isEmpty, !word.contains(".") else {
            throw ControlError("\(ControlError.quote(word)) is not a node id (ids contain no '.')")
        }
        return word
    }

    /// `<node>.<param path>` with both parts non-empty.
    static func parameterAddress(_ word: String) throws(ControlError) -> String {
        guard let dot = word.firstIndex(of: "."), dot != word.startIndex, word.index(after: dot) != word.endIndex else {
            throw ControlError("\(ControlError.quote(word)) is not <node>.<parameter>")
        }
        return word
    }
}
