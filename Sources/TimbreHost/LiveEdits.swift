import TimbreEngine

/// What live edits changed in a preset document: the leaf values that differ between the
/// document as loaded from its file and the running one, as `path old → new` (for `--watch`,
/// which says what a reload of a changed file replaces).
package enum LiveEdits {
    package static func differences(from old: JSONValue, to new: JSONValue) -> [String] {
        var a: [String: String] = [:], b: [String: String] = [:]
        flatten(old, "", into: &a); flatten(new, "", into: &b)
        return Set(a.keys).union(b.keys).sorted().compactMap { key in
            a[key] == b[key] ? nil : "\(key) \(a[key] ?? "(none)") → \(b[key] ?? "(none)")"
        }
    }

    package static func flatten(_ v: JSONValue, _ path: String, into out: inout [String: String]) {
        switch v {
        case .object(let o): for (k, x) in o { flatten(x, path.isEmpty ? k : path + "." + k, into: &out) }
        case .array(let a): for (i, x) in a.enumerated() { flatten(x, "\(path)[\(i)]", into: &out) }
        default: out[path] = v.brief
        }
    }
}
