import TimbreEngine
import TimbreDSP

/// Edits a preset document for live control: each edit returns a new JSON document, which
/// the caller decodes with the same strict decoder as files (so a live edit fails exactly
/// like a file would) and publishes. The editor resolves node ids and knows which parameters
/// are switches (``ParameterRanges/switchParameters``); ranges stay the decoder's.
package struct PresetDocumentEditor: Sendable {
    package let document: JSONValue
    package let preset: Preset

    package init(document: JSONValue, preset: Preset) { self.document = document; self.preset = preset }

    /// `address` is `<id>.<param>` for any object with an `id` (a chain node, a graph channel
    /// or group) or `chain[i].<param>`, e.g. `presence.gain`, `eq.bands[3].frequency`,
    /// `vocals.volume`, `drums.mute`; on a player channel `backing.rate` and `backing.loops`
    /// mean its `player.rate` and `player.loops`; on a `plugin` node `amp.gain` means its
    /// `controls.gain` (the port symbol). Switches (`mute`, `solo`, `bypass`) take 0 or 1.
    package func setting(_ address: String, to value: Double) throws(ControlError) -> JSONValue {
        guard value.isFinite else { throw ControlError("\(address): \(value) is not a finite number") }
        return try setting(address, toValue: .number(value))
    }

    /// Sets a parameter to a number, a string (a choice) or a boolean (a switch); the decoder
    /// then checks it like any value in a file.
    package func setting(_ address: String, toValue value: JSONValue) throws(ControlError) -> JSONValue {
        switch value {
        case .number(let d): guard d.isFinite else { throw ControlError("\(address): \(d) is not a finite number") }
        case .string(let s): guard s.utf8.count <= 256 else { throw ControlError("\(address): a value of \(s.utf8.count) bytes refused") }
        case .bool: break
        default: throw ControlError("\(address): a value is a number, a word or true/false")
        }
        let (target, rest) = try resolve(address)
        guard var relative = JSONValue.parsePath(rest) else { throw ControlError("\(address): malformed parameter path") }
        var doc = document
        if target == [.key("graph"), .key("master")], doc.value(at: target[...]) == nil, let d = doc.setting(target[...], to: .object([:])) { doc = d }
        // `eq` without `bands` means ten default bands: materialise them before editing one.
        if case .key("bands") = relative.first, doc.value(at: (target + [.key("bands")])[...]) == nil,
           case .string("eq") = doc.value(at: (target + [.key("type")])[...]) {
            let defaults = JSONValue.array(EQBand.defaultCentersHz.map { .object(["frequency": .number($0)]) })
            if let d = doc.setting((target + [.key("bands")])[...], to: defaults) { doc = d }
        }
        // A player channel's `rate` and `loops` (AVAudioPlayer's properties) live in its `player`
        // object, and so do `volume` and `pan` when the preset wrote them there.
        if relative.count == 1, case .key(let k) = relative[0],
           k == "rate" || k == "loops" || ((k == "volume" || k == "pan") && doc.value(at: (target + [.key(k)])[...]) == nil
                                           && doc.value(at: (target + [.key("player"), .key(k)])[...]) != nil),
           case .object? = doc.value(at: (target + [.key("player")])[...]) {
            relative = [JSONValue.PathComponent.key("player"), .key(k)]
        }
        // A plugin node's controls are addressed by port symbol: `amp.gain` means `controls.gain`.
        if relative.count == 1, case .key(let k) = relative[0], k != "bypass",
           case .string("plugin") = doc.value(at: (target + [.key("type")])[...]) {
            if doc.value(at: (target + [.key("controls")])[...]) == nil, let d = doc.setting((target + [.key("controls")])[...], to: .object([:])) { doc = d }
            relative = [.key("controls"), .key(k)]
        }
        var newValue = value
        if relative.count == 1, case .key(let k) = relative[0], ParameterRanges.switchParameters.contains(k) {
            switch value {
            case .bool: break
            case .number(let d) where d == 0 || d == 1: newValue = .bool(d == 1)
            case .string("on"): newValue = .bool(true)
            case .string("off"): newValue = .bool(false)
            default: throw ControlError("\(address): a switch takes 0 (off) or 1 (on), got \(value.brief)")
            }
        }
        guard let edited = doc.setting((target + relative)[...], to: newValue) else {
            throw ControlError("\(address): no such parameter in this preset")
        }
        return edited
    }

    /// Bypasses (or restores) a chain node by id.
    package func bypassing(_ node: String, _ on: Bool) throws(ControlError) -> JSONValue {
        let (target, rest) = try resolve(node + ".bypass")
        guard rest == "bypass" else { throw ControlError("\(ControlError.quote(node)) is not a node id") }
        guard case .string? = document.value(at: (target + [.key("type")])[...]) else {
            throw ControlError("\(node) is a channel or group, not a chain node: use set \(node).mute 1")
        }
        guard let edited = document.setting((target + [.key("bypass")])[...], to: .bool(on)) else {
            throw ControlError("\(node): cannot bypass")
        }
        return edited
    }

    /// Inserts a node (its JSON object) at `position` in the top-level chain.
    package func inserting(_ node: JSONValue, at position: Int) throws(ControlError) -> JSONValue {
        guard case .object(var top) = document, case .array(var chain)? = top["chain"] else {
            throw ControlError("insert works on a chain preset; this one is a graph (edit the file and load it)")
        }
        guard (0...chain.count).contains(position) else { throw ControlError("position \(position) is outside 0…\(chain.count)") }
        chain.insert(node, at: position)
        top["chain"] = .array(chain)
        return .object(top)
    }

    /// Removes the chain node with this id (from whichever chain holds it).
    package func removing(_ node: String) throws(ControlError) -> JSONValue {
        let (target, rest) = try resolve(node + ".x")
        guard rest == "x" else { throw ControlError("\(ControlError.quote(node)) is not a node id") }
        guard case .string? = document.value(at: (target + [.key("type")])[...]),
              let edited = document.removing(target[...]) else { throw ControlError("\(node) is not a chain node") }
        return edited
    }

    /// Splits `<id>.<rest>` and finds the object with that id (or `chain[i]`).
    func resolve(_ address: String) throws(ControlError) -> ([JSONValue.PathComponent], String) {
        guard let dot = address.firstIndex(of: ".") else { throw ControlError("\(ControlError.quote(address)): expected <node>.<parameter>") }
        let node = String(address[..<dot]), rest = String(address[address.index(after: dot)...])
        if node.hasPrefix("chain[") {
            guard case .chain(let chain) = preset.form else { throw ControlError("\(node): this preset is a graph; address nodes by id") }
            guard node.hasSuffix("]"), let i = Int(node.dropFirst(6).dropLast()), i >= 0, i < chain.count else {
                throw ControlError("\(ControlError.quote(node)): no such chain position (0…\(chain.count - 1))")
            }
            return ([.key("chain"), .index(i)], rest)
        }
        // The master bus: by its id ("master" unless the preset names it).
        if case .graph(let g) = preset.form, node == g.master.id, document.pathOfObject(withID: node) == nil {
            let path: [JSONValue.PathComponent] = [.key("graph"), .key("master")]
            return (path, rest)
        }
        guard let path = document.pathOfObject(withID: node) else {
            let ids = preset.allIDs
            throw ControlError("no node with id \(ControlError.quote(node)) (ids: \(ids.isEmpty ? "none" : ids.joined(separator: ", ")))")
        }
        return (path, rest)
    }
}
