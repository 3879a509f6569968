/// The registry of node kinds. The decoder, the encoder, the plan compiler, the response and
/// the summaries find a kind here, by its JSON `type` or by its settings' type.
///
/// Adding a kind: write `Nodes/<Kind>Node.swift` (its settings type, a ``NodeDefinition`` and
/// its render kernel) and add its definition to ``definitions``.
package enum NodeCatalog {
    /// Every node kind, in the order `unknown node type` errors list them.
    package static let definitions: [any NodeDefinition.Type] = [
        FilterNode.self,
        EQNode.self,
        GainNode.self,
        PanNode.self,
        PitchNode.self,
        AnalysisNode.self,
        PluginNode.self,
        CompressorNode.self,
        LimiterNode.self,
        GateNode.self,
    ]

    /// Every JSON `type` name, in catalog order.
    package static var typeNames: [String] { definitions.flatMap { $0.typeNames } }

    /// The kind that decodes JSON `type` `name`.
    package static func definition(forType name: String) -> (any NodeDefinition.Type)? {
        definitions.first { $0.typeNames.contains(name) }
    }

    /// The kind whose settings `parameters` are.
    package static func definition(for parameters: any NodeParameters) -> any NodeDefinition.Type {
        guard let d = definitions.first(where: { $0.accepts(parameters) }) else {
            preconditionFailure("\(type(of: parameters)) is not registered in NodeCatalog.definitions")
        }
        return d
    }
}

// Calls into a kind with its settings' concrete type (opened from the existential once, on the
// control thread).
extension NodeDefinition {
    static func accepts(_ p: any NodeParameters) -> Bool { p is Parameters }
    static func typeName(ofAny p: any NodeParameters) -> String { typeName(of: p as! Parameters) }
    static func encode(any p: any NodeParameters) -> [String: JSONValue] { encode(p as! Parameters) }
    static func lower(any p: any NodeParameters, into node: inout NodeLowering) throws(PresetError) { try lower(p as! Parameters, into: &node) }
    static func response(ofAny p: any NodeParameters, sampleRate: Double) -> NodeResponse { response(of: p as! Parameters, sampleRate: sampleRate) }
    static func summary(ofAny p: any NodeParameters) -> String { summary(of: p as! Parameters) }
    static func decodeAny(type: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> any NodeParameters {
        try decode(type: type, &o, path: path)
    }
}

extension NodeKind {
    /// This kind's catalog entry.
    var definition: any NodeDefinition.Type { NodeCatalog.definition(for: parameters) }
    /// The JSON `type` of this node.
    public var typeName: String { definition.typeName(ofAny: parameters) }
}
