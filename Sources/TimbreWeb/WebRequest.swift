import Foundation
import TimbreControl
import TimbreEngine

/// A message from a page, protocol version 1 (docs/WEB.md): one JSON object with `"v": 1`,
/// an optional `"id"` (echoed in the reply) and one of
///
/// - `"command": "<a live command>"` — the stdin grammar (`set eq.bands[2].gain 3`,
///   `bypass hp on`, `load show.json`, `record start take.wav master`, `status` …);
/// - `"set": "<node>.<param>", "value": <number, string or boolean>` — any parameter,
///   choices (`"shape": "lowshelf"`) and switches included;
/// - `"meters": true|false` — meter frames on (the default) or off for this page.
package enum WebRequest: Equatable, Sendable {
    case command(id: Int?, line: String)
    case set(id: Int?, address: String, value: JSONValue)
    case meters(id: Int?, on: Bool)

    package var id: Int? {
        switch self { case .command(let id, _), .set(let id, _, _), .meters(let id, _): id }
    }

    /// Parses one message; throws a short reason (with the id when one could be read).
    package static func parse(_ text: String) throws(WebRequestError) -> WebRequest {
        guard text.utf8.count <= WebControlServer.maxMessageBytes else { throw WebRequestError(id: nil, "message of \(text.utf8.count) bytes refused (at most \(WebControlServer.maxMessageBytes))") }
        let root: JSONValue
        do { root = try PresetDecoder.parse(Data(text.utf8)) } catch { throw WebRequestError(id: nil, "not JSON: \(error)") }
        guard case .object(var o) = root else { throw WebRequestError(id: nil, "expected a JSON object, found \(root.typeName)") }
        var id: Int?
        if let raw = o.removeValue(forKey: "id") {
            guard case .number(let d) = raw, d == d.rounded(), abs(d) <= 9_007_199_254_740_991 else { throw WebRequestError(id: nil, "\"id\" must be a whole number") }
            id = Int(d)
        }
        guard case .number(1)? = o.removeValue(forKey: "v") else { throw WebRequestError(id: id, "\"v\" must be 1 (this host speaks protocol 1)") }
        if let raw = o.removeValue(forKey: "command") {
            guard case .string(let line) = raw else { throw WebRequestError(id: id, "\"command\" must be a string") }
            try finish(o, id)
            return .command(id: id, line: line)
        }
        if let raw = o.removeValue(forKey: "set") {
            guard case .string(let address) = raw else { throw WebRequestError(id: id, "\"set\" must be a string (<node>.<parameter>)") }
            guard let value = o.removeValue(forKey: "value") else { throw WebRequestError(id: id, "\"set\" needs a \"value\"") }
            switch value {
            case .number, .string, .bool: break
            default: throw WebRequestError(id: id, "\"value\" must be a number, a string or true/false")
            }
            try finish(o, id)
            return .set(id: id, address: address, value: value)
        }
        if let raw = o.removeValue(forKey: "meters") {
            guard case .bool(let on) = raw else { throw WebRequestError(id: id, "\"meters\" must be true or false") }
            try finish(o, id)
            return .meters(id: id, on: on)
        }
        throw WebRequestError(id: id, "expected one of \"command\", \"set\" or \"meters\"")
    }

    private static func finish(_ rest: [String: JSONValue], _ id: Int?) throws(WebRequestError) {
        if let key = rest.keys.sorted().first { throw WebRequestError(id: id, "unknown key \(ControlError.quote(key))") }
    }
}

/// Why a page's message was refused, and its id if it had one.
package struct WebRequestError: Error, Sendable {
    package let id: Int?
    package let message: String
    init(id: Int?, _ message: String) { self.id = id; self.message = message }
}
