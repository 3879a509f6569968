import Foundation

/// Kaiser-windowed sinc taps for reading a signal between its samples: ``phases`` + 1 rows of
/// ``taps`` coefficients, row p the interpolator for the position p / phases past a sample,
/// read with linear interpolation between neighbouring rows.
///
/// Design (Oppenheim & Schafer §4.6 and §7.5.3, as `WindowedSincLowpass`): cutoff 0.46 of the
/// rate, stopband 90 dB, pass band to 0.42 of the rate, so a delay by a fraction of a sample
/// is within −80 dB of the ideal e^(−jωD) up to 0.4 of the rate (`EchoDelayTests`); 1,024
/// phases, so the rows' linear interpolation adds an error of order (1/1,024)². Each row is
/// scaled to unity gain at DC. Float, built once per process and never freed (it is
/// shared by every delay kernel; 300 KB). A kernel copies ``shared`` when it is prepared (a
/// value: the audio thread never reaches the lazily made global).
public struct FractionalDelayTable: @unchecked Sendable {
    /// Coefficients per row (a multiple of 4), reaching ``halfTaps`` samples each side.
    public let taps: Int
    public let halfTaps: Int
    public let phases: Int
    /// (phases + 1) × taps coefficients; row p at `coefficients + p × taps`.
    public let coefficients: UnsafeMutablePointer<Float>

    /// The table every kernel shares (built on first use, on the thread that prepares a kernel).
    public static let shared = FractionalDelayTable()

    private init() {
        let attenuation = 90.0, cutoff = 0.46, passband = 0.42
        let length = KaiserWindow.length(attenuationDB: attenuation, transitionWidth: 0.5 - passband)
        taps = (length + 3) / 4 * 4
        halfTaps = taps / 2
        phases = 1_024
        let beta = KaiserWindow.beta(attenuationDB: attenuation), half = Double(halfTaps)
        coefficients = .allocate(capacity: (phases + 1) * taps)
        for p in 0...phases {
            // Row p: the value at p/phases past sample base, from samples base − h + 1 … base + h
            // (k = 0 … taps − 1) at distance φ + h − 1 − k.
            let phi = Double(p) / Double(phases)
            var row = [Double](repeating: 0, count: taps), sum = 0.0
            for k in 0..<taps {
                let t = phi + half - 1 - Double(k), x = 2 * cutoff * t
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                row[k] = 2 * cutoff * sinc * KaiserWindow.value(at: t, halfWidth: half, beta: beta)
                sum += row[k]
            }
            for k in 0..<taps { coefficients[p * taps + k] = Float(row[k] / sum) }
        }
    }

    /// The signal at `fraction` (0 ≤ fraction < 1) past `samples[h − 1]`, from
    /// `samples[0 ..< taps]` (h = ``halfTaps``).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    public func read(_ samples: UnsafePointer<Float>, fraction: Float) -> Float {
        let position = fraction * Float(phases)
        let p = min(Int(position), phases - 1), a = position - Float(p)
        let lower = coefficients + p * taps, upper = lower + taps
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var k = 0
        while k < taps {
            s0 += samples[k] * (lower[k] + a * (upper[k] - lower[k]))
            s1 += samples[k + 1] * (lower[k + 1] + a * (upper[k + 1] - lower[k + 1]))
            s2 += samples[k + 2] * (lower[k + 2] + a * (upper[k + 2] - lower[k + 2]))
            s3 += samples[k + 3] * (lower[k + 3] + a * (upper[k + 3] - lower[k + 3]))
            k += 4
        }
        return (s0 + s1) + (s2 + s3)
    }
}
