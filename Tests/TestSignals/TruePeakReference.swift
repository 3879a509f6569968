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

extension TruePeakReference {
    /// The ideal band-limited reconstruction, as the issue reports measure it: the signal with
    /// silence either side (padded to a power of two at least twice its length), its spectrum
    /// by a radix-2 FFT zero-filled to 16× (the Nyquist bin split between the two halves), the
    /// inverse transform's largest magnitude. No window, no finite kernel: content right up to
    /// Nyquist counts at its full level. Also returns where the peak lies (input frames).
    /// The first and last `edges` frames are left out of the search: a signal cut off mid-way
    /// (a sweep's or a Nyquist tone's last sample) rings there as any band-limited step does,
    /// which is the cut's, not the signal's (the ringing is under −50 dB 200 frames away).
    public static func idealDB(_ x: [Float], oversampling: Int = 16, edges: Int = 256) -> (dB: Double, at: Double) {
        var n = 1
        while n < 2 * x.count { n <<= 1 }
        let y = bandLimited(x + [Float](repeating: 0, count: n - x.count), oversampling: oversampling)
        var peak = 0.0, at = 0
        for i in (edges * oversampling)..<max(edges * oversampling, (x.count - edges) * oversampling) where abs(y[i]) > peak { peak = abs(y[i]); at = i }
        return (20 * log10(peak), Double(at) / Double(oversampling))
    }

    /// ``idealDB(_:oversampling:edges:)`` for a steady signal: `x` (a power of two long) taken
    /// as one period of a periodic one — no padding, so no cut at its ends.
    public static func periodicDB(_ x: [Float], oversampling: Int = 16) -> Double {
        20 * log10(bandLimited(x, oversampling: oversampling).map(abs).max()!)
    }

    /// ``idealDB(_:oversampling:edges:)`` for long signals, in pieces: each `piece` frames
    /// reconstructed (16× by FFT) with `margin` frames of the signal on either side, only the
    /// piece's own span searched — the sinc's terms beyond the margin, left out, weigh under
    /// 1/(π·margin) each (a 1e-3 dB error on noise at a margin of 2,048). The signal has
    /// silence before and after, as in ``idealDB(_:oversampling:edges:)``.
    public static func idealPiecewiseDB(_ x: [Float], piece: Int = 12_288, margin: Int = 2048) -> Double {
        let n = piece + 2 * margin, l = 16
        var peak = -Double.infinity, start = 0
        while start < x.count {
            let window = (0..<n).map { i -> Float in let k = start - margin + i; return k >= 0 && k < x.count ? x[k] : 0 }
            let y = bandLimited(window, oversampling: l)
            for i in (margin * l)..<((margin + piece) * l) { peak = max(peak, abs(y[i])) }
            start += piece
        }
        return 20 * log10(peak)
    }

    /// One period `x` (a power of two long) of a band-limited signal at `oversampling` points
    /// per sample: its spectrum by FFT, zero-filled (the Nyquist bin split between the two
    /// halves), transformed back and normalised.
    static func bandLimited(_ x: [Float], oversampling: Int) -> [Double] {
        let n = x.count, m = n * oversampling
        precondition(n >= 2 && n & (n - 1) == 0)
        var re = x.map(Double.init), im = [Double](repeating: 0, count: n)
        RadixTwoFFT.transform(&re, &im, inverse: false)
        var upRe = [Double](repeating: 0, count: m), upIm = upRe
        for k in 0..<(n / 2) { upRe[k] = re[k]; upIm[k] = im[k] }
        for k in 1..<(n / 2) { upRe[m - k] = re[n - k]; upIm[m - k] = im[n - k] }
        upRe[n / 2] = re[n / 2] / 2; upIm[n / 2] = im[n / 2] / 2
        upRe[m - n / 2] = re[n / 2] / 2; upIm[m - n / 2] = -im[n / 2] / 2
        RadixTwoFFT.transform(&upRe, &upIm, inverse: true)
        return upRe.map { $0 / Double(n) }
    }
}

/// An in-place iterative radix-2 FFT (Cooley–Tukey, decimation in time), Double precision, for
/// the tests' independent references. `inverse` uses e^{+i…} and does not scale.
public enum RadixTwoFFT {
    public static func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        let n = re.count
        precondition(n > 0 && n & (n - 1) == 0 && im.count == n)
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = (inverse ? 2 : -2) * Double.pi / Double(length)
            let half = length / 2
            // Twiddles computed directly per index (no recurrence drift).
            let wr = (0..<half).map { cos(angle * Double($0)) }, wi = (0..<half).map { sin(angle * Double($0)) }
            var start = 0
            while start < n {
                for k in 0..<half {
                    let a = start + k, b = a + half
                    let tr = re[b] * wr[k] - im[b] * wi[k], ti = re[b] * wi[k] + im[b] * wr[k]
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
                start += length
            }
            length <<= 1
        }
    }
}
