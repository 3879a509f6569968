import Foundation

/// The per-frame linear gains a dynamics kernel keeps for its last block, one row per channel
/// (`stride` apart): what its gain-reduction reading is taken from.
enum GainRows {
    /// The smallest gain in the first `frameCount` frames of `rows` rows, in dB (0 for an empty
    /// block; gains at or below 1e-10 read −200 dB). Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    static func lowestDB(_ gains: UnsafePointer<Float>, rows: Int, stride: Int, frameCount: Int) -> Double {
        guard frameCount > 0 else { return 0 }
        var lowest: Float = .greatestFiniteMagnitude
        for c in 0..<rows { let g = gains + c * stride; for i in 0..<frameCount { lowest = min(lowest, g[i]) } }
        return 20 * _unsafePerformance { log10(Double(max(lowest, 1e-10))) }
    }
}
