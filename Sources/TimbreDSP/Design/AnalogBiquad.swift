import Foundation

/// A second-order analog prototype in the normalised variable `s / ω0`:
///
/// ```
///          n2 s^2 + n1 s + n0
/// H(s) = ----------------------
///          d2 s^2 + d1 s + d0
/// ```
///
/// The prototypes are those of the RBJ Audio EQ Cookbook (R. Bristow-Johnson), which the
/// digital designs approximate: the bilinear design exactly at `ω0` with warping elsewhere,
/// the matched design closely across the whole band.
public struct AnalogBiquad: Sendable, Equatable {
    public var n0, n1, n2: Double
    public var d0, d1, d2: Double

    public init(n0: Double, n1: Double, n2: Double, d0: Double, d1: Double, d2: Double) {
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.d0 = d0; self.d1 = d1; self.d2 = d2
    }

    /// |H(jx)|² at the normalised frequency `x = ω / ω0`.
    public func magnitudeSquared(normalizedFrequency x: Double) -> Double {
        let x2 = x * x
        let nr = n0 - n2 * x2, ni = n1 * x
        let dr = d0 - d2 * x2, di = d1 * x
        return (nr * nr + ni * ni) / (dr * dr + di * di)
    }

    /// The width of the prototype's feature relative to ω0: 1/Q for a bell (the geometric mean
    /// of its numerator's and denominator's s-terms), the poles' 2ζ otherwise; within 0.01…1.
    var relativeBandwidth: Double {
        let bell = (n1 * d1).squareRoot() / max((n2 * d2).squareRoot(), 1e-12)
        let poles = d1 / max((d0 * d2).squareRoot(), 1e-12)
        return min(1, max(0.01, n1 > 0 && n2 > 0 ? bell : poles))
    }

    /// A bell: unit gain at DC and far above (n0 = d0, n2 = d2), a feature around ω0 between.
    var isBell: Bool { n0 == d0 && n2 == d2 && n1 != d1 }

    /// Natural frequency (relative to ω0) and damping ratio of the poles.
    public var poles: (naturalFrequency: Double, damping: Double) {
        let w2 = d0 / d2
        let w = w2.squareRoot()
        return (w, (d1 / d2) / (2 * w))
    }

    // MARK: Prototypes (RBJ Audio EQ Cookbook, analog forms)

    /// Low-pass `1 / (s² + s/Q + 1)`.
    public static func lowPass(q: Double) -> AnalogBiquad {
        AnalogBiquad(n0: 1, n1: 0, n2: 0, d0: 1, d1: 1 / q, d2: 1)
    }
    /// High-pass `s² / (s² + s/Q + 1)`.
    public static func highPass(q: Double) -> AnalogBiquad {
        AnalogBiquad(n0: 0, n1: 0, n2: 1, d0: 1, d1: 1 / q, d2: 1)
    }
    /// Peaking `(s² + s A/Q + 1) / (s² + s/(A Q) + 1)`, `A = 10^(gainDB/40)`; gain at ω0 is `A²`.
    public static func peak(gainDB: Double, q: Double) -> AnalogBiquad {
        let a = pow(10, gainDB / 40)
        return AnalogBiquad(n0: 1, n1: a / q, n2: 1, d0: 1, d1: 1 / (a * q), d2: 1)
    }
    /// Low shelf `A (s² + (√A/Q) s + A) / (A s² + (√A/Q) s + 1)`.
    public static func lowShelf(gainDB: Double, q: Double) -> AnalogBiquad {
        let a = pow(10, gainDB / 40), sa = a.squareRoot()
        return AnalogBiquad(n0: a * a, n1: a * sa / q, n2: a, d0: 1, d1: sa / q, d2: a)
    }
    /// High shelf `A (A s² + (√A/Q) s + 1) / (s² + (√A/Q) s + A)`.
    public static func highShelf(gainDB: Double, q: Double) -> AnalogBiquad {
        let a = pow(10, gainDB / 40), sa = a.squareRoot()
        return AnalogBiquad(n0: a, n1: a * sa / q, n2: a * a, d0: a, d1: sa / q, d2: 1)
    }
    /// Notch `(s² + 1) / (s² + s/Q + 1)`.
    public static func notch(q: Double) -> AnalogBiquad {
        AnalogBiquad(n0: 1, n1: 0, n2: 1, d0: 1, d1: 1 / q, d2: 1)
    }
    /// Band-pass with 0 dB peak `(s/Q) / (s² + s/Q + 1)`.
    public static func bandPass(q: Double) -> AnalogBiquad {
        AnalogBiquad(n0: 0, n1: 1 / q, n2: 0, d0: 1, d1: 1 / q, d2: 1)
    }
    /// All-pass `(s² − s/Q + 1) / (s² + s/Q + 1)`.
    public static func allPass(q: Double) -> AnalogBiquad {
        AnalogBiquad(n0: 1, n1: -1 / q, n2: 1, d0: 1, d1: 1 / q, d2: 1)
    }
}
