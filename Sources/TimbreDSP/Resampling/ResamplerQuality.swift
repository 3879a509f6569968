/// How hard a ``Resampler`` works: its anti-aliasing filter's stopband and passband.
///
/// Both modes keep everything from 0 Hz to the passband edge and reject everything above the
/// lower of the two Nyquist frequencies (where aliases and images would land):
///
/// | mode | passband | stopband attenuation | engine | lookahead at 44.1→48 kHz |
/// |---|---|---|---|---|
/// | `high` | 0.9 × lower Nyquist (19.8 kHz at 44.1 kHz) | 145 dB | ``SpectralResampler`` (block FFT) | 1029 input frames (23 ms) |
/// | `fast` | 0.8 × lower Nyquist (17.6 kHz at 44.1 kHz) | 100 dB | ``PolyphaseResampler`` (64 taps) | 32 input frames (0.7 ms) |
///
/// `Resampler(…, quality: .high, engine: .polyphase)` keeps the high-quality filter with
/// 96 frames of lookahead (192 taps per output frame, about 5× the spectral engine's cost).
public enum ResamplerQuality: String, CaseIterable, Sendable {
    /// Mastering quality: THD+N below −140 dB on a full-band test tone.
    case high
    /// Low latency, for live use where 100 dB is enough.
    case fast

    /// Stopband attenuation the Kaiser design aims at, dB.
    public var attenuationDB: Double { self == .high ? 145 : 100 }
    /// Passband edge as a fraction of the lower Nyquist frequency.
    public var passbandFraction: Double { self == .high ? 0.9 : 0.8 }
}
