import Foundation
import TimbreEngine

/// A live-control command, from stdin (`set eq.bands[2].gain 3`) or OSC (`/timbre/set`).
public enum ControlCommand: Equatable, Sendable {
    case set(address: String, value: Double)
    case bypass(node: String, on: Bool)
    case load(path: String)
    /// Inserts a node (its JSON object, on one line) at a position in the top-level chain.
    case insert(position: Int, node: JSONValue)
    /// Removes the node with this id.
    case remove(node: String)
    case status
    case quit

    /// Parses one stdin line. Returns nil for a blank line; throws a message for anything else
    /// it does not understand.
    public static func parse(line: String) throws(ControlError) -> ControlCommand? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first else { return nil }
        switch (verb, words.count) {
        case ("set", 3):
            guard let v = Double(words[2]), v.isFinite else { throw ControlError("set: \"\(words[2])\" is not a number") }
            return .set(address: words[1], value: v)
        case ("bypass", 3):
            switch words[2] {
            case "on", "true", "1": return .bypass(node: words[1], on: true)
            case "off", "false", "0": return .bypass(node: words[1], on: false)
            default: throw ControlError("bypass: expected on or off, got \"\(words[2])\"")
            }
        case ("load", 2...):
            return .load(path: words.dropFirst().joined(separator: " "))
        case ("insert", 3...):
            guard let position = Int(words[1]), position >= 0 else { throw ControlError("insert: \"\(words[1])\" is not a position") }
            let json = words.dropFirst(2).joined(separator: " ")
            do { return .insert(position: position, node: try PresetDecoder.parse(Data(json.utf8))) } catch {
                throw ControlError("insert: \(error)")
            }
        case ("remove", 2):
            return .remove(node: words[1])
        case ("status", 1): return .status
        case ("quit", 1), ("exit", 1): return .quit
        default:
            throw ControlError("unknown command \"\(line)\" (commands: set <node>.<param> <value>, bypass <node> on|off, load <preset.json>, insert <position> <node JSON>, remove <node>, status, quit)")
        }
    }
}
