import Foundation

/// The static curves of the `distortion` node: the input (already multiplied by the drive)
/// to the output, each passing 0 through 0 with slope 1 and bounded by 1.
public enum WaveshaperCurve: String, Sendable, CaseIterable, Codable {
    /// tanh(x) (to 2·10⁻⁷, ``tanhApproximation(_:)->Double``): the smooth, symmetric saturation of a
    /// transistor stage (odd harmonics).
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
    /// tanh(0.3), written out (a literal: nothing is initialised lazily on the audio thread).
    static let tanhBias = 0.2913126124515909

    /// tanh(x) to within 2·10⁻⁷ (Float's precision; the curves' outputs are Float): the
    /// rational minimax fit Eigen uses for its vectorised tanh (x·P(x²)/Q(x²), degrees 13 and
    /// 6, saturating past |x| = 7.9) — no libm call, so the oversampled shaper's 16 curves a
    /// stereo frame cost a few multiplies each instead of a library call.
    @inline(__always)
    public static func tanhApproximation(_ x: Double) -> Double {
        let c = min(7.90531110763549805, max(-7.90531110763549805, x)), x2 = c * c
        var p = -2.76076847742355e-16
        p = p * x2 + 2.00018790482477e-13
        p = p * x2 - 8.60467152213735e-11
        p = p * x2 + 5.12229709037114e-08
        p = p * x2 + 1.48572235717979e-05
        p = p * x2 + 6.37261928875436e-04
        p = p * x2 + 4.89352455891786e-03
        var q = 1.19825839466702e-06
        q = q * x2 + 1.18534705686654e-04
        q = q * x2 + 2.26843463243900e-03
        q = q * x2 + 4.89352518554385e-03
        return c * p / q
    }

    /// ``tanhApproximation(_:)->Double`` on two lanes at once, for kernels that run two channels side
    /// by side (the ladder): the same fit evaluated by Estrin's scheme, so its loop waits on a
    /// shorter chain of multiplies (the result differs from the scalar's in the last bits).
    @inline(__always)
    public static func tanhApproximation(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let limit = SIMD2<Double>(repeating: 7.90531110763549805)
        let c = x.clamped(lowerBound: -limit, upperBound: limit), x2 = c * c, x4 = x2 * x2
        // The same polynomials by Estrin's scheme (pairs, then pairs of pairs): a shorter
        // chain of dependent multiplies than Horner's, for kernels whose loop waits on it.
        // P(y) = (c0 + c1 y) + y²(c2 + c3 y) + y⁴(c4 + y(c5 + c6 y)), y = x².
        let low = x2 * 6.37261928875436e-04 + 4.89352455891786e-03
        let middle = x2 * 5.12229709037114e-08 + 1.48572235717979e-05
        let high = (x2 * -2.76076847742355e-16 + 2.00018790482477e-13) * x2 - 8.60467152213735e-11
        let p = high * (x4 * x4) + middle * x4 + low
        let q32 = x2 * 1.19825839466702e-06 + 1.18534705686654e-04
        let q10 = x2 * 2.26843463243900e-03 + 4.89352518554385e-03
        let q = q32 * x4 + q10
        return c * p / q
    }

    /// The curve at `x`.
    @inline(__always)
    public func value(_ x: Double) -> Double {
        switch self {
        case .soft: return Self.tanhApproximation(x)
        case .hard: return min(1, max(-1, x))
        case .tube:
            let t = Self.tanhBias
            return min(1, max(-1, (Self.tanhApproximation(x + Self.tubeBias) - t) / (1 - t * t)))
        case .foldback:
            // A triangle of period 4 through (0, 0) with slope 1: x for |x| ≤ 1, 2 − x up to 3, …
            var p = (x + 1) / 4
            p = p.magnitude < 0x1p52 ? p : 0  // (non-finite or beyond every fold: no trap)
            p -= Double(Int(p)) - (p < 0 ? 1 : 0)  // the fractional part, 0 ≤ p < 1
            return p < 0.5 ? 4 * p - 1 : 3 - 4 * p
        }
    }
}
