import CLilv
import CTimbrePlugins
import Foundation

/// The instances of one plugin node and everything they hold: lilv instances (LV2) or LADSPA
/// handles, their feature arrays and workers, and the C runner whose buffers their ports are
/// connected to. Made, activated and — in `deinit` — deactivated and freed on the control
/// thread; the render thread only calls the runner.
final class PluginInstances {
    let runner: OpaquePointer
    private var lv2: [UnsafeMutablePointer<LilvInstance>] = []
    private var features: [UnsafePointer<UnsafePointer<LV2_Feature>?>] = []
    private var workers: [OpaquePointer] = []
    private var ladspa: [(descriptor: UnsafePointer<LADSPA_Descriptor>, handle: LADSPA_Handle)] = []

    init(runner: OpaquePointer) { self.runner = runner }

    deinit {
        // lilv_instance_free closes the plugin's library in the world's list (and may dlclose
        // it): under the world's lock, as instantiation is, so a node freed on one thread
        // cannot unload code another thread's plugin is instantiating (a batch renders files
        // on threads; the plugin tests ran two loads at once and crashed in unmapped code).
        if !lv2.isEmpty {
            LV2World.shared.lock.lock()
            for instance in lv2 { lilv_instance_deactivate(instance); lilv_instance_free(instance) }
            LV2World.shared.lock.unlock()
        }
        for worker in workers { timbre_lv2_worker_free(worker) }
        for f in features { timbre_lv2_features_free(f) }
        for (d, handle) in ladspa {
            d.pointee.deactivate?(handle)
            d.pointee.cleanup?(handle)
        }
        timbre_plugin_runner_free(runner)
    }

    /// Connects instance `k`'s ports to the runner's buffers: controls and outputs in the
    /// description's order, audio, atom and CV ports to their buffers, anything else to nothing.
    private func connections(_ d: PluginDescription, instance k: Int) -> [(index: Int, pointer: UnsafeMutableRawPointer?)] {
        var audioIn = 0, audioOut = 0, control = 0, output = 0, atomIn = 0, atomOut = 0, cv = 0
        return d.ports.map { port in
            let p: UnsafeMutableRawPointer?
            switch (port.kind, port.isInput) {
            case (.audio, true): p = UnsafeMutableRawPointer(timbre_plugin_runner_audio_in(runner, k, audioIn)); audioIn += 1
            case (.audio, false): p = UnsafeMutableRawPointer(timbre_plugin_runner_audio_out(runner, k, audioOut)); audioOut += 1
            case (.control, true): p = UnsafeMutableRawPointer(timbre_plugin_runner_control(runner, k, control)); control += 1
            case (.control, false): p = UnsafeMutableRawPointer(timbre_plugin_runner_output(runner, k, output)); output += 1
            case (.atom, true): p = timbre_plugin_runner_atom_in(runner, k, atomIn); atomIn += 1
            case (.atom, false): p = timbre_plugin_runner_atom_out(runner, k, atomOut); atomOut += 1
            case (.cv, _): p = UnsafeMutableRawPointer(timbre_plugin_runner_cv(runner, k, cv)); cv += 1
            default: p = nil
            }
            return (port.index, p)
        }
    }

    /// Instantiates, connects and activates instance `k` of an LV2 plugin (LV2World's lock held).
    /// `preset`: a pset:Preset URI whose state (beyond port values: files, tables — through the
    /// plugin's state interface, with this instance's features) is restored after activation.
    func addLV2(_ plugin: OpaquePointer, _ d: PluginDescription, instance k: Int, sampleRate: Double, maxBlockFrames: Int,
                world: OpaquePointer, preset: String?) throws(PluginLoadError) {
        guard let worker = timbre_lv2_worker_new(1 << 16) else { throw PluginLoadError("out of memory") }
        workers.append(worker)
        guard let f = timbre_lv2_features_new(d.name, sampleRate, UInt32(maxBlockFrames), worker) else { throw PluginLoadError("out of memory") }
        features.append(f)
        guard let instance = lilv_plugin_instantiate(plugin, sampleRate, f) else {
            throw PluginLoadError("\(d.name) (\(d.id)) failed to instantiate at \(Int(sampleRate)) Hz (see its messages above)")
        }
        lv2.append(instance)
        for (index, pointer) in connections(d, instance: k) { lilv_instance_connect_port(instance, UInt32(index), pointer) }
        let interface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
        lilv_instance_activate(instance)
        if let preset {
            let node = lilv_new_uri(world, preset)
            defer { lilv_node_free(node) }
            var map = LV2_URID_Map(handle: nil, map: { _, uri in timbre_urid_map(uri) })
            guard let state = lilv_state_new_from_world(world, &map, node) else { throw PluginLoadError("\(d.name): preset <\(preset)> could not be read") }
            lilv_state_restore(state, instance, nil, nil, 0, f)
            lilv_state_free(state)
        }
        let run = unsafeBitCast(instance.pointee.lv2_descriptor.pointee.run, to: UnsafeMutableRawPointer?.self)
        timbre_plugin_runner_set_instance(runner, k, instance.pointee.lv2_handle, run, worker, interface)
    }

    /// Instantiates, connects and activates instance `k` of a LADSPA plugin.
    func addLADSPA(_ descriptor: UnsafePointer<LADSPA_Descriptor>, _ d: PluginDescription, instance k: Int, sampleRate: Double) throws(PluginLoadError) {
        guard let instantiate = descriptor.pointee.instantiate, let handle = instantiate(descriptor, UInt(sampleRate)) else {
            throw PluginLoadError("\(d.name) (\(d.id)) failed to instantiate at \(Int(sampleRate)) Hz")
        }
        ladspa.append((descriptor, handle))
        for (index, pointer) in connections(d, instance: k) {
            descriptor.pointee.connect_port(handle, UInt(index), pointer?.assumingMemoryBound(to: LADSPA_Data.self))
        }
        descriptor.pointee.activate?(handle)
        let run = unsafeBitCast(descriptor.pointee.run, to: UnsafeMutableRawPointer?.self)
        timbre_plugin_runner_set_instance(runner, k, handle, run, nil, nil)
    }
}

/// Why a plugin could not be loaded (turned into a ``PresetError`` at the node's path).
struct PluginLoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
