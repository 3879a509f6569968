import Foundation

/// The spectral shape of the requantisation noise for integer output: flat (TPDF dither
/// alone) or moved by error feedback to where the ear is least sensitive.
///
/// An error-feedback quantiser takes the filtered past errors e away from each sample
/// before TPDF dither and rounding: q[n] = round(x[n] − Σⱼ cⱼ·e[n−1−j] + d[n]) with
/// e[n] = q[n] − (x[n] − Σⱼ cⱼ·e[n−1−j]). The output is then x plus the white total error
/// filtered by the noise transfer function NTF(z) = 1 − Σⱼ cⱼ·z^−(1+j), whose power response
/// ``noisePowerGain(at:sampleRate:)`` is each shape's design curve; with TPDF dither the
/// total error is white with variance LSB²/4 (Lipshitz, Wannamaker & Vanderkooy, "Quantization
/// and Dither: A Theoretical Survey", JAES 40(5), 1992).
///
/// The coefficients are the published designs, as sox's `dither -f` carries them:
/// - ``lipshitz``: 5 taps, E-weighted (Lipshitz, Vanderkooy & Wannamaker, "Minimally Audible
///   Noise Shaping", JAES 39(11), 1991), designed at 44.1 kHz.
/// - ``wannamaker``: 9 taps, F-weighted (R. Wannamaker, "Psychoacoustically Optimal Noise
///   Shaping", JAES 40(7/8), 1992), the curve of the ear's threshold near 46 kHz.
/// - ``shibata``: 20 taps at 44.1 kHz, 16 at 48 kHz (N. Shibata's SSRC designs, fitted to the
///   absolute threshold of hearing: the noise goes above 15 kHz).
///
/// A design is used within 10 % of the rate it was made for (its curve's frequencies move with
/// the rate: Lipshitz's at 48 kHz lies 8.8 % higher than at 44.1 kHz; sox allows 5 % and so
/// has no Lipshitz shape at 48 kHz); other rates are refused by ``coefficients(sampleRate:)``.
public enum NoiseShape: String, CaseIterable, Sendable {
    case tpdf, lipshitz, wannamaker, shibata

    /// The rates (Hz) a design exists for (empty: any rate).
    public var designRates: [Double] {
        switch self {
        case .tpdf: []
        case .lipshitz: [44100]
        case .wannamaker: [46000]
        case .shibata: [44100, 48000]
        }
    }

    /// The error filter's coefficients c₀, c₁, … for `sampleRate`, or nil when no design is
    /// within 10 % of it. Empty for `.tpdf`.
    public func coefficients(sampleRate: Double) -> [Double]? {
        switch self {
        case .tpdf: return []
        case .lipshitz, .wannamaker, .shibata:
            guard let rate = designRates.min(by: { abs($0 - sampleRate) < abs($1 - sampleRate) }),
                  abs(sampleRate - rate) / rate <= 0.1 else { return nil }
            switch (self, rate) {
            case (.lipshitz, _): return Self.lipshitz44
            case (.wannamaker, _): return Self.fWeighted46
            case (.shibata, 48000): return Self.shibata48
            default: return Self.shibata44
            }
        }
    }

    /// |NTF(e^{jω})|² at `hz`: the noise power the shape puts there relative to flat TPDF
    /// noise of the same total error (the design curve). 1 for `.tpdf`.
    public func noisePowerGain(at hz: Double, sampleRate: Double) -> Double {
        guard let c = coefficients(sampleRate: sampleRate) else { return .nan }
        let w = 2 * Double.pi * hz / sampleRate
        var re = 1.0, im = 0.0
        for (j, cj) in c.enumerated() {
            re -= cj * cos(w * Double(j + 1)); im += cj * sin(w * Double(j + 1))
        }
        return re * re + im * im
    }

    static let lipshitz44: [Double] = [2.033, -2.165, 1.959, -1.590, 0.6149]
    static let fWeighted46: [Double] = [2.412, -3.370, 3.937, -4.174, 3.353, -2.205, 1.281, -0.569, 0.0847]
    static let shibata44: [Double] = [
        2.6773197650909423828, -4.8308925628662109375, 6.570110321044921875, -7.4572014808654785156,
        6.7263274192810058594, -4.8481650352478027344, 2.0412089824676513672, 0.7006359100341796875,
        -2.9537565708160400391, 4.0800385475158691406, -4.1845216751098632812, 3.3311812877655029297,
        -2.1179926395416259766, 0.879302978515625, -0.031759146600961685181, -0.42382788658142089844,
        0.47882103919982910156, -0.35490813851356506348, 0.17496839165687561035, -0.060908168554306030273,
    ]
    static let shibata48: [Double] = [
        2.8720729351043701172, -5.0413231849670410156, 6.2442994117736816406, -5.8483986854553222656,
        3.7067542076110839844, -1.0495119094848632812, -1.1830236911773681641, 2.1126792430877685547,
        -1.9094531536102294922, 0.99913084506988525391, -0.17090806365013122559, -0.32615602016448974609,
        0.39127644896507263184, -0.26876461505889892578, 0.097676105797290802002, -0.023473845794796943665,
    ]
}
