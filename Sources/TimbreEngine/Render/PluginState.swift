import TimbreDSP

/// The loaded instances of one `plugin` node, owned by the control side and shared by every
/// plan that continues the node (same key, plugin, preset, channel count, rate and block size),
/// so a plan swap keeps the instance and its internal state (delay lines, envelopes) — as
/// built-in filters keep theirs. Made by the host's ``PluginLoader`` (``HostServices/plugins``:
/// TimbrePlugins for LV2 and LADSPA); TimbreEngine sees only the C runner it drives per block.
/// Freed (instances deactivated and freed) when the last plan holding it is, on the control thread.
public final class PluginState {
    /// One control input port.
    public struct Control: Sendable, Equatable {
        public var symbol: String
        public var name: String
        public var minimum: Double
        public var maximum: Double
        public var defaultValue: Double
        public var isToggle: Bool
        public var isInteger: Bool
        public init(symbol: String, name: String, minimum: Double, maximum: Double, defaultValue: Double, isToggle: Bool = false, isInteger: Bool = false) {
            self.symbol = symbol; self.name = name; self.minimum = minimum; self.maximum = maximum
            self.defaultValue = defaultValue; self.isToggle = isToggle; self.isInteger = isInteger
        }
    }

    /// The runner's per-block entry: `(runner, channels, frames, controls)` (a C function: the
    /// render thread calls it without touching any Swift object).
    public typealias Process = @convention(c) (OpaquePointer?, UnsafePointer<UnsafeMutablePointer<Float>?>?, Int, UnsafePointer<Float>?) -> Void

    public let spec: PluginSpec
    /// The plugin's name, for status and errors.
    public let name: String
    public let channelCount: Int
    /// Channels after the node (2 for a mono-in, stereo-out plugin on one channel; else `channelCount`).
    public let outputChannelCount: Int
    public let sampleRate: Double
    public let maxBlockFrames: Int
    /// Control inputs, in the order of the runner's control values.
    public let controls: [Control]
    /// Each control's value before the node's own `controls`: its default, or the preset's.
    public let initialValues: [Double]
    /// Frames the plugin delays its output by (its latency port after a first run; 0 without one).
    public let latencyFrames: Int
    /// Instances per node (one per channel for a mono plugin on several channels).
    public let instanceCount: Int
    let runner: OpaquePointer
    let process: Process
    let replay: BlockReplay
    /// Keeps the host's instances alive; released after this state's runner is no longer used.
    private let owner: AnyObject
    private let readStatistics: () -> PluginStatistics

    package init(spec: PluginSpec, name: String, channelCount: Int, outputChannelCount: Int, sampleRate: Double, maxBlockFrames: Int, controls: [Control],
                initialValues: [Double], latencyFrames: Int, instanceCount: Int, runner: OpaquePointer, process: Process,
                owner: AnyObject, statistics: @escaping () -> PluginStatistics) {
        self.spec = spec; self.name = name; self.channelCount = channelCount; self.outputChannelCount = outputChannelCount; self.sampleRate = sampleRate
        self.maxBlockFrames = maxBlockFrames; self.controls = controls; self.initialValues = initialValues
        self.latencyFrames = latencyFrames; self.instanceCount = instanceCount; self.runner = runner; self.process = process
        self.owner = owner; self.readStatistics = statistics
        replay = BlockReplay(channelCount: max(channelCount, outputChannelCount), maxBlockFrames: maxBlockFrames)
    }

    deinit { replay.deallocate() }

    /// How long the plugin's `run` takes (all instances of one block), since it was loaded.
    public var statistics: PluginStatistics { readStatistics() }

    func matches(_ spec: PluginSpec, _ channels: Int, _ rate: Double, _ block: Int) -> Bool {
        self.spec.source == spec.source && self.spec.preset == spec.preset && channelCount == channels && sampleRate == rate && maxBlockFrames == block
    }

    /// The control values of a node: `initialValues` with the node's `controls` over them,
    /// checked against the plugin's ports (unknown symbol, out of range, not a whole number).
    /// `path` is the node's JSON path.
    public func values(for given: [String: Double], path: String) throws(PresetError) -> [Float] {
        try Self.values(of: controls, initial: initialValues, given: given, name: name, path: path)
    }

    /// ``values(for:path:)`` for a plugin's `controls` before its state exists (the host checks
    /// a node's values before loading it).
    public static func values(of controls: [Control], initial: [Double], given: [String: Double], name: String, path: String) throws(PresetError) -> [Float] {
        var values = initial
        for symbol in given.keys.sorted() {
            let value = given[symbol]!
            guard let k = controls.firstIndex(where: { $0.symbol == symbol }) else {
                let known = controls.map(\.symbol).joined(separator: ", ")
                throw PresetError(path: path + ".controls." + symbol,
                                  "\(name) has no control port \"\(symbol)\" (its controls: \(known.isEmpty ? "none" : known))")
            }
            let c = controls[k]
            guard value >= c.minimum && value <= c.maximum else {
                throw PresetError(path: path + ".controls." + symbol,
                                  "\(JSONValue.number(value).brief) is out of range for \(name)'s \(c.name) (allowed \(JSONValue.number(c.minimum).brief)…\(JSONValue.number(c.maximum).brief))")
            }
            if c.isInteger || c.isToggle, value != value.rounded() {
                throw PresetError(path: path + ".controls." + symbol, "\(JSONValue.number(value).brief) is not a whole number (\(name)'s \(c.name) is \(c.isToggle ? "a toggle, 0 or 1" : "an integer"))")
            }
            values[k] = value
        }
        return values.map { Float($0) }
    }
}

/// Run-time cost of a plugin's `run` (all its instances, one block).
public struct PluginStatistics: Sendable, Equatable {
    public var blocks: UInt64
    public var meanMicroseconds: Double
    public var maxMicroseconds: Double
    public init(blocks: UInt64, meanMicroseconds: Double, maxMicroseconds: Double) {
        self.blocks = blocks; self.meanMicroseconds = meanMicroseconds; self.maxMicroseconds = maxMicroseconds
    }
}

/// The render side of a `plugin` node: the shared runner, run once per block whichever plan
/// gets there first (``BlockReplay``, as `pitch` nodes do: during a crossfade the fading plan
/// replays the block), with this plan's control values. Raw memory only; the plan owns
/// `controls`, the ``PluginState`` the rest.
package struct PluginKernel {
    let runner: OpaquePointer
    let run: PluginState.Process
    let replay: BlockReplay
    /// This plan's control values (one per control input), set per block.
    let controls: UnsafeMutablePointer<Float>

    init(state: PluginState, values: [Float]) {
        runner = state.runner; run = state.process; replay = state.replay
        controls = .allocate(capacity: max(1, values.count))
        controls.initialize(repeating: 0, count: max(1, values.count))
        for (k, v) in values.enumerated() { controls[k] = v }
    }

    func deallocate() { controls.deallocate() }

    /// Clears NaN and infinity from the kept block. A plugin's own memory is out of reach (LV2 and
    /// LADSPA have no real-time reset): one that keeps producing them stays silenced by the plan
    /// until it is reloaded.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func clearNonFinite() { NonFiniteScan.zero(replay.lastOutput, count: replay.channelCount * replay.maxBlockFrames) }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, stamp: Int) {
        if replay.replay(into: channels, frameCount: frameCount, stamp: stamp) { return }
        _unsafePerformance {
            run(runner, UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self), frameCount, controls)
        }
        replay.keep(channels, frameCount: frameCount, stamp: stamp)
    }
}
