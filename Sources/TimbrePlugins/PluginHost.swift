import CLilv
import CTimbrePlugins
import Foundation
import TimbreEngine

/// Timbre's LV2 and LADSPA host: what is installed, and the `PluginLoader` a renderer or a
/// live engine passes to the plans it compiles so `plugin` nodes load.
///
/// Channels: a plugin with as many audio inputs as outputs runs on a node's channels in groups
/// of its size (a mono plugin on stereo runs as two instances, one per channel; a stereo
/// plugin on four channels as two); a mono-in, stereo-out plugin turns a mono chain stereo.
/// Anything else is a preset error naming the plugin's port counts.
public enum PluginHost {
    /// The loader for `TimbreEngine/LiveEngine` and offline renders.
    public static let loader = PluginLoader(
        make: { spec, path, channels, rate, block throws(PresetError) in try load(spec, path: path, channels: channels, sampleRate: rate, maxBlockFrames: block) },
        latency: { spec, path, rate, block throws(PresetError) in try latency(spec, path: path, sampleRate: rate, maxBlockFrames: block) })

    /// A registry whose plans load plugins (for compiling a preset to check it).
    public static func registry() -> NodeStateRegistry { NodeStateRegistry(services: HostServices(plugins: loader)) }

    /// Every installed plugin: LV2 (through lilv) then LADSPA, each sorted by id.
    public static func installedPlugins() -> [PluginDescription] {
        LV2World.shared.descriptions() + LADSPALibrary.shared.descriptions()
    }

    /// The plugin with this LV2 URI or LADSPA "file.so:label", or nil.
    public static func describe(_ id: String) -> PluginDescription? {
        if !id.contains(".so:") { return LV2World.shared.description(uri: id) }
        guard let (descriptor, path) = LADSPALibrary.shared.descriptor(id) else { return nil }
        return LADSPALibrary.describe(descriptor, file: (path as NSString).lastPathComponent, path: path)
    }

    private static let latencyLock = NSLock()
    nonisolated(unsafe) private static var latencies: [String: Int] = [:]

    /// The plugin's latency with these settings: measured once on an instance of its own
    /// (its latency port after one frame of silence), then remembered.
    static func latency(_ spec: PluginSpec, path: String, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> Int {
        let key = "\(spec.source)|\(spec.preset ?? "")|\(spec.controls.keys.sorted().map { "\($0)=\(spec.controls[$0]!)" })|\(sampleRate)|\(maxBlockFrames)"
        latencyLock.lock()
        let known = latencies[key]
        latencyLock.unlock()
        if let known { return known }
        let description = try resolve(spec, path: path, sampleRate: sampleRate)
        // No latency port, no latency: nothing to measure.
        if description.latencyPort == nil { return 0 }
        let probe = try load(spec, path: path, channels: description.audioInputs, sampleRate: sampleRate, maxBlockFrames: maxBlockFrames)
        latencyLock.lock(); latencies[key] = probe.latencyFrames; latencyLock.unlock()
        return probe.latencyFrames
    }

    /// The description of the plugin a spec names, or the preset error saying it is not there.
    static func resolve(_ spec: PluginSpec, path: String, sampleRate: Double) throws(PresetError) -> PluginDescription {
        switch spec.source {
        case .lv2(let uri):
            guard let d = LV2World.shared.description(uri: uri) else {
                throw PresetError(path: path + ".uri", "no LV2 plugin \"\(uri)\" is installed (`timbre plugins` lists what is; LV2_PATH \(ProcessInfo.processInfo.environment["LV2_PATH"] ?? "unset: ~/.lv2, /usr/local/lib/lv2, /usr/lib/lv2"))")
            }
            return d
        case .ladspa(let id):
            guard let (descriptor, file) = LADSPALibrary.shared.descriptor(id) else {
                let file = String(id.split(separator: ":").first ?? "")
                let why = LADSPALibrary.locate(file) == nil
                    ? "no file \(file) in LADSPA_PATH (\(LADSPALibrary.searchPath.joined(separator: ":")))"
                    : "\(file) has no plugin labelled \"\(id.split(separator: ":").last ?? "")\""
                throw PresetError(path: path + ".ladspa", "LADSPA plugin \"\(id)\" not found: \(why) (`timbre plugins` lists what is installed)")
            }
            return LADSPALibrary.describe(descriptor, file: (file as NSString).lastPathComponent, path: file, sampleRate: sampleRate)
        }
    }

    /// Loads a node's instances: resolves the plugin, checks what it needs and how its ports
    /// fit `channels`, applies its preset, instantiates, connects and activates every
    /// instance, and reads its latency after one frame of silence.
    static func load(_ spec: PluginSpec, path: String, channels: Int, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> PluginState {
        let d = try resolve(spec, path: path, sampleRate: sampleRate)
        let label = "\(d.name) (\(d.id))"
        if let reason = d.unsupportedReason { throw PresetError(path: path, "\(label) \(reason)") }
        let ai = d.audioInputs, ao = d.audioOutputs
        let instances: Int, outputChannels: Int
        if ai == ao, channels % ai == 0 {
            instances = channels / ai; outputChannels = channels
        } else if ai == 1, ao == 2, channels == 1 {
            instances = 1; outputChannels = 2
        } else {
            throw PresetError(path: path, "\(label) has \(ai) audio input\(ai == 1 ? "" : "s") and \(ao) output\(ao == 1 ? "" : "s"): it cannot run on the \(channels) channel\(channels == 1 ? "" : "s") the chain has here")
        }
        // Initial values: the defaults, with the preset's over them.
        var initial = d.engineControls.map(\.defaultValue)
        var presetURI: String?
        if let preset = spec.preset {
            guard d.standard == .lv2, let found = d.presets.first(where: { $0.uri == preset || $0.label == preset }) else {
                let known = d.presets.map { "\"\($0.label)\"" }.joined(separator: ", ")
                throw PresetError(path: path + ".preset", "\(label) has no preset \"\(preset)\" (its presets: \(known.isEmpty ? "none" : known))")
            }
            LV2World.shared.lock.lock()
            let values = LV2World.shared.presetValues(found.uri) ?? [:]
            LV2World.shared.lock.unlock()
            for (k, c) in d.controlInputs.enumerated() { if let v = values[c.symbol] { initial[k] = v } }
            presetURI = found.uri
        }
        let count = { (kind: PluginDescription.Port.Kind, input: Bool) in d.ports.filter { $0.kind == kind && $0.isInput == input }.count }
        guard let runner = timbre_plugin_runner_new(d.standard == .lv2 ? Int32(TIMBRE_PLUGIN_LV2) : Int32(TIMBRE_PLUGIN_LADSPA), instances, ai, ao,
                                                    count(.control, true), count(.control, false), count(.atom, true), count(.atom, false),
                                                    d.ports.filter { $0.kind == .cv }.count, maxBlockFrames) else {
            throw PresetError(path: path, "\(label): out of memory")
        }
        let owner = PluginInstances(runner: runner)
        do throws(PluginLoadError) {
            switch spec.source {
            case .lv2(let uri):
                LV2World.shared.lock.lock()
                defer { LV2World.shared.lock.unlock() }
                guard let plugin = LV2World.shared.plugin(uri: uri) else { throw PluginLoadError("\(label) disappeared") }
                for k in 0..<instances {
                    try owner.addLV2(plugin, d, instance: k, sampleRate: sampleRate, maxBlockFrames: maxBlockFrames,
                                     world: LV2World.shared.world, preset: presetURI)
                }
            case .ladspa(let id):
                guard let (descriptor, _) = LADSPALibrary.shared.descriptor(id) else { throw PluginLoadError("\(label) disappeared") }
                for k in 0..<instances { try owner.addLADSPA(descriptor, d, instance: k, sampleRate: sampleRate) }
            }
        } catch {
            throw PresetError(path: path, error.description)
        }
        for k in 0..<instances {
            let inputs = (0..<ai).map { k * ai + $0 }, outputs = ai == ao ? (0..<ao).map { k * ao + $0 } : [0, 1]
            timbre_plugin_runner_route(runner, k, inputs, outputs)
        }
        let values = try PluginState.values(of: d.engineControls, initial: initial, given: spec.controls, name: label, path: path)
        // Frames of silence until the plugin has settled — one, or as many as its worker needs
        // to finish what loading scheduled (a convolver reading its impulse response; at most
        // 10 s by the clock, as a loaded machine or a slow disk may take seconds) — so it is
        // ready before the stream and its latency port holds its latency.
        var silence = [Float](repeating: 0, count: max(1, outputChannels))
        silence.withUnsafeMutableBufferPointer { buffer in
            var pointers: [UnsafeMutablePointer<Float>?] = (0..<outputChannels).map { buffer.baseAddress! + $0 }
            values.withUnsafeBufferPointer { v in
                timbre_plugin_runner_process(runner, &pointers, 1, v.baseAddress)
                let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
                while timbre_plugin_runner_settling(runner) != 0 && DispatchTime.now().uptimeNanoseconds < deadline {
                    usleep(1000)
                    for i in 0..<outputChannels { buffer[i] = 0 }
                    timbre_plugin_runner_process(runner, &pointers, 1, v.baseAddress)
                }
            }
        }
        var latency = 0
        if let port = d.latencyPort, let slot = d.ports.filter({ $0.kind == .control && !$0.isInput }).firstIndex(of: port) {
            let reported = timbre_plugin_runner_output_value(runner, slot)
            if reported.isFinite, reported >= 0, reported < 10 * Float(sampleRate) { latency = Int(reported.rounded()) }
        }
        return PluginState(spec: spec, name: label, channelCount: channels, outputChannelCount: outputChannels, sampleRate: sampleRate,
                           maxBlockFrames: maxBlockFrames, controls: d.engineControls, initialValues: initial, latencyFrames: latency,
                           instanceCount: instances, runner: runner, process: timbre_plugin_runner_process, owner: owner,
                           statistics: {
                               var blocks: UInt64 = 0, mean = 0.0, worst: UInt64 = 0
                               timbre_plugin_runner_stats(runner, &blocks, &mean, &worst)
                               return PluginStatistics(blocks: blocks, meanMicroseconds: mean / 1000, maxMicroseconds: Double(worst) / 1000)
                           })
    }
}
