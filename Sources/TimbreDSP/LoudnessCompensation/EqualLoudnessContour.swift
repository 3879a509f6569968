import Foundation

/// The equal-loudness-level contours of ISO 226:2003 ("Acoustics — Normal equal-loudness-level
/// contours"): the sound pressure level a pure tone at each of the standard's 29 frequencies
/// (20 Hz … 12.5 kHz, third-octave steps) needs to sound as loud as a 1 kHz tone of `phon` dB.
///
/// The standard's §4.1 formula, with its Table 1 parameters (αf, LU, Tf):
///
/// ```
/// Af = 4.47·10⁻³ · (10^(0.025·LN) − 1.15) + (0.4 · 10^((Tf + LU)/10 − 9))^αf
/// Lp = (10/αf) · lg(Af) − LU + 94   dB SPL
/// ```
///
/// Valid from 20 to 90 phon between 20 Hz and 4 kHz, and 20 to 80 phon from 5 to 12.5 kHz
/// (the standard's own limits); the formula is evaluated outside them too, but the tests
/// and docs state results inside only.
public enum EqualLoudnessContour {
    /// The standard's frequencies, Hz.
    public static let frequencies: [Double] = [
        20, 25, 31.5, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800,
        1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300, 8000, 10000, 12500,
    ]
    /// αf: the exponent for loudness perception.
    static let exponents: [Double] = [
        0.532, 0.506, 0.480, 0.455, 0.432, 0.409, 0.387, 0.367, 0.349, 0.330, 0.315, 0.301, 0.288, 0.276, 0.267,
        0.259, 0.253, 0.250, 0.246, 0.244, 0.243, 0.243, 0.243, 0.242, 0.242, 0.245, 0.254, 0.271, 0.301,
    ]
    /// LU: the magnitude of the linear transfer function normalised at 1 kHz, dB.
    static let transferMagnitudes: [Double] = [
        -31.6, -27.2, -23.0, -19.1, -15.9, -13.0, -10.3, -8.1, -6.2, -4.5, -3.1, -2.0, -1.1, -0.4, 0.0,
        0.3, 0.5, 0.0, -2.7, -4.1, -1.0, 1.7, 2.5, 1.2, -2.1, -7.1, -11.2, -10.7, -3.1,
    ]
    /// Tf: the threshold of hearing, dB SPL.
    static let thresholds: [Double] = [
        78.5, 68.7, 59.5, 51.1, 44.0, 37.5, 31.5, 26.5, 22.1, 17.9, 14.4, 11.4, 8.6, 6.2, 4.4,
        3.0, 2.2, 2.4, 3.5, 1.7, -1.3, -4.2, -6.0, -5.4, -1.5, 6.0, 12.6, 13.9, 12.3,
    ]
    /// The loudness levels the standard covers at low and middle frequencies.
    public static let phonRange: ClosedRange<Double> = 20...90

    /// The sound pressure level (dB) at ``frequencies``[k] of the `phon` contour.
    public static func soundPressureLevel(phon: Double, at k: Int) -> Double {
        let af = exponents[k], lu = transferMagnitudes[k], tf = thresholds[k]
        let a = 4.47e-3 * (pow(10, 0.025 * phon) - 1.15) + pow(0.4 * pow(10, (tf + lu) / 10 - 9), af)
        return 10 / af * log10(a) - lu + 94
    }

    /// The whole `phon` contour at ``frequencies``, dB SPL.
    public static func soundPressureLevels(phon: Double) -> [Double] {
        frequencies.indices.map { soundPressureLevel(phon: phon, at: $0) }
    }
}
