import Foundation

/// The tests' own inter-sample peak reader, independent of Timbre's detectors.
public enum TruePeakReference {
    /// Independent inter-sample peak: a 16× band-limited reconstruction with a Kaiser-windowed
    /// sinc (β = 9) spanning 64 samples on each side, evaluated at 16 points per sample interval.
    public static func dB(_ x: [Float]) -> Double {
        let half = 64, points = 16
        func i0(_ v: Double) -> Double { var s = 1.0, t = 1.0, k = 1.0; while t > 1e-12 * s { t *= (v / (2 * k)) * (v / (2 * k)); s += t; k += 1 }; return s }
        var kernel = [[Double]](repeating: [Double](repeating: 0, count: 2 * half), count: points)
        for p in 0..<points {
            let frac = Double(p) / Double(points)
            for k in 0..<(2 * half) {
                let t = Double(k - half + 1) - frac  // distance from the evaluation point to sample n + k − half + 1
                let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
                let r = t / Double(half)
                kernel[p][k] = abs(r) >= 1 ? 0 : sinc * i0(9 * (1 - r * r).squareRoot()) / i0(9)
            }
        }
        var peak = 0.0
        for n in (half - 1)..<(x.count - half) {
            for p in 0..<points {
                var acc = 0.0
                let kp = kernel[p]
                for k in 0..<(2 * half) { acc += kp[k] * Double(x[n + k - half + 1]) }
                peak = max(peak, abs(acc))
            }
        }
        return 20 * log10(peak)
    }
}
