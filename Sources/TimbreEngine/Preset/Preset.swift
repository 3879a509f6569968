import TimbreDSP

/// A decoded, validated preset (format version 1). See `Presets/README.md`.
public struct Preset: Sendable, Equatable {
    public static let formatVersion = 1
    public var name: String
    public var description: String?
    public var form: Form
    /// What MIDI messages do in `timbre live` (the `midi` section).
    public var midi: [MIDIMapping] = []

    /// The two shapes a preset takes.
    public enum Form: Sendable, Equatable {
        /// The simple form: one chain from inputs to outputs.
        case chain([NodeSpec])
        /// TheAmazingAudioEngine's form: channels, groups and a master bus.
        case graph(GraphSpec)
    }

    public init(name: String, description: String? = nil, form: Form) {
        self.name = name; self.description = description; self.form = form
    }

    /// `chain` or `graph`, as in the JSON.
    public var formName: String {
        switch form { case .chain: "chain"; case .graph: "graph" }
    }

    /// Every node of the preset with its path, in processing order (chain, or each channel,
    /// group and master chain).
    public var allNodes: [NodeSpec] {
        switch form {
        case .chain(let chain): chain
        case .graph(let g): g.channels.flatMap(\.chain) + g.groups.flatMap(\.chain) + g.auxes.flatMap(\.chain) + g.master.chain
        }
    }

    /// The host inputs a graph's channels read (one past the highest `input` index; 0 for a
    /// chain, which takes whatever it is given): what a host opens by default.
    public var inputChannelsUsed: Int {
        guard case .graph(let g) = form else { return 0 }
        return g.channels.compactMap { c -> Int? in if case .inputs(let i) = c.source { i.max().map { $0 + 1 } } else { nil } }.max() ?? 0
    }

    /// Every id a live command can address: nodes, and a graph's channels and groups.
    public var allIDs: [String] {
        var ids = allNodes.compactMap(\.id)
        if case .graph(let g) = form { ids += g.channels.map(\.id) + g.groups.map(\.id) + g.auxes.map(\.id) }
        return ids
    }

    /// One line per node for `demo` and `presets validate`: what a user needs to recognise it.
    public var outline: [String] {
        switch form {
        case .chain(let chain):
            return chain.map { "  - \($0.summary)" }
        case .graph(let g):
            var lines: [String] = []
            for c in g.channels {
                let source: String
                switch c.source {
                case .inputs(let i): source = "input " + i.map(String.init).joined(separator: "+")
                case .sine(let f, let l): source = "sine \(JSONValue.number(f).brief) Hz at \(JSONValue.number(l).brief) dBFS"
                case .player(let p): source = "player \(p.file)\(p.rate == 1 ? "" : " at \(JSONValue.number(p.rate).brief)× (\(p.rateMode.rawValue))")\(p.loops == 0 ? "" : p.loops < 0 ? ", looping" : ", \(p.loops) more times")"
                }
                lines.append("  channel \(c.id) (\(source)) → \(c.group ?? "master"): volume \(JSONValue.number(c.volume).brief), pan \(JSONValue.number(c.pan).brief)\(c.mute ? ", muted" : "")\(c.solo ? ", solo" : "")\(Self.sendsText(c.sends))")
                lines += c.chain.map { "    - \($0.summary)" }
            }
            for gr in g.groups {
                lines.append("  group \(gr.id) → master: volume \(JSONValue.number(gr.volume).brief)\(gr.mute ? ", muted" : "")\(Self.sendsText(gr.sends))")
                lines += gr.chain.map { "    - \($0.summary)" }
            }
            for a in g.auxes {
                lines.append("  aux \(a.id) → \(a.destination == .master ? "master" : "its own outputs"): volume \(JSONValue.number(a.volume).brief)\(a.mute ? ", muted" : "")")
                lines += a.chain.map { "    - \($0.summary)" }
            }
            lines.append("  master: volume \(JSONValue.number(g.master.volume).brief)")
            lines += g.master.chain.map { "    - \($0.summary)" }
            return lines
        }
    }
}

extension Preset {
    /// `, sends: mon1 0.8 pre, verb 0.3` (empty without sends).
    static func sendsText(_ sends: [SendSpec]) -> String {
        sends.isEmpty ? "" : ", sends: " + sends.map { "\($0.aux) \(JSONValue.number($0.level).brief)\($0.preFader ? " pre" : "")" }.joined(separator: ", ")
    }
}

/// One node of a chain, as written in a preset.
public struct NodeSpec: Sendable, Equatable {
    public var id: String?
    public var bypass: Bool
    public var kind: NodeKind
    /// Where the node came from (`chain[2]`), for error messages at compile time.
    public var path: String

    public init(id: String? = nil, bypass: Bool = false, kind: NodeKind, path: String = "") {
        self.id = id; self.bypass = bypass; self.kind = kind; self.path = path
    }
}
