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

/// A compiled chain: kernels in order, every buffer allocated up front.
///
/// `init` runs on the control thread and does all allocation and filter design.
/// The render itself lives in ``PlanCore`` (raw memory, reached through ``core``); `render`
/// here is the same call for single-threaded use (the offline renderer).
public final class RenderPlan {
    public let format: RenderFormat
    public let preset: Preset
    /// Channels after the chain (a `pan` on mono input makes 2).
    public let outputChannelCount: Int
    /// Node keys in order (id, or `#index`), for matching state across plans.
    public let nodeKeys: [String]
    /// Node shapes in order: control-side metadata, so the next plan's state-transfer map is
    /// computed without reading node memory the audio thread writes.
    let nodeShapes: [RenderNode.Shape]
    /// For each node, the preset nodes fused into it when it is a biquad cascade (else empty).
    let cascadeMembers: [[CascadeMember]]
    /// True when a filter new to the plan it continues was left out of a cascade so it could
    /// fade in alone. The same document compiled again (continuing this plan) fuses it, and
    /// only then does the plan equal a fresh compile of its document sample for sample
    /// (``LiveEngine/collectRetired()`` does that once the fade-in is over).
    public let hasUnfusedNewcomers: Bool
    /// The measurements of this plan's `meter` and `loudness` nodes, by node key (held here
    /// so they live as long as any plan that renders them).
    public let analysisStates: [(key: String, state: AnalysisState)]
    /// The shifters of this plan's `pitch` nodes, by node key (held for the same reason).
    public let pitchStates: [(key: String, state: PitchState)]
    /// The instances of this plan's `plugin` nodes, by node key (held for the same reason).
    public let pluginStates: [(key: String, state: PluginState)]
    /// The streams of this plan's `player` channels, by key (`player:<channel id>`).
    public let playerStates: [(key: String, state: PlayerState)]
    /// The render-side memory. Valid until this plan is deinitialised.
    public let core: UnsafeMutablePointer<PlanCore>

    /// Compiles `preset` for `format`. Throws a ``PresetError`` with the node's path when a
    /// frequency is at or above 0.49 × the sample rate or a node cannot take the channel count.
    /// `continuing`: a plan whose node states this one will continue (matched by node id
    /// and shape) when the render switches to it.
    /// `shared`: where `meter`/`loudness`/`spectrum` and `pitch` nodes find the state they
    /// continue (a live engine's registry); without one each node starts from scratch.
    ///
    /// Latency: a `pitch` node delays its path by ``PitchShifter/latencyFrames(sampleRate:)``;
    /// the plan's latency is the longest path, and shorter paths into a bus are delayed to meet
    /// it (a `delay` node before their mix), so parallel channels stay aligned.
    public init(preset: Preset, format: RenderFormat, continuing previous: RenderPlan? = nil,
                shared registry: SharedNodeStates? = nil) throws(PresetError) {
        precondition(format.inputChannelCount >= 1 && format.maxBlockFrames >= 1)
        self.format = format
        self.preset = preset
        let fs = format.sampleRate
        let limit = ParameterRanges.nyquistFraction * fs
        func checkFrequency(_ f: Double, _ path: String) throws(PresetError) {
            if f >= limit {
                throw PresetError(path: path, "\(JSONValue.number(f).brief) Hz is at or above 0.49 × the sample rate (must be below \(JSONValue.number((limit * 10).rounded(.down) / 10).brief) Hz at \(JSONValue.number(fs).brief) Hz)")
            }
        }
        var compiled: [RenderNode] = []
        var channelsIn: [Int] = []
        var bases: [Int] = []
        var keys: [String] = []
        var built: [RenderNode] = []
        var analysis: [(key: String, state: AnalysisState)] = []
        var pitch: [(key: String, state: PitchState)] = []
        var players: [(key: String, state: PlayerState)] = []
        var plugins: [(key: String, state: PluginState)] = []
        defer {  // only on throw
            for n in built {
                if case .biquads(let k) = n { k.deallocate() }
                if case .delay(let d) = n { d.deallocate() }
                if case .plugin(let p) = n { p.deallocate() }
            }
        }
        let pitchLatency = PitchShifter.latencyFrames(sampleRate: fs)
        /// The latency a chain adds (its `pitch` and `plugin` nodes).
        func latency(of chain: [NodeSpec]) throws(PresetError) -> Int {
            var sum = 0
            for node in chain where !node.bypass {
                switch node.kind {
                case .pitch: sum += pitchLatency
                case .plugin(let spec):
                    guard let registry else { throw PresetError(path: node.path, PluginLoader.missing) }
                    sum += try registry.latency(of: spec, path: node.path, sampleRate: fs, maxBlockFrames: format.maxBlockFrames)
                default: break
                }
            }
            return sum
        }
        var maxChannels = format.inputChannelCount

        var members: [[CascadeMember]] = []
        func add(_ kernel: RenderNode, key: String, base: Int, channels: Int, fused: [CascadeMember] = []) {
            built.append(kernel); compiled.append(kernel); channelsIn.append(channels); bases.append(base); keys.append(key)
            members.append(fused)
            maxChannels = max(maxChannels, base + max(channels, 2))
        }
        // The previous plan's cascade members by key (node index and member): a node that is new
        // to a running stream stays on its own so it can fade in; the others fuse and continue.
        var previousMembers: [String: (node: Int, member: CascadeMember)] = [:]
        for (j, list) in (previous?.cascadeMembers ?? []).enumerated() { for m in list { previousMembers[m.key] = (j, m) } }

        /// Adjacent `filter` and `eq` nodes on the same channels, gathered into one cascade.
        struct PendingCascade {
            var sections: [BiquadCoefficients] = []
            var members: [CascadeMember] = []
            var base = 0, channels = 0
        }
        var pending = PendingCascade()
        var unfusedNewcomers = false
        func flushCascade() {
            defer { pending = PendingCascade() }
            guard !pending.sections.isEmpty else { return }
            add(.biquads(BiquadCascade(sections: pending.sections, channelCount: pending.channels)),
                key: pending.members.map(\.key).joined(separator: "+"), base: pending.base, channels: pending.channels,
                fused: pending.members)
        }
        /// Adds a node's sections to the cascade being gathered (alone when it is new to a running plan).
        func addSections(_ sections: [BiquadCoefficients], key: String, base: Int, channels: Int) {
            let active = sections.filter { !$0.isIdentity }
            guard !active.isEmpty else { return }
            let fresh = previous != nil && previousMembers[key].map { $0.member.sections != active.count || $0.member.channels != channels } ?? true
            if fresh || pending.base != base || pending.channels != channels { flushCascade() }
            pending.base = base; pending.channels = channels
            pending.members.append(CascadeMember(key: key, offset: pending.sections.count, sections: active.count, channels: channels))
            pending.sections += active
            if fresh { flushCascade(); unfusedNewcomers = unfusedNewcomers || previous != nil }
        }

        /// Compiles a chain working on `channels` channels at `base`; returns the channel count after it.
        func addChain(_ chain: [NodeSpec], base: Int, channels start: Int, keyPrefix: String) throws(PresetError) -> Int {
            var channels = start
            defer { flushCascade() }
            for (index, node) in chain.enumerated() where !node.bypass {
                let key = keyPrefix + (node.id ?? "#\(index)")
                var kernel: RenderNode?
                var channelsAfter = channels
                switch node.kind {
                case .filter(let design):
                    try checkFrequency(design.frequencyHz, node.path + ".frequency")
                    addSections(DesignCache.shared.sections(design, sampleRate: fs), key: key, base: base, channels: channels)
                    continue
                case .eq(let bands):
                    var sections: [BiquadCoefficients] = []
                    for (j, band) in bands.enumerated() {
                        try checkFrequency(band.frequencyHz, node.path + ".bands[\(j)].frequency")
                        sections += DesignCache.shared.sections(band.design, sampleRate: fs)
                    }
                    addSections(sections, key: key, base: base, channels: channels)
                    continue
                case .gain(let linear):
                    kernel = .gain(GainKernel(gain: Float(linear), sampleRate: fs))
                case .analysis(let kind, let spectrum):
                    if let spectrum, Double(spectrum.size) / fs > 2 {
                        throw PresetError(path: node.path + ".fftSize", "\(spectrum.size) points are more than 2 s at \(JSONValue.number(fs).brief) Hz")
                    }
                    let state = registry?.analysisState(key: key, kind: kind, channels: channels, sampleRate: fs, spectrum: spectrum)
                        ?? AnalysisState(kind: kind, channelCount: channels, sampleRate: fs, spectrum: spectrum)
                    analysis.append((key, state))
                    kernel = .analysis(UnsafePointer(state.kernelAddress))
                case .pitch(let semitones):
                    let state = registry?.pitchState(key: key, channels: channels, sampleRate: fs, maxBlockFrames: format.maxBlockFrames, semitones: semitones)
                        ?? PitchState(channelCount: channels, sampleRate: fs, maxBlockFrames: format.maxBlockFrames, semitones: semitones)
                    pitch.append((key, state))
                    kernel = .pitch(state.kernel, semitones: semitones)
                case .plugin(let spec):
                    guard let registry else { throw PresetError(path: node.path, PluginLoader.missing) }
                    let state = try registry.pluginState(key: key, spec: spec, path: node.path, channels: channels, sampleRate: fs, maxBlockFrames: format.maxBlockFrames)
                    plugins.append((key, state))
                    kernel = .plugin(PluginKernel(state: state, values: try state.values(for: spec.controls, path: node.path)))
                    channelsAfter = state.outputChannelCount
                case .pan(let p):
                    switch channels {
                    case 1: kernel = .pan(PanKernel(pan: p, mode: .monoToStereo, sampleRate: fs))
                    case 2: kernel = .pan(PanKernel(pan: p, mode: .stereoBalance, sampleRate: fs))
                    default:
                        throw PresetError(path: node.path, "pan needs mono or stereo input, the chain has \(channels) channels here")
                    }
                }
                guard let kernel else { continue }
                flushCascade()
                add(kernel, key: key, base: base, channels: channels)
                if case .pan(let p) = kernel, p.mode == .monoToStereo { channelsAfter = 2 }
                channels = channelsAfter
            }
            return channels
        }

        var outputBase = 0
        var planLatency = 0
        switch preset.form {
        case .graph(let graph):
            // Work channels: [inputs][channel buses, 2 each][group buses][master bus].
            let inputs = format.inputChannelCount
            let channelBase = { (k: Int) in inputs + 2 * k }
            let groupBase = { (k: Int) in inputs + 2 * graph.channels.count + 2 * k }
            let masterBase = inputs + 2 * (graph.channels.count + graph.groups.count)
            for k in 0..<graph.groups.count { add(.clear(count: 2), key: "clear:group:\(k)", base: groupBase(k), channels: 2) }
            add(.clear(count: 2), key: "clear:master", base: masterBase, channels: 2)
            let soloing = graph.channels.contains(where: \.solo)
            // Latency: each channel's path, each bus's longest input; shorter inputs are delayed.
            let groupIndex = { (ch: ChannelSpec) in ch.group.flatMap { g in graph.groups.firstIndex { $0.id == g } } }
            var channelLatency: [Int] = []
            for ch in graph.channels { channelLatency.append(try latency(of: ch.chain)) }
            var groupInput = [Int](repeating: 0, count: graph.groups.count)
            var masterInput = 0
            for (k, ch) in graph.channels.enumerated() {
                if let g = groupIndex(ch) { groupInput[g] = max(groupInput[g], channelLatency[k]) } else { masterInput = max(masterInput, channelLatency[k]) }
            }
            var groupLatency: [Int] = []
            for k in graph.groups.indices { groupLatency.append(groupInput[k] + (try latency(of: graph.groups[k].chain))) }
            for l in groupLatency { masterInput = max(masterInput, l) }
            planLatency = masterInput + (try latency(of: graph.master.chain))
            func compensate(_ frames: Int, key: String, base: Int) {
                if frames > 0 { add(.delay(DelayLine(frames: frames, channelCount: 2)), key: key, base: base, channels: 2) }
            }
            for (k, ch) in graph.channels.enumerated() {
                let base = channelBase(k)
                var channels: Int
                switch ch.source {
                case .inputs(let indices):
                    for (j, index) in indices.enumerated() {
                        guard index < inputs else {
                            throw PresetError(path: ch.path + ".input[\(j)]", "input \(index) does not exist (the host has \(inputs) input channels, 0…\(inputs - 1))")
                        }
                        add(.copy(from: index), key: "in:\(ch.id):\(j)", base: base + j, channels: 1)
                    }
                    channels = indices.count
                case .sine(let f, let level):
                    try checkFrequency(f, ch.path + ".generator.frequency")
                    add(.sine(SineGenerator(frequencyHz: f, levelDB: level, sampleRate: fs)), key: "gen:\(ch.id)", base: base, channels: 1)
                    channels = 1
                case .player(let spec):
                    let key = "player:\(ch.id)"
                    guard let registry else {
                        throw PresetError(path: ch.path + ".player", "a player needs a host that reads files (timbre render or timbre live)")
                    }
                    let state = try registry.playerState(key: key, spec: spec, path: ch.path + ".player", sampleRate: fs, maxBlockFrames: format.maxBlockFrames)
                    players.append((key, state))
                    add(.player(UnsafePointer(state.kernelAddress)), key: key, base: base, channels: state.channelCount)
                    channels = state.channelCount
                }
                channels = try addChain(ch.chain, base: base, channels: channels, keyPrefix: "\(ch.id)/")
                guard channels <= 2 else { throw PresetError(path: ch.path, "a channel must end mono or stereo") }
                add(.pan(PanKernel(pan: ch.pan, mode: channels == 1 ? .monoToStereo : .stereoBalance, sampleRate: fs)),
                    key: "pan:\(ch.id)", base: base, channels: channels)
                compensate((groupIndex(ch).map { groupInput[$0] } ?? masterInput) - channelLatency[k], key: "delay:\(ch.id)", base: base)
                let audible = !ch.mute && (!soloing || ch.solo)
                let target = groupIndex(ch).map(groupBase) ?? masterBase
                add(.mix(to: target, count: 2, gain: LinearRamp(value: audible ? Float(ch.volume) : 0)), key: "mix:\(ch.id)", base: base, channels: 2)
            }
            for (k, g) in graph.groups.enumerated() {
                let channels = try addChain(g.chain, base: groupBase(k), channels: 2, keyPrefix: "\(g.id)/")
                guard channels == 2 else { throw PresetError(path: g.path, "a group bus is stereo") }
                compensate(masterInput - groupLatency[k], key: "delay:\(g.id)", base: groupBase(k))
                add(.mix(to: masterBase, count: 2, gain: LinearRamp(value: g.mute ? 0 : Float(g.volume))), key: "mix:\(g.id)", base: groupBase(k), channels: 2)
            }
            let channels = try addChain(graph.master.chain, base: masterBase, channels: 2, keyPrefix: "master/")
            guard channels == 2 else { throw PresetError(path: graph.master.path, "the master bus is stereo") }
            add(.gain(GainKernel(gain: Float(graph.master.volume), sampleRate: fs)), key: "master:volume", base: masterBase, channels: 2)
            outputBase = masterBase
            outputChannelCount = 2
        case .chain(let chain):
            outputChannelCount = try addChain(chain, base: 0, channels: format.inputChannelCount, keyPrefix: "")
            planLatency = try latency(of: chain)
        }
        latencyFrames = planLatency
        built = []  // success: the plan owns the kernels now
        nodeKeys = keys
        nodeShapes = compiled.map(\.shape)
        cascadeMembers = members
        hasUnfusedNewcomers = unfusedNewcomers
        analysisStates = analysis
        pitchStates = pitch
        playerStates = players
        pluginStates = plugins

        // State transfer map against `previous`: same key and same shape, decided from the
        // previous plan's control-side keys and shapes only (its node memory belongs to the
        // audio thread while it renders).
        var transfer = [Int](repeating: -1, count: compiled.count)
        if let previous {
            var previousIndex: [String: Int] = [:]
            for (j, key) in previous.nodeKeys.enumerated() where previousIndex[key] == nil { previousIndex[key] = j }
            for (i, key) in keys.enumerated() {
                guard members[i].isEmpty, let j = previousIndex[key], nodeShapes[i] == previous.nodeShapes[j], nodeShapes[i].carriesState else { continue }
                transfer[i] = j
            }
        }
        // Cascades continue member by member (a node's sections may sit elsewhere in a longer cascade now).
        var cascadeTransfers: [CascadeTransfer] = []
        for (i, list) in members.enumerated() {
            for m in list {
                guard let (j, old) = previousMembers[m.key], old.sections == m.sections, old.channels == m.channels else { continue }
                cascadeTransfers.append(CascadeTransfer(node: i, to: m.offset, source: j, from: old.offset, sections: m.sections))
            }
        }
        let continued = Set(cascadeTransfers.map(\.node))

        let nodes = UnsafeMutableBufferPointer<RenderNode>.allocate(capacity: compiled.count)
        _ = nodes.initialize(from: compiled)
        let channelsBuffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: channelsIn.count)
        _ = channelsBuffer.initialize(from: channelsIn)
        let basesBuffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: bases.count)
        _ = basesBuffer.initialize(from: bases)
        let transferBuffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: transfer.count)
        _ = transferBuffer.initialize(from: transfer)
        let cascadeTransferBuffer = UnsafeMutableBufferPointer<CascadeTransfer>.allocate(capacity: cascadeTransfers.count)
        _ = cascadeTransferBuffer.initialize(from: cascadeTransfers)
        // Channels 64 bytes more than a block apart: at power-of-two block sizes, buffers exactly
        // 4 KiB apart make loads and stores of a stereo pair alias in the CPU's store buffer
        // (measured: the 12-section cascade 5.8 → 4.6 ns per stereo frame with the padding).
        let channelStride = format.maxBlockFrames + 16
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: maxChannels * channelStride)
        storage.initialize(repeating: 0, count: maxChannels * channelStride)
        let work = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: maxChannels)
        for c in 0..<maxChannels { work[c] = storage + c * channelStride }
        let fadeInFrames = max(1, Int(0.03 * fs))
        let fadeIn = UnsafeMutableBufferPointer<LinearRamp>.allocate(capacity: compiled.count)
        for i in 0..<compiled.count {
            var ramp = LinearRamp(value: 1)
            if previous != nil, !continued.contains(i), case .biquads = compiled[i] {
                ramp = LinearRamp(value: 0)
                ramp.setTarget(1, frames: fadeInFrames)
            }
            fadeIn.initializeElement(at: i, to: ramp)
        }
        let dryStorage = UnsafeMutablePointer<Float>.allocate(capacity: maxChannels * channelStride)
        dryStorage.initialize(repeating: 0, count: maxChannels * channelStride)
        let dry = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: maxChannels)
        for c in 0..<maxChannels { dry[c] = dryStorage + c * channelStride }
        core = .allocate(capacity: 1)
        core.initialize(to: PlanCore(
            inputChannelCount: format.inputChannelCount, outputChannelCount: outputChannelCount, maxBlockFrames: format.maxBlockFrames,
            outputBase: outputBase, nodes: nodes, channelsIn: channelsBuffer, bases: basesBuffer, transfer: transferBuffer,
            cascadeTransfers: cascadeTransferBuffer,
            transferSource: previous.map { UnsafeMutableRawPointer($0.core) }, work: work, workStorage: storage,
            fadeIn: fadeIn, fadeInFrames: fadeInFrames, dry: dry, dryStorage: dryStorage))
    }

    deinit {
        let c = core.pointee
        for node in c.nodes {
            if case .biquads(let k) = node { k.deallocate() }
            if case .delay(let d) = node { d.deallocate() }
            if case .plugin(let p) = node { p.deallocate() }
        }
        c.nodes.deallocate()
        c.channelsIn.deallocate()
        c.bases.deallocate()
        c.transfer.deallocate()
        c.cascadeTransfers.deallocate()
        c.work.deallocate()
        c.workStorage.deallocate()
        c.fadeIn.deallocate()
        c.dry.deallocate()
        c.dryStorage.deallocate()
        core.deinitialize(count: 1)
        core.deallocate()
    }

    /// Frames of latency this plan adds between input and output: the longest path through
    /// its nodes (the `pitch` nodes on it; every other built-in node is zero-latency).
    public let latencyFrames: Int

    /// Clears all filter state.
    public func reset() { core.pointee.reset() }

    /// The newest values of every `meter` and `loudness` node, by node key (control thread).
    public var meters: JSONValue { .object(Dictionary(analysisStates.map { ($0.key, $0.state.values) }) { a, _ in a }) }

    /// Renders on the calling thread (offline use). See ``PlanCore/render(input:output:frameCount:)``;
    /// returns the number of blocks silenced because they held NaN or infinity.
    @discardableResult
    public func render(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) -> Int {
        core.pointee.render(input: input, output: output, frameCount: frameCount)
    }
}
