import Foundation

/// The static curves of the `distortion` node: the input (already multiplied by the drive)
/// to the output, each passing 0 through 0 with slope 1 and bounded by 1.
public enum WaveshaperCurve: String, Sendable, CaseIterable, Codable {
    /// tanh(x): the smooth, symmetric saturation of a transistor stage (odd harmonics).
    case soft
    /// x clipped to ±1: a diode or an overloaded converter (odd harmonics, falling as 1/n).
    case hard
    /// (tanh(x + b) − tanh(b)) / (1 − tanh²(b)), b = 0.3, clipped to −1…1: a triode's
    /// asymmetric curve (even harmonics too; the output's DC is removed after it).
    case tube
    /// x folded back at ±1 again and again (x → 2 − x above 1): a wavefolder, bright and
    /// metallic.
    case foldback

    static let tubeBias = 0.3

    /// The curve at `x`.
    @inline(__always)
    public func value(_ x: Double) -> Double {
        switch self {
        case .soft: return _unsafePerformance { tanh(x) }
        case .hard: return min(1, max(-1, x))
        case .tube:
            let b = Self.tubeBias, t = _unsafePerformance { tanh(b) }
            return min(1, max(-1, (_unsafePerformance { tanh(x + b) } - t) / (1 - t * t)))
        case .foldback:
            // A triangle of period 4 through (0, 0) with slope 1: x for |x| ≤ 1, 2 − x up to 3, …
            var p = (x + 1) / 4
            p -= Double(Int(p)) - (p < 0 ? 1 : 0)  // the fractional part, 0 ≤ p < 1
            return p < 0.5 ? 4 * p - 1 : 3 - 4 * p
        }
    }
}
