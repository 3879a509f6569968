import Foundation
import TimbreEngine

/// What control messages may make the host load (issue: only its user drives it).
///
/// A `plugin` node naming a LADSPA library by a file path (`"ladspa": "/tmp/x.so:label"`)
/// would make the host `dlopen` that file, running its constructors inside the host. Presets
/// given on the command line are the user's own and may do so; an `insert` or a `load` that
/// arrives as a control message (stdin, OSC, a socket, the web page) may not: LADSPA plugins
/// then resolve by file name in `LADSPA_PATH` and the standard folders only, and LV2 plugins
/// by URI in the lilv world (which reads only the installed bundles).
public enum ControlPolicy {
    /// The `ladspa` values of every plugin node, and the `file` values of every `fir` and
    /// `convolver` node, in `document` that name a file by path (containing `/`), with their
    /// JSON paths.
    public static func pluginFilePaths(in document: JSONValue, path: String = "") -> [(path: String, value: String)] {
        switch document {
        case .object(let o):
            var found: [(String, String)] = []
            if case .string(let type)? = o["type"], type == "plugin", case .string(let id)? = o["ladspa"], id.contains("/") {
                found.append((path + ".ladspa", id))
            }
            // A fir's or convolver's response files: by name in the host's preset folder only.
            if case .string(let type)? = o["type"], type == "fir" || type == "convolver", let file = o["file"] {
                let names: [JSONValue] = if case .array(let list) = file { list } else { [file] }
                for case .string(let name) in names where name.contains("/") { found.append((path + ".file", name)) }
            }
            for key in o.keys.sorted() { found += pluginFilePaths(in: o[key]!, path: path.isEmpty ? key : path + "." + key) }
            return found
        case .array(let a):
            return a.enumerated().flatMap { pluginFilePaths(in: $1, path: "\(path)[\($0)]") }
        default:
            return []
        }
    }

    /// Throws when `document` (a node or a preset from a control message) names a plugin file by path.
    static func refusePluginFilePaths(in document: JSONValue, what: String) throws(ControlError) {
        guard let first = pluginFilePaths(in: document).first else { return }
        let rule = first.path.hasSuffix(".file")
            ? "names a response file by path, which control messages may not do (name a file in the preset's folder; put a path in a preset given on the command line)"
            : "names a plugin file by path, which control messages may not do "
            + "(LADSPA plugins are found by file name in LADSPA_PATH and the standard folders; put a path in a preset given on the command line)"
        throw ControlError("\(what): \(first.path) \(ControlError.quote(first.value)) " + rule, remote: "\(what): \(first.path) " + rule)
    }

    /// Resolves a preset path a control message names: it must lie inside `folder` once every
    /// symbolic link is followed (no `..`, no absolute path, no link out of it). Returns the
    /// resolved path, or throws naming the folder.
    public static func presetPath(_ requested: String, inside folder: String) throws(ControlError) -> String {
        let base = URL(fileURLWithPath: folder).resolvingSymlinksInPath().standardizedFileURL.path
        let candidate = URL(fileURLWithPath: requested, relativeTo: URL(fileURLWithPath: base, isDirectory: true))
            .standardizedFileURL.resolvingSymlinksInPath().path
        guard candidate.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            throw ControlError("\(ControlError.quote(requested)) is outside the presets folder \(base) (control messages load presets from there; start with --allow-any-path to lift this)")
        }
        return candidate
    }
}
