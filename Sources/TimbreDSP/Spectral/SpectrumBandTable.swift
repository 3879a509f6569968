import Foundation

/// Fractional-octave bands over an FFT's bins, worked out once: for each band its nominal
/// centre and edges (base-ten octaves, IEC 61260-1: G = 10^(3/10), f_m = 1000·G^(k/b),
/// edges f_m·G^(∓1/2b)) and the weight of every bin it covers — a bin's share of the band is
/// the overlap of its width with the band, and the weights carry the noise calibration
/// 2/(N·Σw²) — so a reading is one weighted sum per band and a logarithm.
public struct SpectrumBandTable: Sendable {
    public struct Entry: Sendable {
        public var centerHz, lowerHz, upperHz: Double
        let firstBin: Int
        let weights: [Double]
    }
    public let entries: [Entry]

    /// Bands `fraction` = 1, 3 or 6 per octave from 20 Hz to min(20 kHz, Nyquist) for an
    /// `size`-point FFT at `sampleRate` whose window's squares sum to `windowSquareSum`.
    public init(fraction b: Int, sampleRate: Double, size: Int, windowSquareSum: Double) {
        precondition([1, 3, 6].contains(b))
        let binCount = size / 2 + 1, width = sampleRate / Double(size)
        let g = pow(10, 3.0 / 10)
        var entries: [Entry] = []
        for k in -60...60 {
            let fm = 1000 * pow(g, Double(k) / Double(b))
            let lo = fm * pow(g, -0.5 / Double(b)), hi = fm * pow(g, 0.5 / Double(b))
            guard hi > 20, fm <= min(20000, sampleRate / 2), hi <= sampleRate / 2 else { continue }
            let first = max(1, Int((lo / width).rounded(.down)) - 1), last = min(binCount - 1, Int((hi / width).rounded(.up)) + 1)
            let weights = (first...max(first, last)).map { bin -> Double in
                let f = Double(bin) * width
                let overlap = max(0, min(hi, f + width / 2) - max(lo, f - width / 2)) / width
                return overlap * 2 / (Double(size) * windowSquareSum)
            }
            entries.append(Entry(centerHz: fm, lowerHz: lo, upperHz: hi, firstBin: first, weights: weights))
        }
        self.entries = entries
    }

    /// Band levels in dBFS (power; −200 for none) from bin powers |X[k]|².
    public func bands(power: (Int) -> Double) -> [SpectrumKernel.Band] {
        entries.map { e in
            var total = 0.0
            for (i, w) in e.weights.enumerated() where w > 0 { total += w * power(e.firstBin + i) }
            return SpectrumKernel.Band(centerHz: e.centerHz, lowerHz: e.lowerHz, upperHz: e.upperHz, levelDB: total > 0 ? 10 * log10(total) : -200)
        }
    }
}
