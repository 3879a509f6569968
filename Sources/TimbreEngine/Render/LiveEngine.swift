import Atomics
import Foundation
import TimbreDSP

/// A live edit that could not be applied; the running graph is kept.
public struct ControlError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The control-thread side of live rendering: owns the preset document and every compiled
/// plan, publishes new plans to the audio thread with one atomic exchange and frees the ones
/// it hands back.
///
/// Every edit — a parameter, a bypass, an inserted or removed node, a whole new preset — edits
/// the JSON document, decodes it with the same strict decoder as files, compiles a new
/// ``RenderPlan`` (all allocation and filter design happen here) and publishes it. The audio
/// thread switches between blocks and crossfades over ``crossfadeSeconds``; the new plan
/// continues the old one's filter memories and gain/pan ramps where node ids match, so a
/// batch of changes (a whole EQ) lands at once and nothing clicks.
public final class LiveEngine: @unchecked Sendable {
    /// Length of the crossfade between plans.
    public static let crossfadeSeconds = 0.015

    public private(set) var document: JSONValue
    public private(set) var preset: Preset
    public private(set) var sampleRate: Double
    public let inputChannelCount: Int
    public let outputChannelCount: Int
    public let maxBlockFrames: Int
    /// The most recently published plan.
    public private(set) var plan: RenderPlan

    let shared: UnsafeMutablePointer<SharedRenderState>
    var alive: [UnsafeMutableRawPointer: RenderPlan] = [:]

    /// The audio thread's handle.
    public var renderer: RealtimeRenderer { RealtimeRenderer(shared: shared) }

    public init(document: JSONValue, sampleRate: Double, inputChannelCount: Int, outputChannelCount: Int,
                maxBlockFrames: Int = 8192) throws(PresetError) {
        precondition(inputChannelCount >= 1 && outputChannelCount >= 1)
        let preset = try PresetDecoder.decode(document)
        let plan = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: inputChannelCount, maxBlockFrames: maxBlockFrames))
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
            blocksRendered: .create(0), framesRendered: .create(0),
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
        s.pending.destroy(); s.live.destroy(); s.blocksRendered.destroy(); s.framesRendered.destroy()
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
    }

    // MARK: Edits

    /// Replaces the whole preset.
    public func load(document newDocument: JSONValue) throws(PresetError) {
        let p = try PresetDecoder.decode(newDocument)
        try publish(p, document: newDocument)
    }

    /// Sets a parameter: `address` is `<id>.<param>` for any object with an `id` (a chain
    /// node, a graph channel or group) or `chain[i].<param>`, e.g. `presence.gain`,
    /// `eq.bands[3].frequency`, `vocals.volume`, `drums.mute`. Validated like a preset file.
    public func set(_ address: String, _ value: Double) throws(ControlError) {
        let (target, rest) = try resolve(address)
        guard let relative = JSONValue.parsePath(rest) else { throw ControlError("\(address): malformed parameter path") }
        var doc = document
        // `eq` without `bands` means ten default bands: materialise them before editing one.
        if case .key("bands") = relative.first, doc.value(at: (target + [.key("bands")])[...]) == nil,
           case .string("eq") = doc.value(at: (target + [.key("type")])[...]) {
            let defaults = JSONValue.array(EQBand.defaultCentersHz.map { .object(["frequency": .number($0)]) })
            if let d = doc.setting((target + [.key("bands")])[...], to: defaults) { doc = d }
        }
        // mute/solo/bypass are booleans: 0 is false, anything else true.
        let newValue: JSONValue
        if relative.count == 1, case .key(let k) = relative[0], ["mute", "solo", "bypass"].contains(k) {
            newValue = .bool(value != 0)
        } else {
            newValue = .number(value)
        }
        guard let edited = doc.setting((target + relative)[...], to: newValue) else {
            throw ControlError("\(address): no such parameter in this preset")
        }
        try apply(edited)
    }

    /// Bypasses (or restores) a node by id.
    public func bypass(_ node: String, _ on: Bool) throws(ControlError) {
        let (target, _) = try resolve(node + ".bypass")
        guard let edited = document.setting((target + [.key("bypass")])[...], to: .bool(on)) else {
            throw ControlError("\(node): cannot bypass")
        }
        try apply(edited)
    }

    /// Inserts a node (its JSON object) at `position` in the chain.
    public func insert(_ node: JSONValue, at position: Int) throws(ControlError) {
        guard case .object(var top) = document, case .array(var chain)? = top["chain"] else { throw ControlError("preset has no chain") }
        guard (0...chain.count).contains(position) else { throw ControlError("position \(position) is outside 0…\(chain.count)") }
        chain.insert(node, at: position)
        top["chain"] = .array(chain)
        try apply(.object(top))
    }

    /// Removes the node with this id (from whichever chain holds it).
    public func remove(_ node: String) throws(ControlError) {
        let (target, _) = try resolve(node + ".x")
        guard let edited = document.removing(target[...]) else { throw ControlError("\(node) is not a chain node") }
        try apply(edited)
    }

    /// Recompiles for a new sample rate (JACK's sample-rate callback).
    public func setSampleRate(_ rate: Double) throws(PresetError) {
        sampleRate = rate
        try publish(preset, document: document)
    }

    func apply(_ edited: JSONValue) throws(ControlError) {
        do {
            let p = try PresetDecoder.decode(edited)
            try publish(p, document: edited)
        } catch {
            throw ControlError(error.description)
        }
    }

    /// Splits `<id>.<rest>` and finds the object with that id (or `chain[i]`).
    func resolve(_ address: String) throws(ControlError) -> ([JSONValue.PathComponent], String) {
        guard let dot = address.firstIndex(of: ".") else { throw ControlError("\(address): expected <node>.<parameter>") }
        let node = String(address[..<dot]), rest = String(address[address.index(after: dot)...])
        if node.hasPrefix("chain["), node.hasSuffix("]"), let i = Int(node.dropFirst(6).dropLast()), i >= 0, i < preset.chain.count {
            return ([.key("chain"), .index(i)], rest)
        }
        guard let path = document.pathOfObject(withID: node) else {
            let ids = preset.allNodes.compactMap(\.id) + (preset.graph.map { $0.channels.map(\.id) + $0.groups.map(\.id) } ?? [])
            throw ControlError("no node with id \"\(node)\" (ids: \(ids.isEmpty ? "none" : ids.joined(separator: ", ")))")
        }
        return (path, rest)
    }

    func publish(_ newPreset: Preset, document newDocument: JSONValue) throws(PresetError) {
        collectRetired()
        let livePlan = shared.pointee.live.load(ordering: .acquiring).flatMap { alive[$0] } ?? plan
        let next = try RenderPlan(preset: newPreset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: inputChannelCount, maxBlockFrames: maxBlockFrames),
                                  continuing: livePlan)
        let raw = UnsafeMutableRawPointer(next.core)
        alive[raw] = next
        if let unconsumed = shared.pointee.pending.exchange(raw, ordering: .acquiringAndReleasing) {
            alive[unconsumed] = nil  // published but never rendered
        }
        plan = next
        preset = newPreset
        document = newDocument
    }

    /// Frees plans the audio thread has handed back. Returns how many.
    @discardableResult
    public func collectRetired() -> Int {
        var freed = 0
        for k in 0..<shared.pointee.retiredCount {
            if let raw = shared.pointee.retired[k].exchange(nil, ordering: .acquiring) {
                alive[raw] = nil
                freed += 1
            }
        }
        return freed
    }

    /// Plans alive on the control side (current, fading, pending, not yet collected).
    public var alivePlanCount: Int { alive.count }
    public var blocksRendered: Int { shared.pointee.blocksRendered.load(ordering: .relaxed) }
    public var framesRendered: Int { shared.pointee.framesRendered.load(ordering: .relaxed) }
    /// True once the audio thread has switched to the most recently published plan.
    public var isSettled: Bool {
        shared.pointee.pending.load(ordering: .acquiring) == nil
            && shared.pointee.live.load(ordering: .acquiring) == UnsafeMutableRawPointer(plan.core)
    }
}
