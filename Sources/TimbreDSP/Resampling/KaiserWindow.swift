import Foundation

/// The Kaiser window and Kaiser's design formulas for windowed-sinc low-pass filters.
///
/// Source: J. F. Kaiser, "Nonrecursive digital filter design using the I0-sinh window
/// function" (1974), as given in Oppenheim & Schafer, *Discrete-Time Signal Processing*
/// (3rd ed.), §7.5.3: for a stopband attenuation of A dB,
/// β = 0.1102 (A − 8.7) when A > 50, and the length is M + 1 with M = (A − 8) / (2.285 Δω),
/// Δω the transition width in radians per sample.
package enum KaiserWindow {
    /// The zeroth-order modified Bessel function of the first kind, by its power series
    /// (converges for every argument used here, |x| < 40, to 1e-15 relative).
    package static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-16 * sum { term *= (x / (2 * k)) * (x / (2 * k)); sum += term; k += 1 }
        return sum
    }

    /// Kaiser's β for a stopband attenuation of `attenuationDB`.
    package static func beta(attenuationDB a: Double) -> Double {
        if a > 50 { return 0.1102 * (a - 8.7) }
        if a >= 21 { return 0.5842 * pow(a - 21, 0.4) + 0.07886 * (a - 21) }
        return 0
    }

    /// Filter length (taps, at least 1) for `attenuationDB` and a transition `width` in cycles per sample.
    package static func length(attenuationDB a: Double, transitionWidth width: Double) -> Int {
        Int(((a - 7.95) / (2.285 * 2 * Double.pi * width)).rounded(.up)) + 1
    }

    /// The window at `t` for a window spanning −`halfWidth`…`halfWidth` (0 outside), normalised to 1 at the centre.
    package static func value(at t: Double, halfWidth: Double, beta: Double) -> Double {
        let r = t / halfWidth
        guard abs(r) <= 1 else { return 0 }
        return besselI0(beta * (1 - r * r).squareRoot()) / besselI0(beta)
    }
}
