import Foundation

/// Bilinear-transform designs from the RBJ Audio EQ Cookbook
/// (R. Bristow-Johnson, "Cookbook formulae for audio EQ biquad filter coefficients";
/// W3C Note, 2021). With `w0 = 2π f0/fs`, `α = sin(w0)/(2Q)`, `A = 10^(dB/40)`:
///
/// ```
/// peak:      b = [1 + αA, −2cos w0, 1 − αA]           a = [1 + α/A, −2cos w0, 1 − α/A]
/// low-pass:  b = [(1 − cos w0)/2, 1 − cos w0, (1 − cos w0)/2]   a = [1 + α, −2cos w0, 1 − α]
/// ```
///
/// Exact at `f0` (the frequency is pre-warped) but the response is compressed towards
/// Nyquist: a 16 kHz bell at 48 kHz is several dB narrower and lower than its analog
/// prototype ("cramping"). Kept as `"design": "bilinear"` for compatibility with other tools.
package enum BilinearDesign {
    @inline(__always) static func parts(_ f0: Double, _ fs: Double, _ q: Double) -> (c: Double, s: Double, alpha: Double) {
        let w0 = 2 * Double.pi * f0 / fs
        let s = sin(w0)
        return (cos(w0), s, s / (2 * q))
    }

    package static func lowPass(frequencyHz f0: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        return BiquadCoefficients(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + al, a1: -2 * c, a2: 1 - al)
    }
    package static func highPass(frequencyHz f0: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        return BiquadCoefficients(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + al, a1: -2 * c, a2: 1 - al)
    }
    package static func peak(frequencyHz f0: Double, gainDB: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        let a = pow(10, gainDB / 40)
        return BiquadCoefficients(b0: 1 + al * a, b1: -2 * c, b2: 1 - al * a, a0: 1 + al / a, a1: -2 * c, a2: 1 - al / a)
    }
    package static func lowShelf(frequencyHz f0: Double, gainDB: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        let a = pow(10, gainDB / 40), k = 2 * a.squareRoot() * al
        return BiquadCoefficients(
            b0: a * ((a + 1) - (a - 1) * c + k), b1: 2 * a * ((a - 1) - (a + 1) * c), b2: a * ((a + 1) - (a - 1) * c - k),
            a0: (a + 1) + (a - 1) * c + k, a1: -2 * ((a - 1) + (a + 1) * c), a2: (a + 1) + (a - 1) * c - k)
    }
    package static func highShelf(frequencyHz f0: Double, gainDB: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        let a = pow(10, gainDB / 40), k = 2 * a.squareRoot() * al
        return BiquadCoefficients(
            b0: a * ((a + 1) + (a - 1) * c + k), b1: -2 * a * ((a - 1) + (a + 1) * c), b2: a * ((a + 1) + (a - 1) * c - k),
            a0: (a + 1) - (a - 1) * c + k, a1: 2 * ((a - 1) - (a + 1) * c), a2: (a + 1) - (a - 1) * c - k)
    }
    package static func notch(frequencyHz f0: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        return BiquadCoefficients(b0: 1, b1: -2 * c, b2: 1, a0: 1 + al, a1: -2 * c, a2: 1 - al)
    }
    package static func bandPass(frequencyHz f0: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        return BiquadCoefficients(b0: al, b1: 0, b2: -al, a0: 1 + al, a1: -2 * c, a2: 1 - al)
    }
    package static func allPass(frequencyHz f0: Double, q: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let (c, _, al) = parts(f0, fs, q)
        return BiquadCoefficients(b0: 1 - al, b1: -2 * c, b2: 1 + al, a0: 1 + al, a1: -2 * c, a2: 1 - al)
    }
}
