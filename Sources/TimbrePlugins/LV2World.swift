import CLilv
import CTimbrePlugins
import Foundation

/// The process's lilv world: every LV2 bundle in `LV2_PATH` (or lilv's standard folders:
/// ~/.lv2, /usr/local/lib/lv2, /usr/lib/lv2 …), loaded once on first use. lilv is not
/// thread-safe, so every use goes through `lock` (control threads only; nothing here runs on
/// the render thread).
final class LV2World: @unchecked Sendable {
    static let shared = LV2World()

    let lock = NSLock()
    let world: OpaquePointer
    private let audioPort, controlPort, atomPort, cvPort, inputPort, outputPort: OpaquePointer
    private let reportsLatency, toggled, integer, connectionOptional, presetClass, rdfsLabel: OpaquePointer

    private init() {
        let world = lilv_world_new()!
        lilv_world_load_all(world)
        self.world = world
        func uri(_ s: String) -> OpaquePointer { lilv_new_uri(world, s) }
        audioPort = uri("http://lv2plug.in/ns/lv2core#AudioPort")
        controlPort = uri("http://lv2plug.in/ns/lv2core#ControlPort")
        atomPort = uri("http://lv2plug.in/ns/ext/atom#AtomPort")
        cvPort = uri("http://lv2plug.in/ns/lv2core#CVPort")
        inputPort = uri("http://lv2plug.in/ns/lv2core#InputPort")
        outputPort = uri("http://lv2plug.in/ns/lv2core#OutputPort")
        reportsLatency = uri("http://lv2plug.in/ns/lv2core#reportsLatency")
        toggled = uri("http://lv2plug.in/ns/lv2core#toggled")
        integer = uri("http://lv2plug.in/ns/lv2core#integer")
        connectionOptional = uri("http://lv2plug.in/ns/lv2core#connectionOptional")
        presetClass = uri("http://lv2plug.in/ns/ext/presets#Preset")
        rdfsLabel = uri("http://www.w3.org/2000/01/rdf-schema#label")
    }

    /// Every installed LV2 plugin, sorted by URI.
    func descriptions() -> [PluginDescription] {
        lock.lock(); defer { lock.unlock() }
        let all = lilv_world_get_all_plugins(world)
        var list: [PluginDescription] = []
        var it = lilv_plugins_begin(all)
        while !lilv_plugins_is_end(all, it) {
            if let p = lilv_plugins_get(all, it) { list.append(describe(p)) }
            it = lilv_plugins_next(all, it)
        }
        return list.sorted { $0.id < $1.id }
    }

    /// The plugin with `uri` (lock held by the caller).
    func plugin(uri: String) -> OpaquePointer? {
        let node = lilv_new_uri(world, uri)
        defer { lilv_node_free(node) }
        return lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), node)
    }

    /// One plugin's description, or nil when no plugin has this URI.
    func description(uri: String) -> PluginDescription? {
        lock.lock(); defer { lock.unlock() }
        return plugin(uri: uri).map(describe)
    }

    private static func string(_ node: OpaquePointer?) -> String {
        guard let node, let s = lilv_node_as_string(node) else { return "" }
        return String(cString: s)
    }

    /// Reads a plugin's ports, features and presets (lock held by the caller).
    func describe(_ p: OpaquePointer) -> PluginDescription {
        let count = Int(lilv_plugin_get_num_ports(p))
        var mins = [Float](repeating: .nan, count: count), maxs = mins, defs = mins
        lilv_plugin_get_port_ranges_float(p, &mins, &maxs, &defs)
        let latencyIndex = lilv_plugin_has_latency(p) ? Int(lilv_plugin_get_latency_port_index(p)) : -1
        var ports: [PluginDescription.Port] = []
        for i in 0..<count {
            guard let port = lilv_plugin_get_port_by_index(p, UInt32(i)) else { continue }
            let kind: PluginDescription.Port.Kind =
                lilv_port_is_a(p, port, audioPort) ? .audio : lilv_port_is_a(p, port, controlPort) ? .control
                : lilv_port_is_a(p, port, atomPort) ? .atom : lilv_port_is_a(p, port, cvPort) ? .cv : .other
            let nameNode = lilv_port_get_name(p, port)
            defer { lilv_node_free(nameNode) }
            func value(_ f: Float) -> Double? { f.isNaN ? nil : Double(f) }
            ports.append(PluginDescription.Port(
                index: i, symbol: Self.string(lilv_port_get_symbol(p, port)), name: Self.string(nameNode), kind: kind,
                isInput: lilv_port_is_a(p, port, inputPort), minimum: value(mins[i]), maximum: value(maxs[i]), defaultValue: value(defs[i]),
                isToggle: lilv_port_has_property(p, port, toggled), isInteger: lilv_port_has_property(p, port, integer),
                isLatency: i == latencyIndex || (!lilv_port_is_a(p, port, inputPort) && kind == .control && lilv_port_has_property(p, port, reportsLatency)),
                isOptional: lilv_port_has_property(p, port, connectionOptional)))
        }
        var required: [String] = []
        if let nodes = lilv_plugin_get_required_features(p) {
            var it = lilv_nodes_begin(nodes)
            while !lilv_nodes_is_end(nodes, it) {
                required.append(Self.string(lilv_nodes_get(nodes, it)))
                it = lilv_nodes_next(nodes, it)
            }
            lilv_nodes_free(nodes)
        }
        var provided = Set<String>()
        var k = 0
        while let f = timbre_lv2_supported_feature(k) { provided.insert(String(cString: f)); k += 1 }
        // Features that ask nothing of a host that runs the plugin off the UI thread.
        provided.formUnion(["http://lv2plug.in/ns/lv2core#isLive", "http://lv2plug.in/ns/lv2core#inPlaceBroken",
                            "http://lv2plug.in/ns/lv2core#hardRTCapable"])
        let nameNode = lilv_plugin_get_name(p)
        defer { lilv_node_free(nameNode) }
        return PluginDescription(
            standard: .lv2, id: Self.string(lilv_plugin_get_uri(p)), name: Self.string(nameNode), ports: ports,
            requiredFeatures: required, missingFeatures: required.filter { !provided.contains($0) },
            presets: presets(of: p), location: Self.string(lilv_plugin_get_bundle_uri(p)))
    }

    /// The plugin's presets (pset:Preset), by label (lock held by the caller).
    func presets(of p: OpaquePointer) -> [PluginDescription.Preset] {
        guard let related = lilv_plugin_get_related(p, presetClass) else { return [] }
        defer { lilv_nodes_free(related) }
        var list: [PluginDescription.Preset] = []
        var it = lilv_nodes_begin(related)
        while !lilv_nodes_is_end(related, it) {
            if let preset = lilv_nodes_get(related, it) {
                lilv_world_load_resource(world, preset)
                let labels = lilv_world_find_nodes(world, preset, rdfsLabel, nil)
                var label = ""
                if let labels, !lilv_nodes_is_end(labels, lilv_nodes_begin(labels)) {
                    label = Self.string(lilv_nodes_get(labels, lilv_nodes_begin(labels)))
                }
                if let labels { lilv_nodes_free(labels) }
                list.append(.init(uri: Self.string(preset), label: label))
            }
            it = lilv_nodes_next(related, it)
        }
        return list.sorted { $0.label < $1.label }
    }

    /// The control values a preset sets, by port symbol (lock held by the caller).
    func presetValues(_ presetURI: String) -> [String: Double]? {
        let node = lilv_new_uri(world, presetURI)
        defer { lilv_node_free(node) }
        lilv_world_load_resource(world, node)
        var map = LV2_URID_Map(handle: nil, map: { _, uri in timbre_urid_map(uri) })
        guard let state = lilv_state_new_from_world(world, &map, node) else { return nil }
        defer { lilv_state_free(state) }
        final class Box {
            var values: [String: Double] = [:]
            let float = timbre_urid_map("http://lv2plug.in/ns/ext/atom#Float"), double = timbre_urid_map("http://lv2plug.in/ns/ext/atom#Double")
            let int = timbre_urid_map("http://lv2plug.in/ns/ext/atom#Int"), bool = timbre_urid_map("http://lv2plug.in/ns/ext/atom#Bool")
        }
        let box = Box()
        withExtendedLifetime(box) {
            lilv_state_emit_port_values(state, { symbol, user, value, size, type in
                guard let symbol, let user, let value else { return }
                let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
                let key = String(cString: symbol)
                switch type {
                case box.float where size >= 4: box.values[key] = Double(value.load(as: Float.self))
                case box.double where size >= 8: box.values[key] = value.load(as: Double.self)
                case box.int where size >= 4, box.bool where size >= 4: box.values[key] = Double(value.load(as: Int32.self))
                default: break
                }
            }, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.values
    }
}
