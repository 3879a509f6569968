import Foundation

/// Analysis windows, with the gains the analyser corrects for.
///
/// Coefficients (F. J. Harris, "On the use of windows for harmonic analysis with the discrete
/// Fourier transform", Proc. IEEE 66(1), 1978; flat-top as in SRS/HP analysers, ISO 18431-2):
/// w[n] = Σ a_k cos(2πkn/N)·(−1)^k, periodic (N-point, DFT-even) form.
public enum SpectrumWindow: String, CaseIterable, Sendable {
    case hann, hamming, blackmanHarris = "blackman-harris", flatTop = "flattop"

    var coefficients: [Double] {
        switch self {
        case .hann: [0.5, 0.5]
        case .hamming: [0.54, 0.46]
        case .blackmanHarris: [0.35875, 0.48829, 0.14128, 0.01168]  // 4-term, −92 dB sidelobes
        case .flatTop: [0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368]  // < 0.01 dB scalloping
        }
    }

    /// The N window values.
    public func values(size n: Int) -> [Float] {
        let a = coefficients
        return (0..<n).map { i in
            var w = 0.0
            for (k, c) in a.enumerated() { w += (k % 2 == 0 ? c : -c) * cos(2 * Double.pi * Double(k * i) / Double(n)) }
            return Float(w)
        }
    }

    /// |W(x)| of the window's transform `x` bins from its centre, normalised to W(0) = 1
    /// (the N → ∞ form of the cosine-sum window's transform: a0·sinc(x) + Σ a_k/2·[sinc(x−k) +
    /// sinc(x+k)], Harris 1978, eq. 32 and after). A sine between bins reads this shape.
    public func mainLobe(atBinOffset x: Double) -> Double {
        // sin(π(x ± k)) = (−1)^k·sin(πx): one sine serves every term (a live page reads the
        // peak's refinement, hundreds of these, for every analyser frame).
        let s = sin(Double.pi * x)
        func sinc(_ k: Int) -> Double {  // sinc(x + k)
            let v = x + Double(k)
            return abs(v) < 1e-12 ? 1 : (k & 1 == 0 ? s : -s) / (Double.pi * v)
        }
        let a = coefficients
        var w = a[0] * sinc(0)
        for k in 1..<a.count { w += a[k] / 2 * (sinc(-k) + sinc(k)) }
        return abs(w) / a[0]
    }
}
