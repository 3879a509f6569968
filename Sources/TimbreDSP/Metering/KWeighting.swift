import Foundation

/// The K-weighting filter of ITU-R BS.1770-4 (§2.1), derived for any sample rate.
///
/// BS.1770 tabulates the two stages' coefficients for 48 kHz only. Both are second-order
/// sections whose analog parameters reproduce that table (the parameterisation used by
/// libebur128, which fitted them to the 48 kHz coefficients):
///
/// ```
/// stage 1, "pre-filter" high shelf:  f0 = 1681.974450955533 Hz, G = 3.999843853973347 dB,
///                                    Q = 0.7071752369554196, Vb = Vh^0.4996667741545416
///   K = tan(π f0 / fs), Vh = 10^(G/20)
///   b = [Vh + Vb K/Q + K², 2(K² − Vh), Vh − Vb K/Q + K²] / a0,  a = [1, 2(K² − 1), 1 − K/Q + K²] / a0,
///   a0 = 1 + K/Q + K²
/// stage 2, RLB high-pass:            f0 = 38.13547087602444 Hz, Q = 0.5003270373238773
///   b = [1, −2, 1],  a = [1, 2(K² − 1), 1 − K/Q + K²] / (1 + K/Q + K²)
/// ```
///
/// At 48 kHz this gives BS.1770's table to 1e-9. (The RLB numerator is left un-normalised,
/// as in the Recommendation: its gain at high frequencies is then ~1.)
public enum KWeighting {
    public static func sections(sampleRate fs: Double) -> (preFilter: BiquadCoefficients, rlb: BiquadCoefficients) {
        var f0 = 1681.974450955533
        let g = 3.999843853973347
        var q = 0.7071752369554196
        var k = tan(Double.pi * f0 / fs)
        let vh = pow(10, g / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        let pre = BiquadCoefficients(b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
                                     a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / fs)
        a0 = 1 + k / q + k * k
        let rlb = BiquadCoefficients(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        return (pre, rlb)
    }

    /// BS.1770-4 channel weights G_i for a channel count in the usual WAV order
    /// (``ChannelLayout/standard(channelCount:)``): L, R, C 1.0, surrounds 1.41 (+1.5 dB), LFE 0
    /// (excluded). 5 channels: L R C Ls Rs; 6: L R C LFE Ls Rs; 8: L R C LFE BL BR SL SR.
    public static func channelWeights(channelCount: Int) -> [Double] {
        ChannelLayout.standard(channelCount: channelCount).loudnessWeights
    }
}
