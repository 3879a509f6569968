import Foundation

/// Inter-sample ("true") peak of planar audio by oversampling, after ITU-R BS.1770-4 Annex 2.
///
/// The signal is upsampled by ``oversampling`` (4 below 88.2 kHz, 2 up to 192 kHz, 1 above, as
/// the Recommendation asks) with a polyphase windowed-sinc interpolator of 12 taps per phase
/// (48 taps at 4×, the Annex's length), and the largest absolute value of the input samples and
/// the interpolated ones is kept. Tap k of phase p is
///
/// ```
/// h_p[k] = sinc(x) · w(x),   x = (k·L + p − (12·L − 1)/2) / L,   sinc(x) = sin πx / πx,
/// ```
/// w a Kaiser window (β = 8) over the 12·L taps,
/// each phase normalised to unity gain at DC so a constant reads exactly its value.
/// The interpolation group delay (6 input samples) is irrelevant to a peak.
///
/// Memory: 12 samples of history per channel, allocated in `init`; `process` never allocates.
/// A full-scale sine at fs/4 with a 45° phase reads +3.01 dBTP (its sample peak is 0 dBFS).
public struct TruePeakMeter {
    public let oversampling: Int
    public let channelCount: Int
    static let tapsPerPhase = 12
    /// `oversampling × tapsPerPhase` coefficients, phase-major.
    let taps: [Float]
    /// Per channel, the last `tapsPerPhase` inputs (oldest first).
    var history: [Float]
    /// Largest absolute value seen per channel (linear).
    public private(set) var peaks: [Float]

    public init(sampleRate: Double, channelCount: Int) {
        oversampling = sampleRate < 88_200 ? 4 : sampleRate <= 192_000 ? 2 : 1
        self.channelCount = channelCount
        let n = Self.tapsPerPhase, l = oversampling
        var t = [Float](repeating: 0, count: l * n)
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum { term *= (x / (2 * k)) * (x / (2 * k)); sum += term; k += 1 }
            return sum
        }
        let beta = 8.0, length = Double(l * n)
        for p in 0..<l {
            var phase = [Double](repeating: 0, count: n)
            for k in 0..<n {
                // Position of tap k of phase p on the oversampled grid, centred on the filter.
                let m = Double(k * l + p) - (length - 1) / 2
                let x = m / Double(l)
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                let r = 2 * m / (length - 1)
                let window = besselI0(beta * (max(0, 1 - r * r)).squareRoot()) / besselI0(beta)
                phase[k] = sinc * window
            }
            let sum = phase.reduce(0, +)
            for k in 0..<n { t[p * n + k] = Float(phase[k] / sum) }
        }
        taps = t
        history = [Float](repeating: 0, count: channelCount * n)
        peaks = [Float](repeating: 0, count: channelCount)
    }

    /// Feeds `frameCount` frames of planar `channels`.
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let n = Self.tapsPerPhase, l = oversampling
        for c in 0..<channelCount {
            let x = channels[c]
            var peak = peaks[c]
            history.withUnsafeMutableBufferPointer { h in
                taps.withUnsafeBufferPointer { t in
                    let hist = h.baseAddress! + c * n
                    for i in 0..<frameCount {
                        for k in 0..<(n - 1) { hist[k] = hist[k + 1] }
                        hist[n - 1] = x[i]
                        peak = max(peak, abs(x[i]))
                        if l > 1 {
                            for p in 0..<l {
                                var acc: Float = 0
                                let phase = t.baseAddress! + p * n
                                for k in 0..<n { acc += phase[n - 1 - k] * hist[k] }
                                peak = max(peak, abs(acc))
                            }
                        }
                    }
                }
            }
            peaks[c] = peak
        }
    }

    /// The largest true peak over all channels, linear.
    public var peak: Float { peaks.max() ?? 0 }
    /// The largest true peak in dBTP (−inf for silence).
    public var peakDBTP: Double { 20 * log10(Double(peak)) }
}
