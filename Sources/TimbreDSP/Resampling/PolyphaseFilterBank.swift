import Foundation

/// The coefficients of a rational polyphase resampler: a Kaiser-windowed sinc low-pass,
/// evaluated exactly at the `L` fractional positions an L/M conversion visits.
///
/// Output frame n sits at input time tₙ = n·M/L (input frames). With i = ⌊tₙ⌋ and phase
/// p = (n·M) mod L, it is
///
/// ```
/// y[n] = Σₖ x[i − K/2 + 1 + k] · g(p/L + K/2 − 1 − k),   k = 0 … K−1,
/// ```
/// g the `WindowedSincLowpass` (Oppenheim & Schafer §4.6 for polyphase interpolation). Each
/// phase is scaled to unity gain at DC, so a constant converts exactly.
///
/// Taps are stored phase-major, `tapsPerPhase` per phase (padded with zeros to a multiple of
/// 8 for the vectorised dot product), in Double: with Float taps the coefficient rounding
/// alone limits THD+N to about −140 dB (measured in the prototype), the high mode's target.
public struct PolyphaseFilterBank: ~Copyable {
    public let ratio: RationalRatio
    public let quality: ResamplerQuality
    /// Taps per output frame and channel (a multiple of 8).
    public let tapsPerPhase: Int
    /// Input frames each side of the output position the filter reaches (K/2).
    public let halfLength: Int
    /// `L × tapsPerPhase` coefficients, owned by the bank (non-copyable: `deinit` frees them).
    public let taps: UnsafeMutablePointer<Double>

    /// Largest table this design builds (phases × taps), 4 M coefficients (32 MB).
    public static let maximumCoefficients = 1 << 22

    /// Designs the bank for `ratio` (output/input) at `quality`; nil when the table would
    /// exceed ``maximumCoefficients`` (ratios of unusual, nearly coprime rates).
    public init?(ratio: RationalRatio, quality: ResamplerQuality) {
        let l = ratio.upsampling
        let kernel = WindowedSincLowpass(ratio: ratio, quality: quality)
        let k = (2 * kernel.reach + 7) / 8 * 8  // the dot kernels take multiples of 8
        guard l * k <= Self.maximumCoefficients else { return nil }
        self.ratio = ratio; self.quality = quality
        tapsPerPhase = k; halfLength = k / 2
        taps = .allocate(capacity: l * k)
        var phase = [Double](repeating: 0, count: k)
        for p in 0..<l {
            var sum = 0.0
            for j in 0..<k {
                phase[j] = kernel.value(at: Double(p) / Double(l) + Double(k / 2 - 1 - j))
                sum += phase[j]
            }
            for j in 0..<k { taps[p * k + j] = phase[j] / sum }
        }
    }

    deinit { taps.deallocate() }
}
