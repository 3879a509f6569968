import Foundation

/// Coefficients of one second-order section, normalised so that `a0 == 1`:
///
/// ```
///         b0 + b1 z^-1 + b2 z^-2
/// H(z) = ------------------------
///          1 + a1 z^-1 + a2 z^-2
/// ```
///
/// Designs compute these in `Double`; the kernels keep them in `Double` too, because
/// low cutoffs at high rates put poles within 1e-4 of z = 1, where `Float`
/// coefficients would move the response by decibels.
public struct BiquadCoefficients: Sendable, Equatable, Hashable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    /// Builds normalised coefficients from an un-normalised set (divides by `a0`).
    public init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.init(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    /// The identity section (passes the signal unchanged).
    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// True when the section is exactly the identity and may be skipped.
    public var isIdentity: Bool { self == .identity }

    /// The inverse section `1 / H(z)`. Only meaningful for minimum-phase sections
    /// (zeros inside the unit circle); the matched designs produce those.
    public var inverse: BiquadCoefficients {
        BiquadCoefficients(b0: 1, b1: a1, b2: a2, a0: b0, a1: b1, a2: b2)
    }

    /// Both poles strictly inside the unit circle (the stability triangle |a2| < 1, |a1| < 1 + a2).
    public var isStable: Bool { abs(a2) < 1 && abs(a1) < 1 + a2 }

    /// Complex response at `omega` radians per sample, as (real, imaginary).
    public func response(omega: Double) -> (re: Double, im: Double) {
        let c1 = cos(omega), s1 = -sin(omega)
        let c2 = cos(2 * omega), s2 = -sin(2 * omega)
        let nr = b0 + b1 * c1 + b2 * c2, ni = b1 * s1 + b2 * s2
        let dr = 1 + a1 * c1 + a2 * c2, di = a1 * s1 + a2 * s2
        let den = dr * dr + di * di
        return ((nr * dr + ni * di) / den, (ni * dr - nr * di) / den)
    }

    /// Magnitude in dB at `frequencyHz` for a given sample rate.
    public func magnitudeDB(at frequencyHz: Double, sampleRate: Double) -> Double {
        let r = response(omega: 2 * Double.pi * frequencyHz / sampleRate)
        return 10 * log10(r.re * r.re + r.im * r.im)
    }
}

extension Array where Element == BiquadCoefficients {
    /// Magnitude in dB of the cascade of these sections.
    public func magnitudeDB(at frequencyHz: Double, sampleRate: Double) -> Double {
        reduce(0) { $0 + $1.magnitudeDB(at: frequencyHz, sampleRate: sampleRate) }
    }
}
