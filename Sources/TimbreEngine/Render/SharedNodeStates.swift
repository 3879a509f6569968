import TimbreDSP

/// Node states that live across plans, by node key: the running measurements of `meter`,
/// `loudness` and `spectrum` nodes, the running shifters of `pitch` nodes and the streams of
/// `player` channels, the instances of `plugin` nodes. A ``LiveEngine``
/// passes its registry to every plan it compiles, so a live edit or preset load continues
/// these nodes instead of restarting them.
public final class SharedNodeStates {
    var analysis: [String: AnalysisState] = [:]
    var pitch: [String: PitchState] = [:]
    var players: [String: PlayerState] = [:]
    var plugins: [String: PluginState] = [:]
    /// Loads `plugin` nodes (set by a host that hosts plugins: TimbrePlugins' `PluginHost.loader`).
    public var pluginLoader: PluginLoader?
    /// Makes a player's stream (opens the file, starts filling the ring); set by a host that
    /// reads files. Throws a ``PresetError`` at `path` for a file that cannot be played.
    public var makePlayer: ((_ spec: PlayerSpec, _ path: String, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> PlayerState)?
    public init() {}

    /// The plugin nodes of the plans alive, by node key.
    public var pluginStates: [String: PluginState] { plugins }

    func pluginState(key: String, spec: PluginSpec, path: String, channels: Int, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> PluginState {
        if let s = plugins[key], s.matches(spec, channels, sampleRate, maxBlockFrames) { return s }
        guard let pluginLoader else { throw PresetError(path: path, PluginLoader.missing) }
        let s = try pluginLoader.make(spec, path, channels, sampleRate, maxBlockFrames)
        plugins[key] = s
        return s
    }

    func latency(of spec: PluginSpec, path: String, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> Int {
        guard let pluginLoader else { throw PresetError(path: path, PluginLoader.missing) }
        return try pluginLoader.latency(spec, path, sampleRate, maxBlockFrames)
    }

    /// The players of the plans alive, by channel key.
    public var playerStates: [String: PlayerState] { players }

    func playerState(key: String, spec: PlayerSpec, path: String, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> PlayerState {
        if let s = players[key], s.matches(spec, sampleRate, maxBlockFrames) {
            if s.spec != spec {
                // A live change of rate, rate mode or loops: the stream goes on from where it is.
                s.feeder?.requestChange(to: spec, fileSeconds: s.currentFileSeconds)
                s.spec = spec
            }
            return s
        }
        guard let makePlayer else {
            throw PresetError(path: path, "a player needs a host that reads files (timbre render or timbre live)")
        }
        let s = try makePlayer(spec, path, sampleRate, maxBlockFrames)
        players[key] = s
        return s
    }

    func analysisState(key: String, kind: AnalysisState.Kind, channels: Int, sampleRate: Double, spectrum: SpectrumSettings?) -> AnalysisState {
        if let s = analysis[key], s.matches(kind, channels, sampleRate, spectrum) { return s }
        let s = AnalysisState(kind: kind, channelCount: channels, sampleRate: sampleRate, spectrum: spectrum)
        analysis[key] = s
        return s
    }

    func pitchState(key: String, channels: Int, sampleRate: Double, maxBlockFrames: Int, semitones: Double) -> PitchState {
        if let s = pitch[key], s.matches(channels, sampleRate, maxBlockFrames) { return s }
        let s = PitchState(channelCount: channels, sampleRate: sampleRate, maxBlockFrames: maxBlockFrames, semitones: semitones)
        pitch[key] = s
        return s
    }

    /// Forgets states no alive plan uses (they are freed when the last plan holding them is).
    func prune(keeping keys: Set<String>) {
        analysis = analysis.filter { keys.contains($0.key) }
        pitch = pitch.filter { keys.contains($0.key) }
        players = players.filter { keys.contains($0.key) }
        plugins = plugins.filter { keys.contains($0.key) }
    }
}

/// What a host that loads plugins gives the engine (TimbrePlugins' `PluginHost.loader`).
public struct PluginLoader: Sendable {
    /// Loads a `plugin` node's instances. Throws a ``PresetError`` at `path` (the node's) for a
    /// plugin that is missing, needs what Timbre lacks, or does not fit `channels`.
    public var make: @Sendable (_ spec: PluginSpec, _ path: String, _ channels: Int, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> PluginState
    /// The latency of a plugin with these settings, in frames.
    public var latency: @Sendable (_ spec: PluginSpec, _ path: String, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> Int

    public init(make: @escaping @Sendable (PluginSpec, String, Int, Double, Int) throws(PresetError) -> PluginState,
                latency: @escaping @Sendable (PluginSpec, String, Double, Int) throws(PresetError) -> Int) {
        self.make = make; self.latency = latency
    }

    static let missing = "a plugin node needs a host that loads plugins (timbre render or timbre live)"
}
