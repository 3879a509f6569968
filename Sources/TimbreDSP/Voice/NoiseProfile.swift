import CFFTW
import Foundation

/// A noise's power spectrum, learned from a noise-only stretch (Audacity's "Get Noise
/// Profile"), for ``SpectralDenoiser`` to use instead of, or to start, its tracked estimate.
///
/// Levels are the noise's power per frequency bin of a unit-energy window, in dB relative to
/// full scale: white noise of variance σ² reads 10·log₁₀ σ² at every frequency, whatever the
/// window length, so a profile learned at one rate or window serves any other (read by
/// linear interpolation over frequency, the last level held above the profile's top).
///
/// A profile also says how much the noise fluctuates: ``thresholdsDB``, the level over the
/// mean at which a bin counts as speech. Noise that comes and goes (babble, a crowd) needs a
/// higher one than steady hiss, and ``SpectralDenoiser`` takes such noise further down.
public struct NoiseProfile: Sendable, Equatable {
    /// The bins' centre frequencies, Hz, rising.
    public var frequencies: [Double]
    /// The noise power at each frequency, dB.
    public var levelsDB: [Double]
    /// At each frequency, how far over `levelsDB` a bin's power must stand to count as speech,
    /// dB: the mean plus 1.5 standard deviations of the noise's level in dB over the frames
    /// learned from (where noisereduce puts its threshold), smoothed over ±8 bins, and at least
    /// ``gaussianThresholdDB``. Nil (a profile written before they were learned): that value.
    public var thresholdsDB: [Double]?

    /// The threshold of Gaussian noise, dB over its mean power: its power per bin is exponential,
    /// whose level in dB has mean −10·γ/ln 10 = −2.507 dB and standard deviation
    /// 10·π/(√6·ln 10) = 5.570 dB, so mean + 1.5 σ = 5.85 dB (3.85 times the power).
    public static let gaussianThresholdDB = 5.848

    public init(frequencies: [Double], levelsDB: [Double], thresholdsDB: [Double]? = nil) {
        precondition(frequencies.count == levelsDB.count && !frequencies.isEmpty, "a noise profile needs one level per frequency")
        precondition(thresholdsDB.map { $0.count == frequencies.count } ?? true, "a noise profile needs one threshold per frequency")
        self.frequencies = frequencies; self.levelsDB = levelsDB; self.thresholdsDB = thresholdsDB
    }

    /// The level at `hz`, dB (interpolated; the end levels held beyond the ends).
    public func levelDB(atHz hz: Double) -> Double { Self.interpolate(levelsDB, frequencies, at: hz) }

    /// The speech threshold at `hz`, dB over the level (interpolated like the levels).
    public func thresholdDB(atHz hz: Double) -> Double {
        thresholdsDB.map { Self.interpolate($0, frequencies, at: hz) } ?? Self.gaussianThresholdDB
    }

    /// `values` (one per frequency of `frequencies`) at `hz`, linearly interpolated; the end
    /// values held beyond the ends.
    static func interpolate(_ values: [Double], _ frequencies: [Double], at hz: Double) -> Double {
        guard hz > frequencies[0] else { return values[0] }
        guard hz < frequencies[frequencies.count - 1] else { return values[values.count - 1] }
        var low = 0, high = frequencies.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if frequencies[mid] <= hz { low = mid } else { high = mid }
        }
        let f = (hz - frequencies[low]) / (frequencies[high] - frequencies[low])
        return values[low] + f * (values[high] - values[low])
    }

    /// Frames a profile's thresholds need (fewer: a stretch under about 0.1 s leaves them nil).
    public static let thresholdFrames = 16
    /// Bins each side over which the thresholds are averaged (in dB).
    static let thresholdSmoothingBins = 8

    /// The profile of `frames` frames of planar `channels` at `sampleRate`: the mean power of
    /// every bin over the frames and channels, with the denoiser's own window and hop, and
    /// its speech thresholds (when there are ``thresholdFrames`` frames or more).
    public static func learn(from channels: [[Float]], sampleRate: Double) -> NoiseProfile? {
        guard let length = channels.first?.count else { return nil }
        let size = SpectralDenoiser.windowLength(sampleRate: sampleRate), hop = size / 4, bins = size / 2 + 1
        guard length >= size else { return nil }
        var analysis = SpectralAnalysisFrame(size: size)
        var sum = [Double](repeating: 0, count: bins), count = 0
        var sumDB = [Double](repeating: 0, count: bins), sumSquaresDB = [Double](repeating: 0, count: bins)
        for channel in channels {
            var start = 0
            while start + size <= length {
                analysis.power(of: channel, from: start) { k, p in
                    let db = 10 * log10(max(Double(p), 1e-30))
                    sum[k] += Double(p); sumDB[k] += db; sumSquaresDB[k] += db * db
                }
                count += 1; start += hop
            }
        }
        let energy = Double(size) / 2  // Σ w² of the square-root Hann window: the Hann window's sum, N/2
        let n = Double(count)
        var thresholds: [Double]? = nil
        if count >= thresholdFrames {
            // Mean + 1.5 σ of the level in dB, over the level of the mean power.
            let raw = (0..<bins).map { k -> Double in
                let mean = sumDB[k] / n, variance = max(sumSquaresDB[k] / n - mean * mean, 0) * n / (n - 1)
                return mean + 1.5 * variance.squareRoot() - 10 * log10(max(sum[k] / n, 1e-30))
            }
            let h = thresholdSmoothingBins
            thresholds = (0..<bins).map { k in
                let span = max(0, k - h)...min(bins - 1, k + h)
                return max(raw[span].reduce(0, +) / Double(span.count), gaussianThresholdDB)
            }
        }
        return NoiseProfile(frequencies: (0..<bins).map { Double($0) * sampleRate / Double(size) },
                            levelsDB: sum.map { 10 * log10(max($0 / n / energy, 1e-30)) }, thresholdsDB: thresholds)
    }
}

/// One windowed real FFT for learning profiles (control thread; FFTW planned once).
struct SpectralAnalysisFrame: ~Copyable {
    let size: Int
    let window: [Float]
    let input: UnsafeMutablePointer<Float>
    let spectrum: UnsafeMutablePointer<fftwf_complex>
    let plan: fftwf_plan

    init(size: Int) {
        self.size = size
        window = SpectralDenoiser.window(size)
        input = fftwf_alloc_real(size)!
        spectrum = fftwf_alloc_complex(size / 2 + 1)!
        plan = FFTWPlanner.realForward(size: size, input: input, output: spectrum)
    }

    /// |Y_k|² of the windowed frame of `samples` starting at `start`, bin by bin.
    mutating func power(of samples: [Float], from start: Int, _ body: (Int, Float) -> Void) {
        for n in 0..<size { input[n] = samples[start + n] * window[n] }
        fftwf_execute(plan)
        for k in 0...size / 2 { body(k, spectrum[k].0 * spectrum[k].0 + spectrum[k].1 * spectrum[k].1) }
    }

    deinit {
        FFTWPlanner.destroy(plan)
        fftwf_free(input); fftwf_free(spectrum)
    }
}
