import TimbreDSP

/// Stage 1 of compiling a plan: lays the preset out on work channels and lowers every node
/// through its kind (`NodeCatalog`), in render order.
///
/// Work channels: a chain runs on the inputs; a graph uses
/// `[inputs][channel buses, 2 each][group buses][master bus]`:
/// ```
/// channel: source ─ chain ─ pan ─ (delay) ─ mix ─▶ group or master
/// group:   chain ─ (delay) ─ mix ─▶ master
/// master:  chain ─ volume ─▶ outputs
/// ```
package struct GraphLayout {
    package var steps: [PlannedStep] = []
    /// Where paths meet a bus (for ``LatencyCompensation``).
    package var junctions: [Junction] = []
    /// The segment whose end is the output (the chain, or the master bus).
    package var outputSegment = 0
    package var outputBase = 0
    package var outputChannelCount = 0
    /// The output channels' names when the preset made discrete channels (a crossover's bands,
    /// named drivers); nil for positional outputs (mono, stereo, a file's layout).
    package var outputChannelNames: [String]?
    /// The names after the chain ``addChain`` lowered last.
    var chainNames: [String]?
    /// Shared states the plan keeps alive (meters, shifters, players, plugins), by key.
    package var retained: [(key: String, state: AnyObject)] = []
    /// Live plans: the gain and pan nodes' moving values, by JSON path.
    package var valueMotions: [String: ValueMotion] = [:]
    /// Live plans: the compressors' moving settings, by JSON path.
    package var valuesMotions: [String: ValuesMotion] = [:]
    /// The buses already rendered when the next step runs, by channel or group id (their first
    /// work channel; two channels each): what a compressor's external key can read.
    var finishedBuses: [String: Int]?

    /// A path (a channel's or a group's chain) ending in a mix into a bus.
    package struct Junction {
        /// The path's segment, and the bus segment it starts from (nil: a channel's source).
        package var segment: Int
        package var source: Int?
        /// The bus segment it feeds.
        package var target: Int
        /// The mix step's key (a compensating delay goes before it) and the path's bus.
        package var mixKey: String
        package var delayKey: String
        package var base: Int
    }

    package init(preset: Preset, format: RenderFormat, registry: NodeStateRegistry?) throws(PresetError) {
        let fs = format.sampleRate
        switch preset.form {
        case .chain(let chain):
            outputChannelCount = try addChain(chain, base: 0, channels: format.inputChannelCount, keyPrefix: "", segment: 0, format: format, registry: registry)
            outputChannelNames = chainNames
        case .graph(let graph):
            finishedBuses = [:]
            let inputs = format.inputChannelCount
            let channelBase = { (k: Int) in inputs + 2 * k }
            let groupBase = { (k: Int) in inputs + 2 * graph.channels.count + 2 * k }
            let auxBase = { (k: Int) in inputs + 2 * (graph.channels.count + graph.groups.count) + 2 * k }
            let masterBase = inputs + 2 * (graph.channels.count + graph.groups.count + graph.auxes.count)
            // Segments: channels 0..<C, groups C..<C+G, auxes C+G..<C+G+A, master C+G+A.
            let groupSegment = { (k: Int) in graph.channels.count + k }
            let auxSegment = { (k: Int) in graph.channels.count + graph.groups.count + k }
            let masterSegment = graph.channels.count + graph.groups.count + graph.auxes.count
            let auxIndex = { (id: String) in graph.auxes.firstIndex { $0.id == id }! }
            for k in 0..<graph.groups.count { add(ClearKernel(count: 2), key: "clear:group:\(k)", base: groupBase(k), channels: 2, segment: groupSegment(k)) }
            for k in 0..<graph.auxes.count { add(ClearKernel(count: 2), key: "clear:aux:\(k)", base: auxBase(k), channels: 2, segment: auxSegment(k)) }
            /// A path's sends of one kind (pre- or post-fader): a mix into each aux bus, a junction each.
            func addSends(_ sends: [SendSpec], pre: Bool, from id: String, base: Int, segment: Int, source: Int?, fader: Double) {
                for send in sends where send.preFader == pre {
                    let a = auxIndex(send.aux), key = "send:\(id):\(send.aux)", gain = send.level * (pre ? 1 : fader)
                    junctions.append(Junction(segment: segment, source: source, target: auxSegment(a), mixKey: key, delayKey: "delay:\(key)", base: base))
                    add(MixKernel(to: auxBase(a), count: 2, gain: Float(gain), sampleRate: fs, motion: motion(key, Double(Float(gain)), registry)),
                        key: key, base: base, channels: 2, segment: segment)
                }
            }
            add(ClearKernel(count: 2), key: "clear:master", base: masterBase, channels: 2, segment: masterSegment)
            let soloing = graph.channels.contains(where: \.solo)
            let groupIndex = { (ch: ChannelSpec) in ch.group.flatMap { g in graph.groups.firstIndex { $0.id == g } } }
            for (k, ch) in graph.channels.enumerated() {
                let base = channelBase(k)
                var channels: Int
                switch ch.source {
                case .inputs(let indices):
                    for (j, index) in indices.enumerated() {
                        guard index < inputs else {
                            throw PresetError(path: ch.path + ".input[\(j)]", "input \(index) does not exist (the host has \(inputs) input channels, 0…\(inputs - 1))")
                        }
                        add(CopyKernel(from: index), key: "in:\(ch.id):\(j)", base: base + j, channels: 1, segment: k)
                    }
                    channels = indices.count
                case .sine(let f, let level):
                    try NodeLowering.checkFrequency(f, at: ch.path + ".generator.frequency", sampleRate: fs)
                    add(SineGenerator(frequencyHz: f, levelDB: level, sampleRate: fs), key: "gen:\(ch.id)", base: base, channels: 1, segment: k)
                    channels = 1
                case .player(let spec):
                    let key = "player:\(ch.id)"
                    guard let registry else {
                        throw PresetError(path: ch.path + ".player", "a player needs a host that reads files (timbre render or timbre live)")
                    }
                    let state = try registry.playerState(key: key, spec: spec, path: ch.path + ".player", sampleRate: fs, maxBlockFrames: format.maxBlockFrames)
                    retained.append((key, state))
                    add(PlayerStep(kernel: state.kernelAddress), key: key, base: base, channels: state.channelCount, segment: k)
                    channels = state.channelCount
                }
                channels = try addChain(ch.chain, base: base, channels: channels, keyPrefix: "\(ch.id)/", segment: k, format: format, registry: registry, widthLimit: 2)
                guard channels <= 2 else { throw PresetError(path: ch.path, "a channel must end mono or stereo") }
                addPan(PanKernel(pan: ch.pan, mode: channels == 1 ? .monoToStereo : .stereoBalance, sampleRate: fs), value: ch.pan, key: "pan:\(ch.id)",
                       base: base, channels: channels, segment: k, registry: registry)
                try addMeter(key: ch.id, registry: registry, base: base, channels: 2, segment: k, sampleRate: fs)
                if let tap = registry?.busTaps[ch.id] { add(BusTapKernel(tap: tap), key: "tap:\(ch.id)", base: base, channels: 2, segment: k) }
                let audible = !ch.mute && (!soloing || ch.solo)
                let target = groupIndex(ch).map(groupBase) ?? masterBase
                let fader = audible ? Double(Float(ch.volume)) : 0
                addSends(ch.sends, pre: true, from: ch.id, base: base, segment: k, source: nil, fader: fader)
                junctions.append(Junction(segment: k, source: nil, target: groupIndex(ch).map(groupSegment) ?? masterSegment,
                                          mixKey: "mix:\(ch.id)", delayKey: "delay:\(ch.id)", base: base))
                add(MixKernel(to: target, count: 2, gain: audible ? Float(ch.volume) : 0, sampleRate: fs,
                              motion: motion("mix:\(ch.id)", audible ? Double(Float(ch.volume)) : 0, registry)), key: "mix:\(ch.id)", base: base, channels: 2, segment: k)
                addSends(ch.sends, pre: false, from: ch.id, base: base, segment: k, source: nil, fader: fader)
                finishedBuses?[ch.id] = base
            }
            for (k, g) in graph.groups.enumerated() {
                let channels = try addChain(g.chain, base: groupBase(k), channels: 2, keyPrefix: "\(g.id)/", segment: groupSegment(k), format: format, registry: registry, widthLimit: 2)
                guard channels == 2 else { throw PresetError(path: g.path, "a group bus is stereo") }
                try addMeter(key: g.id, registry: registry, base: groupBase(k), channels: 2, segment: groupSegment(k), sampleRate: fs)
                if let tap = registry?.busTaps[g.id] { add(BusTapKernel(tap: tap), key: "tap:\(g.id)", base: groupBase(k), channels: 2, segment: groupSegment(k)) }
                let fader = g.mute ? 0 : Double(Float(g.volume))
                addSends(g.sends, pre: true, from: g.id, base: groupBase(k), segment: groupSegment(k), source: groupSegment(k), fader: fader)
                junctions.append(Junction(segment: groupSegment(k), source: groupSegment(k), target: masterSegment,
                                          mixKey: "mix:\(g.id)", delayKey: "delay:\(g.id)", base: groupBase(k)))
                add(MixKernel(to: masterBase, count: 2, gain: g.mute ? 0 : Float(g.volume), sampleRate: fs,
                              motion: motion("mix:\(g.id)", g.mute ? 0 : Double(Float(g.volume)), registry)), key: "mix:\(g.id)", base: groupBase(k), channels: 2, segment: groupSegment(k))
                addSends(g.sends, pre: false, from: g.id, base: groupBase(k), segment: groupSegment(k), source: groupSegment(k), fader: fader)
                finishedBuses?[g.id] = groupBase(k)
            }
            // Aux buses: their chains, then into the master (returns) or, after the master's
            // chain, to outputs of their own.
            for (k, a) in graph.auxes.enumerated() {
                let channels = try addChain(a.chain, base: auxBase(k), channels: 2, keyPrefix: "\(a.id)/", segment: auxSegment(k), format: format, registry: registry, widthLimit: 2)
                guard channels == 2 else { throw PresetError(path: a.path, "an aux bus is stereo") }
                try addMeter(key: a.id, registry: registry, base: auxBase(k), channels: 2, segment: auxSegment(k), sampleRate: fs)
                if let tap = registry?.busTaps[a.id] { add(BusTapKernel(tap: tap), key: "tap:\(a.id)", base: auxBase(k), channels: 2, segment: auxSegment(k)) }
                if a.destination == .master {
                    junctions.append(Junction(segment: auxSegment(k), source: auxSegment(k), target: masterSegment,
                                              mixKey: "mix:\(a.id)", delayKey: "delay:\(a.id)", base: auxBase(k)))
                    add(MixKernel(to: masterBase, count: 2, gain: a.mute ? 0 : Float(a.volume), sampleRate: fs,
                                  motion: motion("mix:\(a.id)", a.mute ? 0 : Double(Float(a.volume)), registry)), key: "mix:\(a.id)", base: auxBase(k), channels: 2, segment: auxSegment(k))
                }
                finishedBuses?[a.id] = auxBase(k)
            }
            // The master volume's motion exists before the chain: a `loudnessCompensation` node there follows it.
            let masterMotion = motion("master:volume", graph.master.volume, registry)
            let channels = try addChain(graph.master.chain, base: masterBase, channels: 2, keyPrefix: "master/", segment: masterSegment, format: format,
                                        registry: registry, masterVolume: (graph.master.volume, masterMotion))
            // The master chain may change the channel count (a crossover's bands): the graph's outputs.
            if graph.master.pan != 0 {
                guard channels == 2 else {
                    throw PresetError(path: graph.master.path + ".pan", "pan is a stereo balance, and the master chain ends with \(channels) channel\(channels == 1 ? "" : "s")")
                }
                addPan(PanKernel(pan: graph.master.pan, mode: .stereoBalance, sampleRate: fs), value: graph.master.pan, key: "master:pan",
                       base: masterBase, channels: 2, segment: masterSegment, registry: registry)
            }
            let volume = GainKernel(gain: Float(graph.master.volume), sampleRate: fs)
            if let m = masterMotion {
                steps.append(PlannedStep(key: "master:volume", base: masterBase, channels: channels, segment: masterSegment, content: .kernel(KernelRecipe(
                    shape: KernelShape("moving-gain", carriesState: true)) { MovingGainStep(kernel: volume, motion: m, seen: graph.master.volume.bitPattern) })))
            } else {
                add(volume, key: "master:volume", base: masterBase, channels: channels, segment: masterSegment)
            }
            outputSegment = masterSegment
            outputBase = masterBase
            outputChannelCount = channels
            outputChannelNames = chainNames
            // Auxes with outputs of their own: after the master's channels, each at its volume,
            // aligned with the master's output (a junction into the outputs' pseudo-segment).
            let separate = graph.auxes.enumerated().filter { $0.element.destination == .outputs }
            if !separate.isEmpty {
                let outputsSegment = masterSegment + 1
                junctions.append(Junction(segment: masterSegment, source: masterSegment, target: outputsSegment, mixKey: "", delayKey: "", base: masterBase))
                var names = chainNames ?? (channels == 2 ? ["\(graph.master.id) L", "\(graph.master.id) R"] : (1...channels).map { "\(graph.master.id) \($0)" })
                for (j, (k, a)) in separate.enumerated() {
                    let out = masterBase + channels + 2 * j, key = "mix:\(a.id)"
                    add(ClearKernel(count: 2), key: "clear:out:\(a.id)", base: out, channels: 2, segment: auxSegment(k))
                    junctions.append(Junction(segment: auxSegment(k), source: auxSegment(k), target: outputsSegment, mixKey: key, delayKey: "delay:\(a.id)", base: auxBase(k)))
                    add(MixKernel(to: out, count: 2, gain: a.mute ? 0 : Float(a.volume), sampleRate: fs,
                                  motion: motion(key, a.mute ? 0 : Double(Float(a.volume)), registry)), key: key, base: auxBase(k), channels: 2, segment: auxSegment(k))
                    names += ["\(a.id) L", "\(a.id) R"]
                }
                outputChannelCount = channels + 2 * separate.count
                outputChannelNames = names
            }
        }
        if let key = registry?.outputMeterKey {
            try addMeter(key: key, registry: registry, base: outputBase, channels: outputChannelCount, segment: outputSegment, sampleRate: fs)
        }
    }

    /// The meters a live engine always has (``NodeStateRegistry/outputMeterKey`` set): the
    /// output's, and each channel's and group's bus (after its pan, by its id): a `loudness`
    /// kernel (peaks, RMS, R 128 loudness), unless a node of the preset already uses that key.
    mutating func addMeter(key: String, registry: NodeStateRegistry?, base: Int, channels: Int, segment: Int, sampleRate: Double) throws(PresetError) {
        guard let registry, registry.outputMeterKey != nil, !retained.contains(where: { $0.key == key }) else { return }
        let make = { AnalysisState(kind: .loudness, channelCount: channels, sampleRate: sampleRate) }
        let state = try registry.state(AnalysisState.self, key: key, reuse: { $0.matches(.loudness, channels, sampleRate, nil) }, make: make)
        retained.append((key, state))
        let kernel = AnalysisStep(kernel: state.kernelAddress)
        steps.append(PlannedStep(key: key, base: base, channels: channels, segment: segment,
                                 content: .kernel(KernelRecipe(shape: KernelShape("analysis", carriesState: false), { kernel }))))
    }

    /// In a live plan, a ``ValueMotion`` for one of the graph's own values (a mix gain, a pan,
    /// the master volume) under `key`, starting at `value`; nil elsewhere.
    mutating func motion(_ key: String, _ value: Double, _ registry: NodeStateRegistry?) -> ValueMotion.Handle? {
        guard registry?.movesParameters == true else { return nil }
        let m = ValueMotion(value)
        valueMotions[key] = m
        return m.handle
    }

    /// A channel's or the master's pan: moved in place in a live plan.
    mutating func addPan(_ kernel: PanKernel, value: Double, key: String, base: Int, channels: Int, segment: Int, registry: NodeStateRegistry?) {
        if let m = motion(key, value, registry) {
            steps.append(PlannedStep(key: key, base: base, channels: channels, segment: segment, content: .kernel(KernelRecipe(
                shape: KernelShape("moving-pan", kernel.shape.detail, carriesState: true)) { MovingPanStep(kernel: kernel, motion: m, seen: value.bitPattern) })))
        } else {
            add(kernel, key: key, base: base, channels: channels, segment: segment)
        }
    }

    /// Adds a graph step (a kernel of the graph itself, not of a preset node).
    mutating func add<K: GraphKernel>(_ kernel: K, key: String, base: Int, channels: Int, segment: Int) {
        steps.append(PlannedStep(key: key, base: base, channels: channels, segment: segment,
                                 content: .kernel(KernelRecipe(shape: kernel.shape, { kernel }))))
    }

    /// Lowers a chain's nodes on `channels` channels at `base`; returns the channel count after it.
    /// `widthLimit`: the most channels the chain may carry (a graph's channel and group buses
    /// are laid out two work channels apart).
    mutating func addChain(_ chain: [NodeSpec], base: Int, channels start: Int, keyPrefix: String, segment: Int,
                           format: RenderFormat, registry: NodeStateRegistry?, widthLimit: Int? = nil,
                           masterVolume: (value: Double, motion: ValueMotion.Handle?)? = nil) throws(PresetError) -> Int {
        var channels = start
        chainNames = nil
        for (index, node) in chain.enumerated() where !node.bypass {
            var lowering = NodeLowering(key: keyPrefix + (node.id ?? "#\(index)"), path: node.path, sampleRate: format.sampleRate,
                                        maxBlockFrames: format.maxBlockFrames, registry: registry, channels: channels, base: base, segment: segment)
            lowering.finishedBuses = finishedBuses
            lowering.masterVolume = masterVolume
            lowering.channelNames = chainNames
            try node.kind.definition.lower(any: node.kind.parameters, into: &lowering)
            chainNames = lowering.outputNames ?? (lowering.channelsOut == channels ? chainNames : nil)
            steps += lowering.steps
            retained += lowering.retained
            valueMotions.merge(lowering.valueMotions) { a, _ in a }
            valuesMotions.merge(lowering.valuesMotions) { a, _ in a }
            channels = lowering.channelsOut
            if let widthLimit, channels > widthLimit {
                throw PresetError(path: node.path, "a channel's or group's chain carries at most \(widthLimit) channels, and this node makes \(channels) (put it on the master chain, or use a chain preset)")
            }
            guard channels <= NodeLowering.maximumChannels else {
                throw PresetError(path: node.path, "\(channels) channels after this node (at most \(NodeLowering.maximumChannels))")
            }
        }
        return channels
    }
}

/// A kernel the graph adds by itself (bus copies, clears and mixes, generators, the master
/// volume, latency delays), which knows its own shape.
protocol GraphKernel: RenderKernel {
    var shape: KernelShape { get }
}
