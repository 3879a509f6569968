import Foundation

/// Sine fitting at a known frequency: the THD+N measure of the resampler and stretcher tests.
public enum SineFit {
    public struct Result: Sendable {
        public var amplitude: Double
        /// Phase of the sine term, radians (0: a pure sin starting at frame 0).
        public var phase: Double
        /// Everything but the fitted sine and DC, relative to the sine, dB.
        public var thdnDB: Double
    }

    /// Least-squares fit of a·sin + b·cos + c at `hz` over `y` (sampled at `rate`), skipping
    /// `margin` frames at each end. Returns amplitude, phase (of sin) and THD+N in dB
    /// (residual energy over the fitted sine's).
    public static func fit(_ y: [Float], hz: Double, rate: Double, margin: Int) -> Result {
        let range = margin..<(y.count - margin)
        // Normal equations for [sin, cos, 1], in Double.
        var m = [[Double]](repeating: [0, 0, 0], count: 3), v = [0.0, 0, 0]
        for n in range {
            let w = 2 * Double.pi * hz * Double(n) / rate
            let basis = [sin(w), cos(w), 1.0]
            for i in 0..<3 { v[i] += basis[i] * Double(y[n]); for j in 0..<3 { m[i][j] += basis[i] * basis[j] } }
        }
        // Gaussian elimination, 3×3.
        for i in 0..<3 {
            for r in (i + 1)..<3 {
                let f = m[r][i] / m[i][i]
                for j in i..<3 { m[r][j] -= f * m[i][j] }
                v[r] -= f * v[i]
            }
        }
        var x = [0.0, 0, 0]
        for i in stride(from: 2, through: 0, by: -1) {
            var s = v[i]
            for j in (i + 1)..<3 { s -= m[i][j] * x[j] }
            x[i] = s / m[i][i]
        }
        var residual = 0.0, signal = 0.0
        for n in range {
            let w = 2 * Double.pi * hz * Double(n) / rate
            let fit = x[0] * sin(w) + x[1] * cos(w)
            signal += fit * fit
            let e = Double(y[n]) - fit - x[2]
            residual += e * e
        }
        return Result(amplitude: (x[0] * x[0] + x[1] * x[1]).squareRoot(), phase: atan2(x[1], x[0]), thdnDB: 10 * log10(residual / signal))
    }

}
