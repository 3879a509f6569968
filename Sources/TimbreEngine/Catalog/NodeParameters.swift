/// The settings of one node kind, as a preset holds them (`FilterDesign` for the filters,
/// ``EQSettings``, ``GainSettings``, ``PanSettings``, ``PitchSettings``, ``AnalysisSettings``,
/// ``PluginSpec``). Each kind's file in `Nodes/` defines its type and registers it in
/// `NodeCatalog`.
public protocol NodeParameters: Sendable, Equatable {}

extension NodeParameters {
    /// Equality across kinds (false when `other` is another kind's settings).
    func isEqual(to other: any NodeParameters) -> Bool { (other as? Self) == self }
}

/// What a node does: one kind's settings. Build one with the kind's factory
/// (`.filter(…)`, `.eq(…)`, `.gain(linear:)`, `.pan(…)`, `.pitch(semitones:)`,
/// `.analysis(…)`, `.plugin(…)`) and read it back with ``settings(as:)``.
public struct NodeKind: Sendable, Equatable {
    /// The kind's settings.
    public let parameters: any NodeParameters

    public init(_ parameters: some NodeParameters) { self.parameters = parameters }

    /// The settings if this node is of the kind whose settings type is `type`, else nil.
    public func settings<P: NodeParameters>(as type: P.Type) -> P? { parameters as? P }

    public static func == (a: NodeKind, b: NodeKind) -> Bool { a.parameters.isEqual(to: b.parameters) }
}
