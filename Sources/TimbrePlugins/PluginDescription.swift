import TimbreEngine

/// What `timbre plugins` shows of an installed plugin: identity, ports, latency, features.
public struct PluginDescription: Sendable, Equatable, Encodable {
    public enum Standard: String, Sendable, Encodable { case lv2, ladspa }

    /// One port.
    public struct Port: Sendable, Equatable, Encodable {
        public enum Kind: String, Sendable, Encodable { case audio, control, atom, cv, other }
        public var index: Int
        public var symbol: String
        public var name: String
        public var kind: Kind
        public var isInput: Bool
        public var minimum: Double?
        public var maximum: Double?
        public var defaultValue: Double?
        public var isToggle = false
        public var isInteger = false
        /// The port that reports the plugin's latency (LV2 lv2:reportsLatency; LADSPA an output control named "latency").
        public var isLatency = false
        /// lv2:connectionOptional.
        public var isOptional = false
    }

    /// An LV2 preset (pset:Preset) of the plugin.
    public struct Preset: Sendable, Equatable, Encodable {
        public var uri: String
        public var label: String
    }

    public var standard: Standard
    /// LV2: the URI; LADSPA: "file.so:label".
    public var id: String
    public var name: String
    public var ports: [Port]
    /// LV2 features the plugin requires.
    public var requiredFeatures: [String]
    /// The required features Timbre does not provide (the plugin cannot load while any is missing).
    public var missingFeatures: [String]
    public var presets: [Preset]
    /// The bundle (LV2) or shared object (LADSPA) it comes from.
    public var location: String

    public var audioInputs: Int { ports.filter { $0.kind == .audio && $0.isInput }.count }
    public var audioOutputs: Int { ports.filter { $0.kind == .audio && !$0.isInput }.count }
    public var controlInputs: [Port] { ports.filter { $0.kind == .control && $0.isInput } }
    public var latencyPort: Port? { ports.first { $0.isLatency } }
    /// True when Timbre can load it as a node: every required feature provided, audio in and
    /// out present and equal in number, or one in and two out.
    public var isSupported: Bool { unsupportedReason == nil }

    /// Why Timbre cannot run it, or nil.
    public var unsupportedReason: String? {
        if !missingFeatures.isEmpty { return "needs \(missingFeatures.joined(separator: ", ")), which Timbre does not provide" }
        if audioInputs == 0 || audioOutputs == 0 { return "has \(audioInputs) audio inputs and \(audioOutputs) outputs (Timbre runs effects: audio in and out)" }
        if audioInputs != audioOutputs && !(audioInputs == 1 && audioOutputs == 2) {
            return "has \(audioInputs) audio inputs and \(audioOutputs) outputs (Timbre runs equal counts, or mono in and stereo out)"
        }
        return nil
    }

    /// The controls as the engine validates them.
    var engineControls: [PluginState.Control] {
        controlInputs.map { p in
            PluginState.Control(symbol: p.symbol, name: p.name, minimum: p.minimum ?? -Double.greatestFiniteMagnitude,
                                maximum: p.maximum ?? Double.greatestFiniteMagnitude,
                                defaultValue: p.defaultValue ?? max(p.minimum ?? 0, min(p.maximum ?? 0, 0)),
                                isToggle: p.isToggle, isInteger: p.isInteger)
        }
    }
}
