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
        FIRNode.self,
        ConvolverNode.self,
        DelayNode.self,
        StereoNode.self,
        TremoloNode.self,
        ChorusNode.self,
        PhaserNode.self,
        DistortionNode.self,
        BitcrushNode.self,
        LadderNode.self,
        ReverbNode.self,
        RingModNode.self,
        DenoiseNode.self,
        DehumNode.self,
        CrossfeedNode.self,
        CrossoverNode.self,
        DriversNode.self,
        MatrixNode.self,
        LoudnessCompensationNode.self,
        DeplosiveNode.self,
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
    static func liveValues(fromAny old: any NodeParameters, to new: any NodeParameters, sampleRate: Double) -> [Double]? {
        guard let old = old as? Parameters, let new = new as? Parameters else { return nil }
        return liveValues(from: old, to: new, sampleRate: sampleRate)
    }
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

extension NodeCatalog {
    /// Every kind's parameters, by its first JSON `type`.
    package static var parameterSpecs: [(type: String, specs: [ParameterSpec])] {
        definitions.map { ($0.typeNames.count > 3 ? $0.typeNames[0] + "/…" : $0.typeNames.joined(separator: "/"), $0.parameterSpecs) }
            + [("graph", GraphSources.parameterSpecs)]
    }

    /// The spec of the parameter a live path names (`eq.bands[2].gain`, `trim.gain`) in
    /// `preset`, by its node's kind; nil for graph paths and unknown keys.
    package static func parameterSpec(forPath path: String, in preset: Preset) -> ParameterSpec? {
        let node = String(path.prefix { $0 != "." })
        guard let kind = preset.allNodes.first(where: { $0.id == node })?.kind else { return nil }
        // `bands[2].gain` → `bands[].gain`
        let key = String(path.dropFirst(node.count + 1)).replacingOccurrences(of: #"\[[0-9]+\]"#, with: "[]", options: .regularExpression)
        return kind.definition.parameterSpecs.first { $0.key == key }
    }

    /// `timbre presets parameters`: a line per parameter (type, key, range and unit, default,
    /// scale, whether it moves live).
    package static var parameterTable: [String] {
        var lines = ["type                  key                             range                     default   scale         live"]
        for (type, specs) in parameterSpecs {
            var seen = Set<String>()
            for s in specs where seen.insert(s.key).inserted {
                let range = "\(JSONValue.number(s.range.lowerBound).brief)…\(JSONValue.number(s.range.upperBound).brief) \(s.unit)"
                lines.append([type.padding(21), s.key.padding(31), range.padding(25), (s.defaultValue.map { JSONValue.number($0).brief } ?? "—").padding(9),
                              s.scale.rawValue.padding(13), s.movesLive ? "in kernel" : "new plan"].joined(separator: " "))
            }
        }
        return lines
    }

    /// `timbre presets parameters --json`.
    package static var parameterJSON: JSONValue {
        // Keyed by every JSON type name of a kind (the table shortens long lists).
        .object(Dictionary(uniqueKeysWithValues: definitions.map { ($0.typeNames.joined(separator: "/"), JSONValue.array($0.parameterSpecs.map(\.json))) }
            + [("graph", JSONValue.array(GraphSources.parameterSpecs.map(\.json)))]))
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : padding(toLength: width, withPad: " ", startingAt: 0) }
}
