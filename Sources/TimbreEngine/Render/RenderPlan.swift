import TimbreDSP

/// The format a plan is compiled for.
public struct RenderFormat: Sendable, Equatable {
    public var sampleRate: Double
    public var inputChannelCount: Int
    /// The largest block rendered at once; larger requests are split.
    public var maxBlockFrames: Int

    public init(sampleRate: Double, inputChannelCount: Int, maxBlockFrames: Int = 4096) {
        self.sampleRate = sampleRate; self.inputChannelCount = inputChannelCount; self.maxBlockFrames = maxBlockFrames
    }
}

/// A compiled preset: kernels in order, every buffer allocated up front.
///
/// `init` runs on the control thread and does all allocation and filter design, as a pipeline
/// of stages that each return a plain value:
/// ```
/// GraphLayout ─▶ CascadeFusion ─▶ LatencyCompensation ─▶ StateTransferMap ─▶ PlanStorage
/// (lower nodes    (fuse adjacent    (align paths at       (what continues     (allocate, one
///  via catalog)    filter sections)  each bus)             the previous plan)  owner frees)
/// ```
/// `render` runs the plan on the calling thread (offline use); a live host renders it through
/// ``LiveEngine``'s ``RealtimeRenderer``.
public final class RenderPlan {
    public let format: RenderFormat
    public let preset: Preset
    /// Channels after the plan (a `pan` on mono input makes 2; a graph outputs 2).
    public let outputChannelCount: Int
    /// The output channels' names when the preset made discrete channels (a crossover's bands,
    /// the `drivers` node's labels: "low L", "tweeter R"); nil for positional outputs (mono,
    /// stereo, a file's own layout).
    public let outputChannelNames: [String]?
    /// A graph's channel, group and aux buses' widths, by id (a take of a bus records them all).
    package let busWidths: [String: Int]
    /// Frames of latency this plan adds between input and output: the longest path through its
    /// nodes (`pitch` and `plugin` nodes; shorter parallel paths are delayed to meet it).
    public let latencyFrames: Int
    /// Steps' keys, shapes and cascade members: what the next plan's state-transfer map reads.
    let outline: StateTransferMap.Outline
    /// True when a filter new to the plan it continues was left out of a cascade so it could
    /// fade in alone. The same document compiled again (continuing this plan) fuses it, and
    /// only then does the plan equal a fresh compile of its document sample for sample
    /// (``LiveEngine/performHousekeeping()`` does that once the fade-in is over).
    package let hasUnfusedNewcomers: Bool
    /// The filter nodes a live engine can move in place, by JSON path (empty offline).
    package let motions: [String: CoefficientMotion]
    /// The gain and pan nodes a live engine moves in place, by JSON path (empty offline).
    package let valueMotions: [String: ValueMotion]
    /// The compressors a live engine retunes in place, by JSON path (empty offline).
    package let valuesMotions: [String: ValuesMotion]
    /// Shared node states this plan renders (meters, shifters, players, plugins), by key: held
    /// here so they live as long as any plan that renders them.
    let retained: [(key: String, state: AnyObject)]
    private let storage: PlanStorage

    /// The render-side memory. Valid until this plan is deinitialised.
    package var core: UnsafeMutablePointer<PlanCore> { storage.core }
    /// Step keys in order (a node's id or `#index`; fused filters joined with `+`).
    package var nodeKeys: [String] { outline.keys }

    /// Compiles `preset` for `format`. Throws a ``PresetError`` with the node's JSON path when
    /// a frequency is at or above 0.49 × the sample rate or a node cannot take the channel count.
    /// `continuing`: a plan whose state this one will continue (matched by node id and shape)
    /// when a live render switches to it. `registry`: where shared node state lives and the
    /// host's services (players, plugins); without one each node starts from scratch and
    /// presets with players or plugins are refused.
    public init(preset: Preset, format: RenderFormat, continuing previous: RenderPlan? = nil,
                registry: NodeStateRegistry? = nil) throws(PresetError) {
        precondition(format.inputChannelCount >= 1 && format.maxBlockFrames >= 1)
        self.format = format
        self.preset = preset
        let layout = try GraphLayout(preset: preset, format: format, registry: registry)
        let fusion = CascadeFusion(layout.steps, previousMembers: previous.map { $0.outline.membersByKey.mapValues(\.member) },
                                   movable: registry?.movesParameters == true)
        motions = fusion.motions
        valueMotions = layout.valueMotions
        valuesMotions = layout.valuesMotions
        let aligned = LatencyCompensation(fusion.steps, layout: layout)
        let map = StateTransferMap(aligned.steps, previous: previous?.outline)
        storage = PlanStorage(steps: aligned.steps, map: map, format: format, outputBase: layout.outputBase,
                              outputChannelCount: layout.outputChannelCount, transferSource: previous.map { UnsafeMutableRawPointer($0.core) })
        outputChannelCount = layout.outputChannelCount
        outputChannelNames = layout.outputChannelNames
        busWidths = layout.busWidths
        latencyFrames = aligned.latencyFrames
        outline = .init(keys: aligned.steps.map(\.key), shapes: aligned.steps.map { $0.recipe!.shape }, members: aligned.steps.map(\.members))
        hasUnfusedNewcomers = fusion.hasUnfusedNewcomers
        retained = layout.retained
    }

    /// Clears all filter state and delay lines.
    public func reset() { core.pointee.reset() }

    /// Renders on the calling thread (offline use): `frameCount` frames of `input`
    /// (``RenderFormat/inputChannelCount`` planar channels) into `output`
    /// (``outputChannelCount`` planar channels). Returns the number of blocks output as
    /// silence because NaN or infinity reached the output.
    @discardableResult
    public func render(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) -> Int {
        core.pointee.render(input: input, output: output, frameCount: frameCount)
    }

    /// The shared states of one type this plan renders, by key.
    func states<S: AnyObject>(_ type: S.Type) -> [(key: String, state: S)] {
        retained.compactMap { r in (r.state as? S).map { (r.key, $0) } }
    }

    /// The measurements of this plan's `meter`, `loudness` and `spectrum` nodes, by node key.
    public var analysisStates: [(key: String, state: AnalysisState)] { states(AnalysisState.self) }
    /// The shifters of this plan's `pitch` nodes, by node key.
    package var pitchStates: [(key: String, state: PitchState)] { states(PitchState.self) }
    /// The instances of this plan's `plugin` nodes, by node key.
    public var pluginStates: [(key: String, state: PluginState)] { states(PluginState.self) }
    /// The gain reduction of this plan's `compressor`, `deesser` and `limiter` nodes, by node key.
    public var gainReductionStates: [(key: String, state: GainReductionState)] { states(GainReductionState.self) }
    /// The streams of this plan's `player` channels, by key (`player:<channel id>`).
    public var playerStates: [(key: String, state: PlayerState)] { states(PlayerState.self) }

    /// The newest readings of every `meter`, `loudness` and `spectrum` node, by node key
    /// (its id, or `#index`, with a graph chain's prefix such as `voice/`). Control thread.
    public var readings: [String: AnalysisReading] {
        Dictionary(analysisStates.map { ($0.key, $0.state.reading) }) { a, _ in a }
    }

    /// The newest values of every `meter` and `loudness` node as JSON, by node key (control thread).
    /// Dynamics nodes add their gain reduction (`gainReductionDB`, `maxGainReductionDB`).
    public var meters: JSONValue {
        .object(Dictionary(analysisStates.map { ($0.key, $0.state.values) } + gainReductionStates.map { ($0.key, $0.state.json) }) { a, _ in a })
    }
}
