import Foundation

/// The anti-aliasing low-pass both resampler engines use: a Kaiser-windowed sinc designed for
/// an L/M conversion at a ``ResamplerQuality``, as a function of continuous time in input frames.
///
/// ```
/// g(t) = 2ν·sinc(2ν t)·w(t / T),   |t| ≤ T,   0 elsewhere
/// ν = (passband edge + lower Nyquist) / 2,   lower Nyquist = min(1, L/M) / 2   (cycles per input frame)
/// ```
/// w is Kaiser's window, its β and the length 2T from Kaiser's formulas for the quality's
/// stopband attenuation and the transition from the passband edge to the lower Nyquist
/// (Oppenheim & Schafer, *Discrete-Time Signal Processing*, 3rd ed., §7.5.3). Images
/// (upsampling) and aliases (downsampling) fall in the stopband.
package struct WindowedSincLowpass: Sendable {
    /// Cutoff ν, cycles per input frame.
    package let cutoff: Double
    /// Half the support T, input frames.
    package let halfWidth: Double
    /// Kaiser's β.
    package let beta: Double
    @usableFromInline let i0Beta: Double

    package init(ratio: RationalRatio, quality: ResamplerQuality) {
        let nyquist = min(1, Double(ratio.upsampling) / Double(ratio.downsampling)) / 2
        let passband = quality.passbandFraction * nyquist
        cutoff = (passband + nyquist) / 2
        halfWidth = Double(KaiserWindow.length(attenuationDB: quality.attenuationDB, transitionWidth: nyquist - passband)) / 2
        beta = KaiserWindow.beta(attenuationDB: quality.attenuationDB)
        i0Beta = KaiserWindow.besselI0(beta)
    }

    /// Whole input frames the kernel reaches each side of an output position, ⌈T⌉.
    package var reach: Int { Int(halfWidth.rounded(.up)) }

    /// g(t), `t` in input frames.
    package func value(at t: Double) -> Double {
        let r = t / halfWidth
        guard abs(r) <= 1 else { return 0 }
        let x = 2 * cutoff * t
        let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
        return 2 * cutoff * sinc * KaiserWindow.besselI0(beta * (1 - r * r).squareRoot()) / i0Beta
    }
}
