import TimbreDSP

/// Stage 1 of compiling a plan: lays the preset out on work channels and lowers every node
/// through its kind (`NodeCatalog`), in render order.
///
/// Work channels: a chain runs on the inputs; a graph uses
/// `[inputs][channel buses][group buses][aux buses][master bus]`, each bus as wide as it is
/// (a channel's as its source, at least 2; groups, auxes and the master as they declare, 2 by
/// default; a path goes into the first channels of a wider bus):
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
    /// Each channel's, group's and aux's bus width (what a take of the bus records), by id.
    package var busWidths: [String: Int] = [:]
    /// The names after the chain ``addChain`` lowered last.
    var chainNames: [String]?
    /// Shared states the plan keeps alive (meters, shifters, players, plugins), by key.
    package var retained: [(key: String, state: AnyObject)] = []
    /// Live plans: the gain and pan nodes' moving values, by JSON path.
    package var valueMotions: [String: ValueMotion] = [:]
    /// Live plans: the compressors' moving settings, by JSON path.
    package var valuesMotions: [String: ValuesMotion] = [:]
    /// The buses already rendered when the next step runs, by channel or group id (their first
    /// work channel; a key reads the first two): what a compressor's external key can read.
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
        /// The path's channels (what a compensating delay holds).
        package var width: Int
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
            // Every bus's width first (the layout needs them all): a channel's is its source's, or
            // the `channels` it declares for its chain to make, at least 2 (mono and stereo are
            // panned into stereo); a player is opened here for it.
            var players: [Int: PlayerState] = [:]
            var sourceWidths: [Int] = []
            for (k, ch) in graph.channels.enumerated() {
                switch ch.source {
                case .inputs(let indices): sourceWidths.append(indices.count)
                case .sine: sourceWidths.append(1)
                case .player(let spec):
                    guard let registry else {
                        throw PresetError(path: ch.path + ".player", "a player needs a host that reads files (timbre render or timbre live)")
                    }
                    let state = try registry.playerState(key: "player:\(ch.id)", spec: spec, path: ch.path + ".player", sampleRate: fs, maxBlockFrames: format.maxBlockFrames)
                    players[k] = state
                    sourceWidths.append(state.channelCount)
                }
            }
            let channelWidths = zip(graph.channels, sourceWidths).map { max(2, $1, $0.channelCount ?? 0) }
            let groupWidths = graph.groups.map(\.channelCount), auxWidths = graph.auxes.map(\.channelCount)
            let masterWidth = graph.master.channelCount
            /// Each bus's first work channel, the buses laid out one after another from `start`.
            func firsts(_ widths: [Int], from start: Int) -> [Int] {
                var at = start
                return widths.map { w in defer { at += w }; return at }
            }
            let channelBases = firsts(channelWidths, from: inputs)
            let groupBases = firsts(groupWidths, from: inputs + channelWidths.reduce(0, +))
            let auxBases = firsts(auxWidths, from: inputs + channelWidths.reduce(0, +) + groupWidths.reduce(0, +))
            let masterBase = inputs + channelWidths.reduce(0, +) + groupWidths.reduce(0, +) + auxWidths.reduce(0, +)
            // Segments: channels 0..<C, groups C..<C+G, auxes C+G..<C+G+A, master C+G+A.
            let groupSegment = { (k: Int) in graph.channels.count + k }
            let auxSegment = { (k: Int) in graph.channels.count + graph.groups.count + k }
            let masterSegment = graph.channels.count + graph.groups.count + graph.auxes.count
            let auxIndex = { (id: String) in graph.auxes.firstIndex { $0.id == id }! }
            /// A path of `width` channels mixes into the first `width` channels of a bus at least
            /// as wide (a stereo channel into a 5.1 master's front pair); a wider one is refused.
            func fit(_ width: Int, from what: String, into busWidth: Int, _ bus: String, hint: String, at path: String) throws(PresetError) {
                guard width <= busWidth else {
                    throw PresetError(path: path, "\(what) carries \(width) channels and \(bus) \(busWidth) (give \(hint) \"channels\": \(width))")
                }
            }
            for k in 0..<graph.groups.count { add(ClearKernel(count: groupWidths[k]), key: "clear:group:\(k)", base: groupBases[k], channels: groupWidths[k], segment: groupSegment(k)) }
            for k in 0..<graph.auxes.count { add(ClearKernel(count: auxWidths[k]), key: "clear:aux:\(k)", base: auxBases[k], channels: auxWidths[k], segment: auxSegment(k)) }
            /// A path's sends of one kind (pre- or post-fader): a mix into each aux bus, a junction each.
            func addSends(_ sends: [SendSpec], pre: Bool, from id: String, what: String, width: Int, base: Int, segment: Int, source: Int?, fader: Double) throws(PresetError) {
                for send in sends where send.preFader == pre {
                    let a = auxIndex(send.aux), key = "send:\(id):\(send.aux)", gain = send.level * (pre ? 1 : fader)
                    try fit(width, from: what, into: auxWidths[a], "aux \"\(send.aux)\"", hint: "it", at: send.path)
                    junctions.append(Junction(segment: segment, source: source, target: auxSegment(a), mixKey: key, delayKey: "delay:\(key)", base: base, width: width))
                    add(MixKernel(to: auxBases[a], count: width, gain: Float(gain), sampleRate: fs, motion: motion(key, Double(Float(gain)), registry)),
                        key: key, base: base, channels: width, segment: segment)
                }
            }
            add(ClearKernel(count: masterWidth), key: "clear:master", base: masterBase, channels: masterWidth, segment: masterSegment)
            let soloing = graph.channels.contains(where: \.solo)
            let groupIndex = { (ch: ChannelSpec) in ch.group.flatMap { g in graph.groups.firstIndex { $0.id == g } } }
            for (k, ch) in graph.channels.enumerated() {
                let base = channelBases[k]
                switch ch.source {
                case .inputs(let indices):
                    for (j, index) in indices.enumerated() {
                        guard index < inputs else {
                            throw PresetError(path: ch.path + ".input[\(j)]", "input \(index) does not exist (the host has \(inputs) input channels, 0…\(inputs - 1))")
                        }
                        add(CopyKernel(from: index), key: "in:\(ch.id):\(j)", base: base + j, channels: 1, segment: k)
                    }
                case .sine(let f, let level):
                    try NodeLowering.checkFrequency(f, at: ch.path + ".generator.frequency", sampleRate: fs)
                    add(SineGenerator(frequencyHz: f, levelDB: level, sampleRate: fs), key: "gen:\(ch.id)", base: base, channels: 1, segment: k)
                case .player:
                    let key = "player:\(ch.id)", state = players[k]!
                    retained.append((key, state))
                    add(PlayerStep(kernel: state.kernelAddress), key: key, base: base, channels: state.channelCount, segment: k)
                }
                let channels = try addChain(ch.chain, base: base, channels: sourceWidths[k], keyPrefix: "\(ch.id)/", segment: k, format: format, registry: registry,
                                            widthLimit: channelWidths[k])
                // Mono and stereo are panned into stereo; a wider channel goes on as it is.
                let width: Int
                if channels <= 2 {
                    addPan(PanKernel(pan: ch.pan, mode: channels == 1 ? .monoToStereo : .stereoBalance, sampleRate: fs), value: ch.pan, key: "pan:\(ch.id)",
                           base: base, channels: channels, segment: k, registry: registry)
                    width = 2
                } else {
                    guard ch.pan == 0 else { throw PresetError(path: ch.path + ".pan", "pan is a stereo balance, and this channel carries \(channels) channels") }
                    width = channels
                }
                try addMeter(key: ch.id, registry: registry, base: base, channels: width, segment: k, sampleRate: fs)
                busWidths[ch.id] = width
                if let tap = registry?.busTaps[ch.id] { add(BusTapKernel(tap: tap), key: "tap:\(ch.id)", base: base, channels: width, segment: k) }
                let audible = !ch.mute && (!soloing || ch.solo)
                let g = groupIndex(ch)
                let what = "channel \"\(ch.id)\""
                if let g {
                    try fit(width, from: what, into: groupWidths[g], "group \"\(graph.groups[g].id)\"", hint: "it", at: ch.path)
                } else {
                    try fit(width, from: what, into: masterWidth, "the master bus", hint: "the master", at: ch.path)
                }
                let target = g.map { groupBases[$0] } ?? masterBase
                let fader = audible ? Double(Float(ch.volume)) : 0
                try addSends(ch.sends, pre: true, from: ch.id, what: what, width: width, base: base, segment: k, source: nil, fader: fader)
                junctions.append(Junction(segment: k, source: nil, target: g.map(groupSegment) ?? masterSegment,
                                          mixKey: "mix:\(ch.id)", delayKey: "delay:\(ch.id)", base: base, width: width))
                add(MixKernel(to: target, count: width, gain: audible ? Float(ch.volume) : 0, sampleRate: fs,
                              motion: motion("mix:\(ch.id)", audible ? Double(Float(ch.volume)) : 0, registry)), key: "mix:\(ch.id)", base: base, channels: width, segment: k)
                try addSends(ch.sends, pre: false, from: ch.id, what: what, width: width, base: base, segment: k, source: nil, fader: fader)
                finishedBuses?[ch.id] = base
            }
            for (k, g) in graph.groups.enumerated() {
                let width = groupWidths[k], base = groupBases[k], what = "group \"\(g.id)\""
                let channels = try addChain(g.chain, base: base, channels: width, keyPrefix: "\(g.id)/", segment: groupSegment(k), format: format, registry: registry, widthLimit: width)
                guard channels == width else { throw PresetError(path: g.path, "\(what) has \(width) channels and its chain ends with \(channels)") }
                try fit(width, from: what, into: masterWidth, "the master bus", hint: "the master", at: g.path)
                try addMeter(key: g.id, registry: registry, base: base, channels: width, segment: groupSegment(k), sampleRate: fs)
                busWidths[g.id] = width
                if let tap = registry?.busTaps[g.id] { add(BusTapKernel(tap: tap), key: "tap:\(g.id)", base: base, channels: width, segment: groupSegment(k)) }
                let fader = g.mute ? 0 : Double(Float(g.volume))
                try addSends(g.sends, pre: true, from: g.id, what: what, width: width, base: base, segment: groupSegment(k), source: groupSegment(k), fader: fader)
                junctions.append(Junction(segment: groupSegment(k), source: groupSegment(k), target: masterSegment,
                                          mixKey: "mix:\(g.id)", delayKey: "delay:\(g.id)", base: base, width: width))
                add(MixKernel(to: masterBase, count: width, gain: g.mute ? 0 : Float(g.volume), sampleRate: fs,
                              motion: motion("mix:\(g.id)", g.mute ? 0 : Double(Float(g.volume)), registry)), key: "mix:\(g.id)", base: base, channels: width, segment: groupSegment(k))
                try addSends(g.sends, pre: false, from: g.id, what: what, width: width, base: base, segment: groupSegment(k), source: groupSegment(k), fader: fader)
                finishedBuses?[g.id] = base
            }
            // Aux buses: their chains, then into the master (returns) or, after the master's
            // chain, to outputs of their own.
            for (k, a) in graph.auxes.enumerated() {
                let width = auxWidths[k], base = auxBases[k], what = "aux \"\(a.id)\""
                let channels = try addChain(a.chain, base: base, channels: width, keyPrefix: "\(a.id)/", segment: auxSegment(k), format: format, registry: registry, widthLimit: width)
                guard channels == width else { throw PresetError(path: a.path, "\(what) has \(width) channels and its chain ends with \(channels)") }
                try addMeter(key: a.id, registry: registry, base: base, channels: width, segment: auxSegment(k), sampleRate: fs)
                busWidths[a.id] = width
                if let tap = registry?.busTaps[a.id] { add(BusTapKernel(tap: tap), key: "tap:\(a.id)", base: base, channels: width, segment: auxSegment(k)) }
                if a.destination == .master {
                    try fit(width, from: what, into: masterWidth, "the master bus", hint: "the master", at: a.path)
                    junctions.append(Junction(segment: auxSegment(k), source: auxSegment(k), target: masterSegment,
                                              mixKey: "mix:\(a.id)", delayKey: "delay:\(a.id)", base: base, width: width))
                    add(MixKernel(to: masterBase, count: width, gain: a.mute ? 0 : Float(a.volume), sampleRate: fs,
                                  motion: motion("mix:\(a.id)", a.mute ? 0 : Double(Float(a.volume)), registry)), key: "mix:\(a.id)", base: base, channels: width, segment: auxSegment(k))
                }
                finishedBuses?[a.id] = base
            }
            // The master volume's motion exists before the chain: a `loudnessCompensation` node there follows it.
            let masterMotion = motion("master:volume", graph.master.volume, registry)
            let channels = try addChain(graph.master.chain, base: masterBase, channels: masterWidth, keyPrefix: "master/", segment: masterSegment, format: format,
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
            // aligned with the master's output: every path meets in the outputs' pseudo-segment,
            // the master's through an alignment mark a delay can go before.
            let separate = graph.auxes.enumerated().filter { $0.element.destination == .outputs }
            if !separate.isEmpty {
                let outputsSegment = masterSegment + 1
                junctions.append(Junction(segment: masterSegment, source: masterSegment, target: outputsSegment, mixKey: "align:master", delayKey: "delay:master",
                                          base: masterBase, width: channels))
                add(AlignmentMark(), key: "align:master", base: masterBase, channels: channels, segment: masterSegment)
                var names = chainNames ?? (channels == 2 ? ["\(graph.master.id) L", "\(graph.master.id) R"] : (1...channels).map { "\(graph.master.id) \($0)" })
                var out = masterBase + channels
                for (k, a) in separate {
                    let key = "mix:\(a.id)", width = auxWidths[k]
                    add(ClearKernel(count: width), key: "clear:out:\(a.id)", base: out, channels: width, segment: auxSegment(k))
                    junctions.append(Junction(segment: auxSegment(k), source: auxSegment(k), target: outputsSegment, mixKey: key, delayKey: "delay:\(a.id)",
                                              base: auxBases[k], width: width))
                    add(MixKernel(to: out, count: width, gain: a.mute ? 0 : Float(a.volume), sampleRate: fs,
                                  motion: motion(key, a.mute ? 0 : Double(Float(a.volume)), registry)), key: key, base: auxBases[k], channels: width, segment: auxSegment(k))
                    names += width == 2 ? ["\(a.id) L", "\(a.id) R"] : (1...width).map { "\(a.id) \($0)" }
                    out += width
                }
                outputSegment = outputsSegment
                outputChannelCount = out - masterBase
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
    /// `widthLimit`: the most channels the chain may carry (a graph's channel, group and aux
    /// buses are laid out one after another, each as wide as it is).
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
