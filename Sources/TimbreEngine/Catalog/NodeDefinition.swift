import TimbreDSP

/// Everything the engine knows about one node kind, in one place: its JSON `type` names, how
/// its keys are decoded, validated and encoded, how it is lowered into render kernels (with its
/// latency and the state it shares across plans), its one-line summary and its frequency
/// response. Each kind is one file in `Nodes/` plus one line in `NodeCatalog/definitions`.
package protocol NodeDefinition: Sendable {
    associatedtype Parameters: NodeParameters
    /// The JSON `type` values this kind decodes (`"highpass"`, `"peak"`, … for filters).
    static var typeNames: [String] { get }
    /// Its numeric parameters as data (``ParameterSpec``): the schema's numbers, MIDI `learn`
    /// ranges and the page's controls follow from them.
    static var parameterSpecs: [ParameterSpec] { get }
    /// Its whole schema entry, written by `make schema` (nil: the kind's entry is hand-written
    /// in the schema template, as the first kinds' are).
    static var schemaEntry: NodeSchemaEntry? { get }
    /// The `type` a node with these settings is written with.
    static func typeName(of parameters: Parameters) -> String
    /// Reads the node's own keys (not `type`, `id`, `bypass`); every error names its JSON path.
    static func decode(type: String, _ object: inout ObjectReader, path: String) throws(PresetError) -> Parameters
    /// The node's own keys, as ``decode(type:_:path:)`` reads them back.
    static func encode(_ parameters: Parameters) -> [String: JSONValue]
    /// Lowers the node into render steps (filter sections, or kernels) for a plan.
    static func lower(_ parameters: Parameters, into node: inout NodeLowering) throws(PresetError)
    /// The node's effect on the frequency response (``NodeSpec/responseTerm(sampleRate:)``, behind `timbre response`).
    static func response(of parameters: Parameters, sampleRate: Double) -> NodeResponse
    /// One line a user recognises, without the id and bypass mark.
    static func summary(of parameters: Parameters) -> String
    /// The values a live edit from `old` to `new` moves inside the running kernel (what the
    /// node's ``ValuesMotion`` carries), or nil when the edit changes its structure and needs a
    /// new plan. Default: nil.
    static func liveValues(from old: Parameters, to new: Parameters, sampleRate: Double) -> [Double]?
}

/// How a node shapes the frequency response.
package enum NodeResponse {
    /// Filter sections and a broadband gain in dB.
    case linear(sections: [BiquadCoefficients], gainDB: Double, markersHz: [Double])
    /// Passes the spectrum unchanged (pan, meters).
    case unchanged
    /// Not known without running it (plugins).
    case unknown
}

extension NodeDefinition {
    package static func response(of parameters: Parameters, sampleRate: Double) -> NodeResponse { .unchanged }
    package static var schemaEntry: NodeSchemaEntry? { nil }
    package static func liveValues(from old: Parameters, to new: Parameters, sampleRate: Double) -> [Double]? { nil }
}

/// What a node's lowering reads and produces: the plan's format, the node's key and path,
/// the channels flowing in, and the steps it adds.
package struct NodeLowering {
    package let key: String
    package let path: String
    package let sampleRate: Double
    package let maxBlockFrames: Int
    /// Where shared node state lives (a live engine's, or one for this compile), with the host's services.
    package let registry: NodeStateRegistry?
    /// Channels flowing into the node.
    package let channels: Int
    /// Channels after the node (set by kinds that change it: a mono-to-stereo pan, a plugin).
    package var channelsOut: Int
    /// The names of the channels flowing in, when a node before named them (a crossover's
    /// bands); nil for positional channels (mono, stereo, a file's layout).
    package var channelNames: [String]?
    /// The names a node gives its output channels (a crossover's bands, the drivers' labels);
    /// nil keeps ``channelNames`` when the count is unchanged, and drops them when it changes.
    package var outputNames: [String]?
    var steps: [PlannedStep] = []
    var retained: [(key: String, state: AnyObject)] = []
    /// Values of this node that a live engine moves in place, by the node's JSON path.
    var valueMotions: [String: ValueMotion] = [:]
    /// Settings of this node that move together in place (a compressor's), by JSON path.
    var valuesMotions: [String: ValuesMotion] = [:]
    /// In a graph: the channel and group buses rendered before this node, by id (first work
    /// channel; a key reads the first two), which a compressor may key on; nil in a chain preset.
    package var finishedBuses: [String: Int]?
    /// On a graph's master chain: the master volume (linear) and, in a live plan, its motion
    /// (a `loudnessCompensation` node follows it); nil elsewhere.
    package var masterVolume: (value: Double, motion: ValueMotion.Handle?)?
    let base: Int
    let segment: Int

    init(key: String, path: String, sampleRate: Double, maxBlockFrames: Int, registry: NodeStateRegistry?, channels: Int, base: Int, segment: Int) {
        self.key = key; self.path = path; self.sampleRate = sampleRate; self.maxBlockFrames = maxBlockFrames
        self.registry = registry; self.channels = channels; channelsOut = channels; self.base = base; self.segment = segment
    }

    /// Throws when a frequency is at or above 0.49 × the sample rate.
    package func checkFrequency(_ hz: Double, at path: String) throws(PresetError) {
        try Self.checkFrequency(hz, at: path, sampleRate: sampleRate)
    }

    /// Throws when a frequency is at or above 0.49 × `sampleRate` (also the graph's sine generators).
    package static func checkFrequency(_ hz: Double, at path: String, sampleRate: Double) throws(PresetError) {
        let limit = ParameterRanges.nyquistFraction * sampleRate
        if hz >= limit {
            throw PresetError(path: path, "\(JSONValue.number(hz).brief) Hz is at or above 0.49 × the sample rate (must be below \(JSONValue.number((limit * 10).rounded(.down) / 10).brief) Hz at \(JSONValue.number(sampleRate).brief) Hz)")
        }
    }

    /// A design's sections as this plan keeps them: in a live plan (whose filters move in
    /// place, ``CoefficientMotion``) a flat band keeps one identity section, so moving it off
    /// 0 dB needs no new plan; elsewhere as designed.
    package func movableSections(_ designed: [BiquadCoefficients]) -> [BiquadCoefficients] {
        designed.isEmpty && registry?.movesParameters == true ? [.identity] : designed
    }

    /// In a live plan, a ``ValueMotion`` for the node's one moving value starting at `value`
    /// (its kernel reads it each block); nil elsewhere.
    package mutating func valueMotion(_ value: Double) -> ValueMotion? {
        guard registry?.movesParameters == true else { return nil }
        let motion = ValueMotion(value)
        valueMotions[path] = motion
        return motion
    }

    /// In a live plan, a ``ValuesMotion`` for the node's settings that move together, starting
    /// at `values`; nil elsewhere.
    package mutating func valuesMotion(_ values: [Double]) -> ValuesMotion? {
        guard registry?.movesParameters == true else { return nil }
        let motion = ValuesMotion(values)
        valuesMotions[path] = motion
        return motion
    }

    /// Adds filter sections; adjacent sections on the same channels fuse into one cascade.
    package mutating func addSections(_ sections: [BiquadCoefficients]) {
        steps.append(PlannedStep(key: key, base: base, channels: channels, segment: segment, content: .sections(sections), path: path))
    }

    /// The most channels a chain or bus carries (a preset's outputs, a crossover's bands).
    package static let maximumChannels = 64

    /// Adds a kernel working on the node's channels; `latency` is the frames it delays them by.
    /// `width`: the channels it reads and writes when it widens the chain (a crossover's
    /// bands), from the node's first channel.
    package mutating func addKernel(_ recipe: KernelRecipe, latency: Int = 0, width: Int? = nil) {
        steps.append(PlannedStep(key: key, base: base, channels: width ?? channels, segment: segment, content: .kernel(recipe), latency: latency))
    }

    /// In a live plan, this node's state as the previous plan left it (read before
    /// ``sharedState(_:reuse:make:)`` replaces it): what a convolution crossfades from.
    package func previousState<S: AnyObject>(_ type: S.Type) -> S? {
        guard let registry, registry.movesParameters else { return nil }
        return registry.existing(type, key: key)
    }

    /// How this plan's convolution kernels compute their large levels, and the node's worker
    /// counts (kept by the registry across plans, alive as long as the plan).
    package mutating func convolutionThreads() -> (threading: ConvolutionThreading, counters: ConvolutionCounters) {
        guard let registry else { return (.callingThread, ConvolutionCounters()) }
        let counters = registry.convolutionCounters(for: key)
        retain(counters)
        return (registry.convolutionThreading, counters)
    }

    /// Adds a convolution of every channel with `filter` (one response for all, or one each),
    /// crossfaded live from a kernel running `fadingFrom`; `latency` as for ``addKernel(_:latency:)``.
    package mutating func addConvolution(_ filter: ConvolutionFilter, fadingFrom previous: ConvolutionFilter?, latency: Int = 0) {
        let channels = channels, frames = maxBlockFrames, (threading, counters) = convolutionThreads()
        addKernel(KernelRecipe(shape: KernelShape("fir", [channels] + filter.layout.levels.map(\.size), carriesState: true)) {
            PartitionedConvolver(filter: filter, channelCount: channels, maximumBlockFrames: frames, threading: threading, counters: counters, fadingFrom: previous)
        }, latency: latency)
    }

    /// Keeps a shared state alive as long as the plan (and lists it in the plan's states).
    package mutating func retain(_ state: AnyObject) { retained.append((key, state)) }

    /// The node's state from the registry when `reuse` accepts the one kept there, else a new
    /// one from `make` (kept for the next plan); without a registry, one for this compile alone.
    package func sharedState<S: AnyObject>(_ type: S.Type, reuse: (S) -> Bool, make: () throws(PresetError) -> S) throws(PresetError) -> S {
        guard let registry else { return try make() }
        return try registry.state(type, key: key, reuse: reuse, make: make)
    }
}
