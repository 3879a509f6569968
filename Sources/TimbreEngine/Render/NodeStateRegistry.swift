import TimbreDSP

/// What a host gives the engine so presets can use files and plugins: how a `player`
/// channel's stream is made, how `plugin` nodes load, and how the files `fir` and `convolver`
/// nodes name are read.
public struct HostServices {
    /// Makes a player's stream (opens the file, starts filling the ring): TimbreFile's
    /// `PlayerFeeder.factory(directory:)`. Throws a ``PresetError`` at `path` for a file that
    /// cannot be played. Without it a preset with players is refused.
    public var makePlayer: ((_ spec: PlayerSpec, _ path: String, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> PlayerState)?
    /// Loads `plugin` nodes: TimbrePlugins' `PluginHost.loader`. Without it a preset with
    /// plugins is refused.
    public var plugins: PluginLoader?
    /// Reads the files `fir` and `convolver` nodes name (TimbreFile's
    /// `NodeFileReader.files(in:)`). Without it a preset naming such a file is refused.
    public var files: NodeFileReader?
    /// Where convolution nodes (`convolver`, `fir`, a linear-phase `eq`) compute their large
    /// FFT levels; nil: worker threads never waited for under a ``LiveEngine``
    /// (TimbreDSP's `ConvolutionThreading.live`), the calling thread offline.
    public var convolution: ConvolutionThreading?

    public init(makePlayer: ((PlayerSpec, String, Double, Int) throws(PresetError) -> PlayerState)? = nil, plugins: PluginLoader? = nil,
                files: NodeFileReader? = nil, convolution: ConvolutionThreading? = nil) {
        self.makePlayer = makePlayer; self.plugins = plugins; self.files = files; self.convolution = convolution
    }

    /// No files, no plugins.
    public static var none: HostServices { HostServices() }
}

/// Node states that live across plans, by node key: the running measurements of `meter`,
/// `loudness` and `spectrum` nodes, the shifters of `pitch` nodes, the streams of `player`
/// channels, the instances of `plugin` nodes. A ``LiveEngine`` passes its registry to every
/// plan it compiles, so a live edit or preset load continues these nodes instead of
/// restarting them. One registry, generic over the state's type.
public final class NodeStateRegistry {
    private var states: [String: AnyObject] = [:]
    /// Takes of a channel's or group's bus, by its id (``LiveEngine/setBusTap(_:bus:)``): the
    /// plan compiles a `BusTapKernel` after that bus's chain for each.
    package var busTaps: [String: RecordingTap] = [:]
    /// When set, every plan ends with a meter of its output (peaks, RMS, loudness) kept under
    /// this key, and a graph's channels and groups are metered under their ids (``LiveEngine``
    /// sets `master`: a live host's `meters` always has the output's and every bus's levels).
    package var outputMeterKey: String?
    /// The host's services (players, plugins).
    public var services: HostServices
    /// Plans compiled with this registry let filter nodes move in place (``CoefficientMotion``):
    /// a ``LiveEngine`` sets it; offline renders keep the plain cascade.
    package var movesParameters = false

    /// The convolution nodes' worker counts (``ConvolutionCounters``), by node key: they go
    /// on across the plans of a node.
    package private(set) var convolutionCounters: [String: ConvolutionCounters] = [:]

    public init(services: HostServices = .none) { self.services = services }

    /// Where convolution kernels compute their large levels (`HostServices.convolution`).
    package var convolutionThreading: ConvolutionThreading {
        services.convolution ?? (movesParameters ? .live : .callingThread)
    }

    /// The worker counts of the convolution node at `key` (new on first use).
    package func convolutionCounters(for key: String) -> ConvolutionCounters {
        if let c = convolutionCounters[key] { return c }
        let c = ConvolutionCounters()
        convolutionCounters[key] = c
        return c
    }

    /// The state at `key` if it is an `S` that `reuse` accepts; else a new one from `make`,
    /// kept at `key` from now on.
    package func state<S: AnyObject>(_ type: S.Type, key: String, reuse: (S) -> Bool, make: () throws(PresetError) -> S) throws(PresetError) -> S {
        if let s = states[key] as? S, reuse(s) { return s }
        let s = try make()
        states[key] = s
        return s
    }

    /// The state kept at `key` if it is an `S`.
    package func existing<S: AnyObject>(_ type: S.Type, key: String) -> S? { states[key] as? S }

    /// The states of one type, by key.
    public func states<S: AnyObject>(of type: S.Type) -> [String: S] {
        states.compactMapValues { $0 as? S }
    }

    /// Forgets states no alive plan uses (they are freed when the last plan holding them is).
    func prune(keeping keys: Set<String>) {
        states = states.filter { keys.contains($0.key) }
        convolutionCounters = convolutionCounters.filter { keys.contains($0.key) }
    }

    /// The stream of a `player` channel (continued when the file region and rate match).
    func playerState(key: String, spec: PlayerSpec, path: String, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> PlayerState {
        let s = try state(PlayerState.self, key: key, reuse: { $0.matches(spec, sampleRate, maxBlockFrames) }) { () throws(PresetError) in
            guard let make = services.makePlayer else {
                throw PresetError(path: path, "a player needs a host that reads files (timbre render or timbre live)")
            }
            return try make(spec, path, sampleRate, maxBlockFrames)
        }
        if s.spec != spec {
            // A live change of rate, rate mode or loops: the stream goes on from where it is.
            s.feeder?.requestChange(to: spec, fileSeconds: s.currentFileSeconds)
            s.spec = spec
        }
        return s
    }
}

/// What a host that loads plugins gives the engine (TimbrePlugins' `PluginHost.loader`).
public struct PluginLoader: Sendable {
    /// Loads a `plugin` node's instances. Throws a ``PresetError`` at `path` (the node's) for a
    /// plugin that is missing, needs what Timbre lacks, or does not fit `channels`.
    public var make: @Sendable (_ spec: PluginSpec, _ path: String, _ channels: Int, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> PluginState
    /// The latency of a plugin with these settings (controls included), in frames.
    public var latency: @Sendable (_ spec: PluginSpec, _ path: String, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> Int

    public init(make: @escaping @Sendable (PluginSpec, String, Int, Double, Int) throws(PresetError) -> PluginState,
                latency: @escaping @Sendable (PluginSpec, String, Double, Int) throws(PresetError) -> Int) {
        self.make = make; self.latency = latency
    }

    static let missing = "a plugin node needs a host that loads plugins (timbre render or timbre live)"
}
