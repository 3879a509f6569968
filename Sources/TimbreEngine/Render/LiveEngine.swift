import Atomics
import Foundation
import TimbreDSP

/// The control-thread side of live rendering: owns the preset document and every compiled
/// plan, publishes new plans to the audio thread with one atomic exchange and frees the ones
/// it hands back.
///
/// Every edit — a parameter, a bypass, an inserted or removed node, a whole new preset — is a
/// new JSON document (edited by `TimbreControl`'s `PresetDocumentEditor`), decoded with the same strict decoder as files, compiles a new
/// ``RenderPlan`` (all allocation and filter design happen here) and publishes it. The audio
/// thread switches between blocks and crossfades over ``crossfadeSeconds``; the new plan
/// continues the old one's filter memories and gain/pan ramps where node ids match, so a
/// batch of changes (a whole EQ) lands at once and nothing clicks.
public final class LiveEngine: @unchecked Sendable {
    /// Length of the crossfade between plans.
    public static let crossfadeSeconds = 0.015

    public internal(set) var document: JSONValue
    public internal(set) var preset: Preset
    public private(set) var sampleRate: Double
    public let inputChannelCount: Int
    /// The channels the host takes (``RealtimeRenderer/render(input:output:frameCount:)``'s
    /// `output`): as asked, or the first plan's outputs (at least two: a mono chain feeds both
    /// sides of a stereo system). A plan with fewer repeats its last channel; one with more is
    /// cut to these.
    public let outputChannelCount: Int
    public let maxBlockFrames: Int
    /// The most recently published plan.
    public private(set) var plan: RenderPlan

    let shared: UnsafeMutablePointer<SharedRenderState>
    var alive: [UnsafeMutableRawPointer: RenderPlan] = [:]
    /// Meter, loudness, spectrum, pitch, player and plugin states shared by the plans that
    /// continue them, with the host's services.
    let registry: NodeStateRegistry

    /// The audio thread's handle.
    public var renderer: RealtimeRenderer { RealtimeRenderer(shared: shared) }

    /// Compiles `document` (preset JSON) for a live stream. `host`: how `player` channels get
    /// their streams and `plugin` nodes load (without them such presets are refused).
    /// `outputChannelCount`: nil for the preset's own (a crossover's bands, a graph's outputs), at least two.
    public convenience init(document: JSONValue, sampleRate: Double, inputChannelCount: Int, outputChannelCount: Int? = nil,
                            maxBlockFrames: Int = 8192, host: HostServices = .none) throws(PresetError) {
        try self.init(preset: try PresetDecoder.decode(document), document: document, sampleRate: sampleRate,
                      inputChannelCount: inputChannelCount, outputChannelCount: outputChannelCount, maxBlockFrames: maxBlockFrames, host: host)
    }

    /// Compiles a preset built in code for a live stream (see ``init(document:sampleRate:inputChannelCount:outputChannelCount:maxBlockFrames:host:)``).
    /// The preset becomes the engine's document (``PresetEncoder``) and is checked by the same
    /// strict decoder as a file, so a value out of range is an error naming its JSON path.
    public convenience init(preset: Preset, sampleRate: Double, inputChannelCount: Int, outputChannelCount: Int? = nil,
                            maxBlockFrames: Int = 8192, host: HostServices = .none) throws(PresetError) {
        try self.init(document: PresetEncoder.encode(preset), sampleRate: sampleRate, inputChannelCount: inputChannelCount,
                      outputChannelCount: outputChannelCount, maxBlockFrames: maxBlockFrames, host: host)
    }

    init(preset: Preset, document: JSONValue, sampleRate: Double, inputChannelCount: Int, outputChannelCount requested: Int?,
         maxBlockFrames: Int, host: HostServices) throws(PresetError) {
        precondition(inputChannelCount >= 1 && (requested ?? 1) >= 1)
        let registry = NodeStateRegistry(services: host)
        registry.outputMeterKey = "master"
        registry.movesParameters = true
        self.registry = registry
        let plan = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: inputChannelCount, maxBlockFrames: maxBlockFrames),
                                  registry: registry)
        let outputChannelCount = requested ?? max(2, plan.outputChannelCount)
        self.document = document
        self.preset = preset
        self.sampleRate = sampleRate
        self.inputChannelCount = inputChannelCount
        self.outputChannelCount = outputChannelCount
        self.maxBlockFrames = maxBlockFrames
        self.plan = plan
        // A plan outputs as many channels as it takes in, or 2 after a pan or for a graph.
        let scratchChannels = max(2, inputChannelCount, outputChannelCount)
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 2 * scratchChannels * maxBlockFrames)
        storage.initialize(repeating: 0, count: 2 * scratchChannels * maxBlockFrames)
        let newOut = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: scratchChannels)
        let oldOut = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: scratchChannels)
        for c in 0..<scratchChannels {
            newOut[c] = storage + c * maxBlockFrames
            oldOut[c] = storage + (scratchChannels + c) * maxBlockFrames
        }
        let retiredCount = 8
        let retired = UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>>.allocate(capacity: retiredCount)
        for k in 0..<retiredCount { (retired + k).initialize(to: .create(nil)) }
        shared = .allocate(capacity: 1)
        shared.initialize(to: SharedRenderState(
            pending: .create(nil), retired: retired, retiredCount: retiredCount, live: .create(nil),
            blocksRendered: .create(0), framesRendered: .create(0), nonFiniteBlocks: .create(0),
            current: nil, fading: nil, fadePosition: 0,
            fadeFrames: max(1, Int(Self.crossfadeSeconds * sampleRate)),
            inputChannelCount: inputChannelCount, outputChannelCount: outputChannelCount, maxBlockFrames: maxBlockFrames,
            shiftedInput: .allocate(capacity: inputChannelCount),
            scratchChannels: scratchChannels, newOut: newOut, oldOut: oldOut, storage: storage))
        // The first plan is current from the start (no fade from silence).
        let raw = UnsafeMutableRawPointer(plan.core)
        alive[raw] = plan
        shared.pointee.current = plan.core
        shared.pointee.live.store(raw, ordering: .releasing)
    }

    /// Frees everything. The audio thread must have stopped calling `render`.
    deinit {
        let s = shared.pointee
        s.pending.destroy(); s.live.destroy(); s.blocksRendered.destroy(); s.framesRendered.destroy(); s.nonFiniteBlocks.destroy()
        for k in 0..<s.retiredCount { s.retired[k].destroy() }
        s.retired.deallocate()
        s.shiftedInput.deallocate()
        s.newOut.deallocate(); s.oldOut.deallocate(); s.storage.deallocate()
        shared.deinitialize(count: 1)
        shared.deallocate()
        alive.removeAll()
    }

    /// Renders a block of silence through the current plan so first-use costs (generic
    /// metadata, page faults) are paid before the first real-time call. Call before activating.
    public func warmUp() {
        let frames = min(maxBlockFrames, 256)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * (inputChannelCount + outputChannelCount))
        buffer.initialize(repeating: 0, count: frames * (inputChannelCount + outputChannelCount))
        defer { buffer.deallocate() }
        let ins = (0..<inputChannelCount).map { UnsafePointer(buffer + $0 * frames) }
        let outs = (0..<outputChannelCount).map { buffer + (inputChannelCount + $0) * frames }
        ins.withUnsafeBufferPointer { i in outs.withUnsafeBufferPointer { o in
            renderer.render(input: i.baseAddress!, output: o.baseAddress!, frameCount: frames)
        } }
        plan.reset()
        // Players start from their first frame (the audio thread is not running yet).
        for (_, state) in plan.playerStates { state.rewindAfterWarmUp() }
    }

    // MARK: Edits

    /// Replaces the whole preset (or applies an edited document: `TimbreControl`'s editor
    /// produces one per `set`, `bypass`, `insert`, `remove`). Decoded with the strict decoder;
    /// on error nothing changes.
    public func load(document newDocument: JSONValue) throws(PresetError) {
        let p = try PresetDecoder.decode(newDocument)
        try publish(p, document: newDocument)
    }

    /// Replaces the whole preset with one built in code: compiled on this thread, then swapped in
    /// at the next block with a crossfade, continuing the state of nodes that keep their ids
    /// (as ``load(document:)``). On error nothing changes.
    public func load(_ preset: Preset) throws(PresetError) { try load(document: PresetEncoder.encode(preset)) }

    /// Recompiles for a new sample rate (JACK's sample-rate callback).
    public func setSampleRate(_ rate: Double) throws(PresetError) {
        sampleRate = rate
        try publish(preset, document: document)
    }

    func publish(_ newPreset: Preset, document newDocument: JSONValue) throws(PresetError) {
        collectRetired()
        let livePlan = shared.pointee.live.load(ordering: .acquiring).flatMap { alive[$0] } ?? plan
        let next = try RenderPlan(preset: newPreset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: inputChannelCount, maxBlockFrames: maxBlockFrames),
                                  continuing: livePlan, registry: registry)
        let raw = UnsafeMutableRawPointer(next.core)
        alive[raw] = next
        if let unconsumed = shared.pointee.pending.exchange(raw, ordering: .acquiringAndReleasing) {
            alive[unconsumed] = nil  // published but never rendered
        }
        plan = next
        preset = newPreset
        document = newDocument
    }

    // MARK: Takes of a bus

    /// Starts copying the bus of channel or group `id` — after its chain and pan, before its
    /// volume and mix — into `tap`, from the next plan on (a plan swap, so the audio thread never
    /// waits). Throws when the preset is not a graph or has no such channel or group.
    package func setBusTap(_ tap: RecordingTap, bus id: String) throws(PresetError) {
        guard case .graph(let graph) = preset.form else {
            throw PresetError(path: "graph", "recording a channel or group needs a graph preset (channels, groups, master)")
        }
        let ids = graph.channels.map(\.id) + graph.groups.map(\.id)
        guard ids.contains(id) else {
            throw PresetError(path: "graph", "no channel or group \"\(id)\" (here: \(ids.map { "\"\($0)\"" }.joined(separator: ", ")))")
        }
        registry.busTaps[id] = tap
        do { try publish(preset, document: document) } catch {
            registry.busTaps[id] = nil
            throw error
        }
    }

    /// Stops the take of bus `id`: publishes a plan without its tap, then waits (up to
    /// `timeout` seconds, freeing handed-back plans) until the audio thread holds no plan that
    /// has it. Returns true when the tap's memory may be freed; false if the audio thread did
    /// not let go in time (it stopped running): then the tap must be kept.
    public func removeBusTap(bus id: String, timeout: Double = 2) -> Bool {
        guard registry.busTaps.removeValue(forKey: id) != nil else { return true }
        guard (try? publish(preset, document: document)) != nil else { return false }
        let current = UnsafeMutableRawPointer(plan.core)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            collectRetired()
            if alive.keys.allSatisfy({ $0 == current }) { return true }
            usleep(2_000)
        }
        return false
    }

    /// Where `fuseNewcomersWhenFaded()` stands: the frame count at which the audio thread was
    /// first seen on a plan with unfused newcomers.
    var newcomersAdoptedAt: Int?

    /// Part of ``collectRetired()``, which every host calls from its control loop. A filter
    /// inserted into a running plan is compiled on its own so it can fade in (30 ms) from
    /// silence; once the audio thread has adopted that plan and the fade and crossfade are over
    /// (counted in rendered frames), this compiles the same document again, continuing the live
    /// plan: the newcomer now has memory to continue, so it fuses with its neighbours, nothing
    /// fades, and the live plan equals a fresh compile of its document sample for sample (what
    /// `timbre render` would do). Returns true when it published such a plan.
    @discardableResult
    func fuseNewcomersWhenFaded() -> Bool {
        guard plan.hasUnfusedNewcomers else { newcomersAdoptedAt = nil; return false }
        guard isSettled else { return false }
        let rendered = framesRendered
        guard let since = newcomersAdoptedAt else { newcomersAdoptedAt = rendered; return false }
        // Fade-in and crossfade, plus 1024 frames for the adoption seen up to a period late.
        guard rendered - since >= Int((0.03 + Self.crossfadeSeconds) * sampleRate) + 1024 else { return false }
        newcomersAdoptedAt = nil
        do { try publish(preset, document: document) } catch { return false }
        return true
    }

    /// What one ``performHousekeeping()`` did.
    public struct Housekeeping: Sendable, Equatable {
        /// Plans the audio thread had handed back, now freed.
        public var freedPlans: Int
        /// True when a plan fusing filters inserted live was published (`fuseNewcomersWhenFaded()`).
        public var publishedFusedPlan: Bool
    }

    /// The control thread's housekeeping, for every host's control loop (a few times a second
    /// or more): frees the plans the audio thread has handed back (``collectRetired()``) and,
    /// once filters inserted live have faded in, publishes the plan that fuses them with their
    /// neighbours (`fuseNewcomersWhenFaded()`).
    @discardableResult
    public func performHousekeeping() -> Housekeeping {
        let freed = collectRetired()
        return Housekeeping(freedPlans: freed, publishedFusedPlan: fuseNewcomersWhenFaded())
    }

    /// Frees the plans the audio thread has handed back, and nothing else. Returns how many.
    @discardableResult
    public func collectRetired() -> Int {
        var freed = 0
        for k in 0..<shared.pointee.retiredCount {
            if let raw = shared.pointee.retired[k].exchange(nil, ordering: .acquiring) {
                alive[raw] = nil
                freed += 1
            }
        }
        if freed > 0 {
            registry.prune(keeping: Set(alive.values.flatMap { $0.retained.map(\.key) }))
        }
        return freed
    }

    /// Frames of latency the plan adds (its `pitch` nodes on the longest path; computed from
    /// the plan, so hosts report it through JACK's latency callback).
    public var latencyFrames: Int { plan.latencyFrames }

    /// The streams of the `player` channels of every plan alive, by key (`player:<channel id>`).
    public var playerStates: [String: PlayerState] { registry.states(of: PlayerState.self) }
    /// The `plugin` nodes of the plans alive, by node key.
    public var pluginStates: [String: PluginState] { registry.states(of: PluginState.self) }
    /// The worker counts of the convolution nodes (`convolver`, `fir`, a linear-phase `eq`)
    /// by node key: level runs computed by workers, and runs late for their deadline.
    public var convolutionCounters: [String: ConvolutionCounters] { registry.convolutionCounters }

    /// The newest readings of the `meter`, `loudness` and `spectrum` nodes of the most recent
    /// plan, by node key: read from wait-free snapshots the audio thread publishes, from any
    /// thread but the audio thread.
    public var readings: [String: AnalysisReading] { plan.readings }

    /// ``readings`` as JSON (what `timbre live`'s `meters` command prints).
    public var meters: JSONValue { plan.meters }

    /// Plans alive on the control side (current, fading, pending, not yet collected).
    public var alivePlanCount: Int { alive.count }
    public var blocksRendered: Int { shared.pointee.blocksRendered.load(ordering: .relaxed) }
    public var framesRendered: Int { shared.pointee.framesRendered.load(ordering: .relaxed) }
    /// Blocks the render output as silence because NaN or infinity reached its output (the
    /// filters holding them were cleared). Counted once per host block.
    public var nonFiniteBlocks: Int { shared.pointee.nonFiniteBlocks.load(ordering: .relaxed) }
    /// True once the audio thread has switched to the most recently published plan.
    public var isSettled: Bool {
        shared.pointee.pending.load(ordering: .acquiring) == nil
            && shared.pointee.live.load(ordering: .acquiring) == UnsafeMutableRawPointer(plan.core)
    }
}
