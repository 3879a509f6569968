import Atomics
import Foundation

/// The gain reduction of a dynamics node (`compressor`, `deesser`, `limiter`), shared by every
/// plan that renders the node, like a meter's measurement: the render thread stores the deepest
/// reduction of each block and of the whole run; the control side reads both (`status`,
/// `meters`, `--meters`, a render's summary). Two relaxed atomics, one writer.
public final class GainReductionState: @unchecked Sendable {
    let latest: UnsafeAtomic<UInt64>
    let deepest: UnsafeAtomic<UInt64>

    init() { latest = .create(0); deepest = .create(0) }
    deinit { latest.destroy(); deepest.destroy() }

    /// The deepest reduction in the latest block, dB (0: none, positive: reducing).
    public var currentDB: Double { Double(bitPattern: latest.load(ordering: .relaxed)) }
    /// The deepest reduction since the node started, dB.
    public var maximumDB: Double { Double(bitPattern: deepest.load(ordering: .relaxed)) }

    /// The render thread's handle: the two atomics, no reference to this object.
    var recorder: GainReductionRecorder { GainReductionRecorder(latest: latest, deepest: deepest) }

    /// `{"gainReductionDB": current, "maxGainReductionDB": deepest}`, rounded to 0.01 dB.
    public var json: JSONValue {
        .object(["gainReductionDB": .number((currentDB * 100).rounded() / 100), "maxGainReductionDB": .number((maximumDB * 100).rounded() / 100)])
    }
}

/// Stores a block's deepest gain reduction (render thread; no allocation, no lock).
struct GainReductionRecorder {
    let latest: UnsafeAtomic<UInt64>
    let deepest: UnsafeAtomic<UInt64>

    /// Records a block whose smallest gain was `lowestGainDB` (≤ 0).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func record(lowestGainDB: Double) {
        let reduction = lowestGainDB.isFinite ? max(0, -lowestGainDB) : 0
        latest.store(reduction.bitPattern, ordering: .relaxed)
        if reduction > Double(bitPattern: deepest.load(ordering: .relaxed)) { deepest.store(reduction.bitPattern, ordering: .relaxed) }
    }
}

extension NodeLowering {
    /// The node's shared gain-reduction state (kept across plans by its key).
    mutating func gainReductionState() throws(PresetError) -> GainReductionState {
        let state = try registry?.state(GainReductionState.self, key: key, reuse: { _ in true }, make: { GainReductionState() }) ?? GainReductionState()
        retain(state)
        return state
    }
}
