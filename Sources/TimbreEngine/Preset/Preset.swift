import TimbreDSP

/// A decoded, validated preset (format version 1). See `Presets/README.md`.
public struct Preset: Sendable, Equatable {
    public static let formatVersion = 1
    public var name: String
    public var description: String?
    /// The simple form: one chain from inputs to outputs (empty when `graph` is used).
    public var chain: [NodeSpec]
    /// The graph form: channels, groups and master (nil for the simple form).
    public var graph: GraphSpec?

    public init(name: String, description: String? = nil, chain: [NodeSpec], graph: GraphSpec? = nil) {
        self.name = name; self.description = description; self.chain = chain; self.graph = graph
    }

    /// Every node of the preset with its path, in processing order (chain, or each channel,
    /// group and master chain).
    public var allNodes: [NodeSpec] {
        guard let graph else { return chain }
        return graph.channels.flatMap(\.chain) + graph.groups.flatMap(\.chain) + graph.master.chain
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
