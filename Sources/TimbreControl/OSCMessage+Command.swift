import TimbreEngine

/// Timbre's OSC namespace, mapped onto ``ControlCommand``:
///
/// ```
/// /timbre/set     s:"node.param"  f|i|d:value, or s:choice, or T|F
/// /timbre/bypass  s:"node"        T|F, or i|f 0|1
/// /timbre/load    s:"/path/preset.json"
/// /timbre/insert  i:position      s:"{node JSON}"
/// /timbre/remove  s:"node"
/// /timbre/learn   s:"node.param" [f:min f:max [s:curve]]
/// /timbre/save    [T|F:player positions] [s:"preset.json"]
/// /timbre/record  [s:verb s…]     (as the `record` line: start FILE [source], stop, marker …)
/// /timbre/status                  (answered to the sender: /timbre/status s:JSON)
/// /timbre/meters                  (answered to the sender: /timbre/meters s:JSON)
/// ```
/// Values get the same checks as typed commands: non-finite numbers are refused, switches
/// take exactly 0 or 1 (or T/F), ids contain no dot.
extension OSCMessage {
    public func command() throws(ControlError) -> ControlCommand {
        func number(_ a: Argument, _ what: String) throws(ControlError) -> Double {
            let v: Double
            switch a {
            case .float(let f): v = Double(f)
            case .int(let i): v = Double(i)
            case .double(let d): v = d
            case .int64(let i): v = Double(i)
            default: throw ControlError("\(what) must be a number (f, i or d)")
            }
            guard v.isFinite else { throw ControlError("\(what) \(v) is not a finite number") }
            return v == 0 ? 0 : v
        }
        func string(_ a: Argument, _ what: String) throws(ControlError) -> String {
            guard case .string(let s) = a else { throw ControlError("\(what) must be a string (s)") }
            return s
        }
        do throws(ControlError) {
            return try mapped(number: number, string: string)
        } catch {
            throw error.message.hasPrefix("OSC") ? error : ControlError("OSC \(address): \(error.message)")
        }
    }

    private func mapped(number: (Argument, String) throws(ControlError) -> Double,
                        string: (Argument, String) throws(ControlError) -> String) throws(ControlError) -> ControlCommand {
        switch (address, arguments.count) {
        case ("/timbre/set", 2):
            let addr = try ControlCommand.parameterAddress(try string(arguments[0], "the parameter"))
            if case .string(let word) = arguments[1] { return .setValue(address: addr, value: .string(word)) }
            if case .bool(let b) = arguments[1] { return .setValue(address: addr, value: .bool(b)) }
            return .set(address: addr, value: try number(arguments[1], "the value"))
        case ("/timbre/bypass", 2):
            let node = try ControlCommand.nodeID(try string(arguments[0], "the node"))
            if case .bool(let b) = arguments[1] { return .bypass(node: node, on: b) }
            let v = try number(arguments[1], "the switch")
            guard v == 0 || v == 1 else { throw ControlError("the switch must be 0 or 1 (or T/F), got \(v)") }
            return .bypass(node: node, on: v == 1)
        case ("/timbre/load", 1):
            let path = try string(arguments[0], "the path")
            guard !path.isEmpty else { throw ControlError("empty path") }
            return .load(path: path)
        case ("/timbre/insert", 2):
            let position = try number(arguments[0], "the position")
            guard position >= 0, position <= 10_000, position == position.rounded() else {
                throw ControlError("position \(position) is not a whole number 0…10000")
            }
            return try ControlCommand.insert(position: Int(position), json: try string(arguments[1], "the node JSON"))
        case ("/timbre/remove", 1):
            return .remove(node: try ControlCommand.nodeID(try string(arguments[0], "the node")))
        case ("/timbre/play", 1): return .play(player: try ControlCommand.nodeID(try string(arguments[0], "the player")))
        case ("/timbre/pause", 1): return .pause(player: try ControlCommand.nodeID(try string(arguments[0], "the player")))
        case ("/timbre/stop", 1): return .stop(player: try ControlCommand.nodeID(try string(arguments[0], "the player")))
        case ("/timbre/seek", 2):
            let id = try ControlCommand.nodeID(try string(arguments[0], "the player"))
            let t = try number(arguments[1], "the time")
            guard t >= 0 else { throw ControlError("seek: \(t) s is before the start of the file") }
            return .seek(player: id, seconds: t)
        case ("/timbre/learn", 1), ("/timbre/learn", 3), ("/timbre/learn", 4):
            let word = try string(arguments[0], "the parameter")
            let range = arguments.count >= 3 ? (try number(arguments[1], "the minimum"), try number(arguments[2], "the maximum")) : nil
            do { return try ControlCommand.learn(word, range: range, curve: arguments.count == 4 ? try string(arguments[3], "the curve") : nil) }
            catch { throw ControlError("learn: \(error.message)") }
        case ("/timbre/record", _):
            var words: [String] = []
            for (k, a) in arguments.enumerated() { words.append(try string(a, "argument \(k + 1)")) }
            if let verb = words.first, !ControlCommand.recordVerbs.contains(verb) {
                throw ControlError("record: unknown verb \(ControlError.quote(verb)) (start, stop, pause, resume, marker, discard, status)")
            }
            return .record(words: words)
        case ("/timbre/subscribe", 0): return .subscribe
        case ("/timbre/status", 0): return .status
        case ("/timbre/save", 0): return .save(path: nil)
        case ("/timbre/save", 1):
            if case .bool(let positions) = arguments[0] { return .save(path: nil, positions: positions) }
            return .save(path: try string(arguments[0], "the preset path"))
        case ("/timbre/save", 2):
            guard case .bool(let positions) = arguments[0] else { throw ControlError("/timbre/save T|F s: the first argument is T or F (player positions)") }
            return .save(path: try string(arguments[1], "the preset path"), positions: positions)
        case ("/timbre/meters", 0): return .meters
        default:
            throw ControlError("OSC: unknown message \(ControlError.quote(address)) with \(arguments.count) arguments (known: /timbre/set s f, /timbre/bypass s i, /timbre/load s, /timbre/insert i s, /timbre/remove s, /timbre/play s, /timbre/pause s, /timbre/stop s, /timbre/seek s f, /timbre/learn s [f f [s]], /timbre/subscribe, /timbre/status, /timbre/meters, /timbre/save [T|F] [s], /timbre/record s…)")
        }
    }
}
