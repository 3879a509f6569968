import TimbreDSP

// `plugin`: an LV2 plugin by URI or a LADSPA plugin by "file.so:label", with control values by
// port symbol and an optional preset of its own. Loaded by the host's ``PluginLoader``
// (TimbrePlugins); its instances are shared state (``PluginState``) kept across plans.

extension PluginSpec: NodeParameters {}

extension NodeKind {
    /// An LV2 or LADSPA plugin (loaded by the host: TimbrePlugins).
    public static func plugin(_ spec: PluginSpec) -> NodeKind { NodeKind(spec) }
}

package enum PluginNode: NodeDefinition {
    package static let typeNames = ["plugin"]
    /// None of its own: a plugin's controls are its ports, listed by `timbre plugins info`.
    package static let parameterSpecs: [ParameterSpec] = []
    package static func typeName(of _: PluginSpec) -> String { "plugin" }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> PluginSpec {
        let uri = try o.optional("uri"), ladspa = try o.optional("ladspa")
        let source: PluginSpec.Source
        switch (uri, ladspa) {
        case (let u?, nil):
            let s = try u.string()
            guard s.contains(":"), !s.isEmpty else { throw PresetError(path: u.path, "\"\(s)\" is not a URI (an LV2 plugin's URI, as `timbre plugins` lists)") }
            source = .lv2(uri: s)
        case (nil, let l?):
            let s = try l.string()
            let parts = s.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw PresetError(path: l.path, "\"\(s)\" is not \"file.so:label\" (as `timbre plugins` lists LADSPA plugins)")
            }
            source = .ladspa(s)
        case (nil, nil): throw PresetError(path: path, "a plugin node needs \"uri\" (LV2) or \"ladspa\" (\"file.so:label\")")
        default: throw PresetError(path: path, "give either \"uri\" (LV2) or \"ladspa\", not both")
        }
        var controls: [String: Double] = [:]
        if let c = try o.optional("controls") {
            guard case .object(let entries) = c.value else { throw PresetError(path: c.path, "expected an object of port symbols and values, found \(c.value.typeName) \(c.value.brief)") }
            for (symbol, value) in entries {
                let field = Field(value: value, path: c.path + "." + symbol)
                if case .bool(let b) = value { controls[symbol] = b ? 1 : 0 } else { controls[symbol] = try field.number() }
            }
        }
        let preset = try o.optional("preset")?.string()
        return PluginSpec(source: source, controls: controls, preset: preset)
    }

    package static func encode(_ p: PluginSpec) -> [String: JSONValue] {
        var o: [String: JSONValue] = [:]
        switch p.source {
        case .lv2(let uri): o["uri"] = .string(uri)
        case .ladspa(let id): o["ladspa"] = .string(id)
        }
        if !p.controls.isEmpty { o["controls"] = .object(p.controls.mapValues { .number($0) }) }
        if let preset = p.preset { o["preset"] = .string(preset) }
        return o
    }

    package static func lower(_ spec: PluginSpec, into node: inout NodeLowering) throws(PresetError) {
        guard let registry = node.registry, let loader = registry.services.plugins else {
            throw PresetError(path: node.path, PluginLoader.missing)
        }
        let (key, path, channels, rate, block) = (node.key, node.path, node.channels, node.sampleRate, node.maxBlockFrames)
        let latency = try loader.latency(spec, path, rate, block)
        let state = try registry.state(PluginState.self, key: key, reuse: { $0.matches(spec, channels, rate, block) }) { () throws(PresetError) in
            try loader.make(spec, path, channels, rate, block)
        }
        node.retain(state)
        let values = try state.values(for: spec.controls, path: path)
        node.addKernel(KernelRecipe(shape: KernelShape("plugin", carriesState: false), { PluginKernel(state: state, values: values) }), latency: latency)
        node.channelsOut = state.outputChannelCount
    }

    package static func response(of _: PluginSpec, sampleRate: Double) -> NodeResponse { .unknown }

    package static func summary(of p: PluginSpec) -> String {
        let controls = p.controls.keys.sorted().map { "\($0) \(SummaryFormat.number(p.controls[$0]!))" }.joined(separator: ", ")
        return "plugin \(p.source)" + (p.preset.map { " preset \($0)" } ?? "") + (controls.isEmpty ? "" : " (\(controls))")
    }
}

extension PluginKernel: RenderKernel {
    package static let operations = KernelOperations(process: { k, b in
        PluginKernel.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount, stamp: b.block.pointee.stamp)
    }, clearNonFinite: { k in PluginKernel.at(k).pointee.clearNonFinite() })
    package func release() { deallocate() }
}
