import TimbreDSP

/// A decoded, validated preset (format version 1). See `Presets/README.md`.
public struct Preset: Sendable, Equatable {
    public static let formatVersion = 1
    public var name: String
    public var description: String?
    public var form: Form

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
        case .graph(let g): g.channels.flatMap(\.chain) + g.groups.flatMap(\.chain) + g.master.chain
        }
    }

    /// Every id a live command can address: nodes, and a graph's channels and groups.
    public var allIDs: [String] {
        var ids = allNodes.compactMap(\.id)
        if case .graph(let g) = form { ids += g.channels.map(\.id) + g.groups.map(\.id) }
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
                lines.append("  channel \(c.id) (\(source)) → \(c.group ?? "master"): volume \(JSONValue.number(c.volume).brief), pan \(JSONValue.number(c.pan).brief)\(c.mute ? ", muted" : "")\(c.solo ? ", solo" : "")")
                lines += c.chain.map { "    - \($0.summary)" }
            }
            for gr in g.groups {
                lines.append("  group \(gr.id) → master: volume \(JSONValue.number(gr.volume).brief)\(gr.mute ? ", muted" : "")")
                lines += gr.chain.map { "    - \($0.summary)" }
            }
            lines.append("  master: volume \(JSONValue.number(g.master.volume).brief)")
            lines += g.master.chain.map { "    - \($0.summary)" }
            return lines
        }
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

/// What a node does.
public enum NodeKind: Sendable, Equatable {
    /// One filter (high/low-pass cascade, bell, shelf, notch, band-pass, all-pass).
    case filter(FilterDesign)
    /// The 10-band parametric equaliser.
    case eq([EQBand])
    /// Gain as a linear factor (from `gain` dB or `volume` 0…1).
    case gain(linear: Double)
    /// Pan/balance −1…1.
    case pan(Double)
    /// A pitch shift at unchanged speed, in semitones (the node's `semitones` + `cents` / 100),
    /// with a fixed latency (``PitchShifter``).
    case pitch(semitones: Double)
    /// A pass-through measurement: `meter` (peaks, RMS, clips, ballistics) or `loudness`
    /// (R 128 momentary, short-term, integrated, range, and the meter's values).
    case analysis(AnalysisState.Kind, spectrum: SpectrumSettings? = nil)
    /// An LV2 or LADSPA plugin (loaded by the host: TimbrePlugins).
    case plugin(PluginSpec)
}

/// A `spectrum` node's analyser settings.
public struct SpectrumSettings: Sendable, Equatable {
    public var size: Int
    public var window: SpectrumWindow
    /// Exponential averaging time constant (0: the last frame only).
    public var averagingSeconds: Double
    public init(size: Int = 4096, window: SpectrumWindow = .hann, averagingSeconds: Double = 0.3) {
        self.size = size; self.window = window; self.averagingSeconds = averagingSeconds
    }
}

/// One band of the parametric EQ.
public struct EQBand: Sendable, Equatable {
    public var frequencyHz: Double
    public var gainDB: Double
    public var q: Double
    /// `.peak`, `.lowShelf` or `.highShelf`.
    public var shape: FilterType
    public var method: DesignMethod

    public init(frequencyHz: Double, gainDB: Double = 0, q: Double = 1, shape: FilterType = .peak, method: DesignMethod = .matched) {
        self.frequencyHz = frequencyHz; self.gainDB = gainDB; self.q = q; self.shape = shape; self.method = method
    }

    /// The default centres: the octave series of a 10-band graphic EQ.
    public static let defaultCentersHz: [Double] = [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]

    public var design: FilterDesign {
        FilterDesign(type: shape, frequencyHz: frequencyHz, gainDB: gainDB, q: q, method: method)
    }
}
