/// Editing a preset document in place, for live control: `set eq.bands[3].gain 6` edits the
/// JSON and the result is decoded again, so live edits are validated exactly like files.
extension JSONValue {
    /// One step of a path: an object key or an array index.
    package enum PathComponent: Equatable, Sendable {
        case key(String)
        case index(Int)
    }

    /// Parses `bands[3].gain` into [.key("bands"), .index(3), .key("gain")]; nil if malformed.
    package static func parsePath(_ text: String) -> [PathComponent]? {
        var out: [PathComponent] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(part)
            let name = rest.prefix { $0 != "[" }
            if name.isEmpty && out.isEmpty { return nil }
            if !name.isEmpty { out.append(.key(String(name))) }
            rest = rest.dropFirst(name.count)
            while rest.first == "[" {
                guard let close = rest.firstIndex(of: "]"), let i = Int(rest[rest.index(after: rest.startIndex)..<close]), i >= 0 else { return nil }
                out.append(.index(i))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { return nil }
        }
        return out.isEmpty ? nil : out
    }

    /// The value at `path`, if present.
    package func value(at path: ArraySlice<PathComponent>) -> JSONValue? {
        guard let first = path.first else { return self }
        switch (first, self) {
        case (.key(let k), .object(let o)): return o[k]?.value(at: path.dropFirst())
        case (.index(let i), .array(let a)) where i < a.count: return a[i].value(at: path.dropFirst())
        default: return nil
        }
    }

    /// A copy with `newValue` stored at `path`. Objects gain missing keys; arrays must already
    /// have the index. Returns nil when the path does not fit the document's shape.
    package func setting(_ path: ArraySlice<PathComponent>, to newValue: JSONValue) -> JSONValue? {
        guard let first = path.first else { return newValue }
        switch (first, self) {
        case (.key(let k), .object(var o)):
            let child = o[k] ?? (path.dropFirst().first.map { if case .index = $0 { return JSONValue.array([]) } else { return JSONValue.object([:]) } } ?? .null)
            guard let updated = child.setting(path.dropFirst(), to: newValue) else { return nil }
            o[k] = updated
            return .object(o)
        case (.index(let i), .array(var a)) where i < a.count:
            guard let updated = a[i].setting(path.dropFirst(), to: newValue) else { return nil }
            a[i] = updated
            return .array(a)
        default:
            return nil
        }
    }

    /// The path of the first object (depth first) whose `"id"` is `id`.
    package func pathOfObject(withID id: String) -> [PathComponent]? {
        switch self {
        case .object(let o):
            if case .string(id)? = o["id"] { return [] }
            for key in o.keys.sorted() {
                if let sub = o[key]!.pathOfObject(withID: id) { return [.key(key)] + sub }
            }
        case .array(let a):
            for (i, v) in a.enumerated() {
                if let sub = v.pathOfObject(withID: id) { return [.index(i)] + sub }
            }
        default: break
        }
        return nil
    }

    /// A copy without the array element at `path` (nil if `path` does not end in an index).
    package func removing(_ path: ArraySlice<PathComponent>) -> JSONValue? {
        guard let last = path.last, case .index(let i) = last,
              case .array(var a)? = value(at: path.dropLast()), i < a.count else { return nil }
        a.remove(at: i)
        return setting(path.dropLast(), to: .array(a))
    }
}
