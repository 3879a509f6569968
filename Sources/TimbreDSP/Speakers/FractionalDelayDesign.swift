import Foundation

/// The taps of a fixed delay by a fraction of a sample: a Kaiser-windowed sinc (Laakso et
/// al., "Splitting the unit delay", IEEE Signal Processing Magazine 13(1), 1996, §3.2), 96
/// taps with β = 10, centred on `halfTaps − 1 + fraction`.
///
/// Its error against the ideal e^(−jωD) is below −95 dB (0.0002 dB, 0.002° at 20 kHz) up to
/// 20 kHz at 44.1 kHz and every fraction — measured in `FractionalDelayTests` and
/// docs/ACCURACY.md. Why this and not an allpass (Thiran) or Lagrange interpolator: both are
/// exact only near DC; a speaker's tweeter needs the delay right to 20 kHz. The price is a
/// latency of up to ``halfTaps`` frames, which a node reports (the alignment node takes it out
/// of every output's delay where it can).
public struct FractionalDelayDesign: Sendable, Equatable {
    public static let taps = 96
    public static let halfTaps = taps / 2
    public static let beta = 10.0

    /// The delay beyond the taps' centre: 0 ≤ fraction < 1.
    public let fraction: Double
    /// The taps in time order: output n = Σₖ tapsₖ · x[n − k]. Their sum is 1 (unity at DC).
    public let coefficients: [Double]

    /// The taps delaying by `halfTaps − 1 + fraction` frames.
    public init(fraction: Double) {
        precondition(fraction >= 0 && fraction < 1)
        self.fraction = fraction
        let centre = Double(Self.halfTaps - 1) + fraction, half = Double(Self.halfTaps)
        var taps = (0..<Self.taps).map { k -> Double in
            let t = Double(k) - centre
            let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
            return sinc * KaiserWindow.value(at: t, halfWidth: half, beta: Self.beta)
        }
        let sum = taps.reduce(0, +)
        for k in taps.indices { taps[k] /= sum }
        coefficients = taps
    }

    /// The delay in frames the taps give.
    public var delayFrames: Double { Double(Self.halfTaps - 1) + fraction }
}
