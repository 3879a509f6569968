import Foundation

/// The coefficients of a rational polyphase resampler: a Kaiser-windowed sinc low-pass,
/// evaluated exactly at the `L` fractional positions an L/M conversion visits.
///
/// Output frame n sits at input time tₙ = n·M/L (input frames). With i = ⌊tₙ⌋ and phase
/// p = (n·M) mod L, it is
///
/// ```
/// y[n] = Σₖ x[i − K/2 + 1 + k] · g(p/L + K/2 − 1 − k),   k = 0 … K−1,
/// g(t) = 2ν·sinc(2ν t) · w(t),   ν = cutoff / input rate,
/// ```
/// w a Kaiser window over |t| ≤ T (Oppenheim & Schafer §7.5.3, §4.6 for polyphase
/// interpolation). The cutoff sits midway between the passband edge and the lower Nyquist
/// frequency, so images (upsampling) and aliases (downsampling) fall in the stopband. Each
/// phase is scaled to unity gain at DC, so a constant converts exactly.
///
/// Taps are stored phase-major, `tapsPerPhase` per phase (padded with zeros to a multiple of
/// 8 for the vectorised dot product), in Double: with Float taps the coefficient rounding
/// alone limits THD+N to about −140 dB (measured in the prototype), the high mode's target.
public struct PolyphaseFilterBank {
    public let ratio: RationalRatio
    public let quality: ResamplerQuality
    /// Taps per output frame and channel (a multiple of 8).
    public let tapsPerPhase: Int
    /// Input frames each side of the output position the filter reaches (K/2).
    public let halfLength: Int
    /// `L × tapsPerPhase` coefficients; owned, freed by ``deallocate()``.
    public let taps: UnsafeMutablePointer<Double>

    /// Largest table this design builds (phases × taps), 4 M coefficients (32 MB).
    public static let maximumCoefficients = 1 << 22

    /// Designs the bank for `ratio` (output/input) at `quality`; nil when the table would
    /// exceed ``maximumCoefficients`` (ratios of unusual, nearly coprime rates).
    public init?(ratio: RationalRatio, quality: ResamplerQuality) {
        let l = ratio.upsampling, m = ratio.downsampling
        // Rates relative to the input rate (1): output L/M; lower Nyquist min(1, L/M)/2.
        let nyquist = min(1, Double(l) / Double(m)) / 2
        let passband = quality.passbandFraction * nyquist
        let cutoff = (passband + nyquist) / 2
        let length = KaiserWindow.length(attenuationDB: quality.attenuationDB, transitionWidth: nyquist - passband)
        let halfWidth = Double(length) / 2
        let k = (2 * Int(halfWidth.rounded(.up)) + 7) / 8 * 8  // the dot kernels take multiples of 8
        guard l * k <= Self.maximumCoefficients else { return nil }
        self.ratio = ratio; self.quality = quality
        tapsPerPhase = k; halfLength = k / 2
        taps = .allocate(capacity: l * k)
        let beta = KaiserWindow.beta(attenuationDB: quality.attenuationDB)
        let i0Beta = KaiserWindow.besselI0(beta)
        var phase = [Double](repeating: 0, count: k)
        for p in 0..<l {
            var sum = 0.0
            for j in 0..<k {
                let t = Double(p) / Double(l) + Double(k / 2 - 1 - j)
                let r = t / halfWidth
                var g = 0.0
                if abs(r) <= 1 {
                    let x = 2 * cutoff * t
                    let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                    g = 2 * cutoff * sinc * KaiserWindow.besselI0(beta * (1 - r * r).squareRoot()) / i0Beta
                }
                phase[j] = g; sum += g
            }
            for j in 0..<k { taps[p * k + j] = phase[j] / sum }
        }
    }

    /// Frees the coefficients. Call once, off the render thread.
    public func deallocate() { taps.deallocate() }
}
