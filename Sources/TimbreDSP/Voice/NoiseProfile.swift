import CFFTW
import Foundation

/// A noise's power spectrum, learned from a noise-only stretch (Audacity's "Get Noise
/// Profile"), for ``SpectralDenoiser`` to use instead of, or to start, its tracked estimate.
///
/// Levels are the noise's power per frequency bin of a unit-energy window, in dB relative to
/// full scale: white noise of variance σ² reads 10·log₁₀ σ² at every frequency, whatever the
/// window length, so a profile learned at one rate or window serves any other (read by
/// linear interpolation over frequency, the last level held above the profile's top).
public struct NoiseProfile: Sendable, Equatable {
    /// The bins' centre frequencies, Hz, rising.
    public var frequencies: [Double]
    /// The noise power at each frequency, dB.
    public var levelsDB: [Double]

    public init(frequencies: [Double], levelsDB: [Double]) {
        precondition(frequencies.count == levelsDB.count && !frequencies.isEmpty, "a noise profile needs one level per frequency")
        self.frequencies = frequencies; self.levelsDB = levelsDB
    }

    /// The level at `hz`, dB (interpolated; the end levels held beyond the ends).
    public func levelDB(atHz hz: Double) -> Double {
        guard hz > frequencies[0] else { return levelsDB[0] }
        guard hz < frequencies[frequencies.count - 1] else { return levelsDB[levelsDB.count - 1] }
        var low = 0, high = frequencies.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if frequencies[mid] <= hz { low = mid } else { high = mid }
        }
        let f = (hz - frequencies[low]) / (frequencies[high] - frequencies[low])
        return levelsDB[low] + f * (levelsDB[high] - levelsDB[low])
    }

    /// The profile of `frames` frames of planar `channels` at `sampleRate`: the mean power of
    /// every bin over the frames and channels, with the denoiser's own window and hop.
    public static func learn(from channels: [[Float]], sampleRate: Double) -> NoiseProfile? {
        guard let length = channels.first?.count else { return nil }
        let size = SpectralDenoiser.windowLength(sampleRate: sampleRate), hop = size / 4
        guard length >= size else { return nil }
        var analysis = SpectralAnalysisFrame(size: size)
        var sum = [Double](repeating: 0, count: size / 2 + 1), count = 0
        for channel in channels {
            var start = 0
            while start + size <= length {
                analysis.power(of: channel, from: start) { k, p in sum[k] += Double(p) }
                count += 1; start += hop
            }
        }
        let energy = Double(size) / 2  // Σ w² of the square-root Hann window: the Hann window's sum, N/2
        return NoiseProfile(frequencies: (0...size / 2).map { Double($0) * sampleRate / Double(size) },
                            levelsDB: sum.map { 10 * log10(max($0 / Double(count) / energy, 1e-30)) })
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
