import CFFTW
import Foundation

/// A spectrum analyser on FFTW's single-precision real FFT.
///
/// Frames of ``size`` samples (256–32768), hopped by `size × (1 − overlap)`, windowed, are
/// transformed per channel; each frame's power |X[k]|² is averaged over channels (so
/// anti-phase channels do not cancel), then smoothed across frames by an exponential average
/// with time constant ``averagingSeconds`` (α = 1 − e^(−hop / (τ·fs)); 0 means no smoothing,
/// `.infinity` a plain mean of all frames). Frame n uses max(α, 1/n), so the average starts
/// as a running mean instead of leaning on the first frame. A peak hold keeps each bin's maximum. Frames are aligned to absolute sample positions,
/// so results never depend on the block sizes fed to ``process(_:frameCount:)``.
///
/// Scaling, so that a full-scale sine reads 0 dBFS at its peak (window gain corrected):
///
/// ```
/// bin level (dBFS)  = 20·log10(2·|X[k]| / Σw)             sine peak calibrated
/// band level (dBFS) = 10·log10(Σ_k∈band 2·|X[k]|² / (N·Σw²))  power in the band (noise calibrated:
///                                                          the bands of white noise sum to its mean square)
/// ```
///
/// Bands: fractional-octave (1/1, 1/3, 1/6) with base-10 centres fm = 1000·10^(3k/(10b)) Hz
/// (IEC 61260-1), edges fm·10^(±3/(20b)); a bin counts with the fraction of its width
/// [f − Δf/2, f + Δf/2] that lies in the band, so narrow low bands are not quantised to whole bins.
/// Peak frequency: parabolic interpolation of the dB levels of the strongest bin and its
/// neighbours (accurate to a few hundredths of a bin with Hann). Peak level: the same
/// parabola's vertex, except with the flat-top window, whose crest is flat by design (< 0.01 dB
/// scalloping), so its peak bin is read as it is.
///
/// Plans and buffers are made in `init` (FFTW planning allocates); ``process(_:frameCount:)``
/// only copies, executes plans and accumulates, in fixed memory.
public final class SpectrumAnalyzer {
    public let size: Int
    public let sampleRate: Double
    public let channelCount: Int
    public let window: SpectrumWindow
    public let hop: Int
    public let averagingSeconds: Double
    let alpha: Float
    let windowValues: UnsafeMutablePointer<Float>
    let windowSum: Double, windowSquareSum: Double
    /// Per channel, a ring of the last `size` samples.
    let history: UnsafeMutablePointer<Float>
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<fftwf_complex>
    let plan: fftwf_plan
    let framePower: UnsafeMutablePointer<Float>
    let averagePower: UnsafeMutablePointer<Float>
    let peakPower: UnsafeMutablePointer<Float>
    var position = 0
    public private(set) var frames = 0

    public static let sizes = 256...32768

    public init(size: Int, sampleRate: Double, channelCount: Int = 1, window: SpectrumWindow = .hann,
                overlap: Double = 0.5, averagingSeconds: Double = 0) {
        precondition(Self.sizes.contains(size) && (0..<1).contains(overlap) && channelCount >= 1)
        self.size = size; self.sampleRate = sampleRate; self.channelCount = channelCount; self.window = window
        hop = max(1, Int((Double(size) * (1 - overlap)).rounded()))
        self.averagingSeconds = averagingSeconds
        alpha = averagingSeconds > 0 ? Float(1 - exp(-Double(hop) / (averagingSeconds * sampleRate))) : 1  // ∞ → 0
        let w = window.values(size: size)
        windowValues = .allocate(capacity: size)
        windowValues.initialize(from: w, count: size)
        windowSum = w.reduce(0) { $0 + Double($1) }
        windowSquareSum = w.reduce(0) { $0 + Double($1) * Double($1) }
        history = .allocate(capacity: channelCount * size)
        history.initialize(repeating: 0, count: channelCount * size)
        input = fftwf_alloc_real(size)!
        output = fftwf_alloc_complex(size / 2 + 1)!
        plan = FFTWPlanner.realForward(size: size, input: input, output: output)
        let bins = size / 2 + 1
        framePower = .allocate(capacity: bins); averagePower = .allocate(capacity: bins); peakPower = .allocate(capacity: bins)
        framePower.initialize(repeating: 0, count: bins); averagePower.initialize(repeating: 0, count: bins); peakPower.initialize(repeating: 0, count: bins)
    }

    deinit {
        FFTWPlanner.destroy(plan); fftwf_free(input); fftwf_free(output)
        windowValues.deallocate(); history.deallocate(); framePower.deallocate(); averagePower.deallocate(); peakPower.deallocate()
    }

    public var binCount: Int { size / 2 + 1 }
    public func frequency(ofBin k: Int) -> Double { Double(k) * sampleRate / Double(size) }

    /// Feeds planar audio; a frame is analysed every ``hop`` samples once ``size`` have arrived.
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        for i in 0..<frameCount {
            let slot = position % size
            for c in 0..<channelCount { history[c * size + slot] = channels[c][i] }
            position += 1
            if position >= size && (position - size) % hop == 0 { analyseFrame() }
        }
    }

    func analyseFrame() {
        let bins = binCount
        for k in 0..<bins { framePower[k] = 0 }
        let start = position % size  // oldest sample
        for c in 0..<channelCount {
            let h = history + c * size
            for n in 0..<size { input[n] = h[(start + n) % size] * windowValues[n] }
            fftwf_execute(plan)
            for k in 0..<bins { let v = output[k]; framePower[k] += v.0 * v.0 + v.1 * v.1 }
        }
        let scale = 1 / Float(channelCount)
        let a = max(alpha, 1 / Float(frames + 1))
        for k in 0..<bins {
            let p = framePower[k] * scale
            averagePower[k] += a * (p - averagePower[k])
            peakPower[k] = max(peakPower[k], p)
        }
        frames += 1
    }

    // MARK: Results

    /// Sine-calibrated level of bin k in dBFS from averaged (or peak-held) power.
    public func levelDB(bin k: Int, peakHold: Bool = false) -> Double {
        let p = Double(peakHold ? peakPower[k] : averagePower[k])
        return p > 0 ? 20 * log10(2 * p.squareRoot() / windowSum) : -200
    }

    public func levelsDB(peakHold: Bool = false) -> [Double] { (0..<binCount).map { levelDB(bin: $0, peakHold: peakHold) } }

    /// The strongest bin (above DC) with its frequency and level refined by parabolic
    /// interpolation of the dB levels of it and its two neighbours.
    public var peak: (frequencyHz: Double, levelDB: Double) {
        var best = 1
        for k in 1..<(binCount - 1) where averagePower[k] > averagePower[best] { best = k }
        let a = levelDB(bin: best - 1), b = levelDB(bin: best), c = levelDB(bin: min(binCount - 1, best + 1))
        let denominator = a - 2 * b + c
        let delta = denominator != 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / denominator)) : 0
        let level = window == .flatTop ? b : b - 0.25 * (a - c) * delta
        return (frequency(ofBin: best) + delta * sampleRate / Double(size), level)
    }

    /// One fractional-octave band: nominal centre, edges and power level in dBFS.
    public struct Band: Sendable { public var centerHz, lowerHz, upperHz, levelDB: Double }

    /// Fractional-octave bands (`fraction` = 1, 3 or 6 per octave) from 20 Hz to min(20 kHz, Nyquist).
    public func bands(fraction b: Int) -> [Band] {
        precondition([1, 3, 6].contains(b))
        var out: [Band] = []
        let g = pow(10, 3.0 / 10)
        for k in -60...60 {
            let fm = 1000 * pow(g, Double(k) / Double(b))
            let lo = fm * pow(g, -0.5 / Double(b)), hi = fm * pow(g, 0.5 / Double(b))
            guard hi > 20, fm <= min(20000, sampleRate / 2), hi <= sampleRate / 2 else { continue }
            var power = 0.0
            let width = sampleRate / Double(size)
            let first = max(1, Int((lo / width).rounded(.down)) - 1), last = min(binCount - 1, Int((hi / width).rounded(.up)) + 1)
            for bin in first...max(first, last) {
                let f = frequency(ofBin: bin)
                let overlap = max(0, min(hi, f + width / 2) - max(lo, f - width / 2)) / width
                power += overlap * 2 * Double(averagePower[bin]) / (Double(size) * windowSquareSum)
            }
            out.append(Band(centerHz: fm, lowerHz: lo, upperHz: hi, levelDB: power > 0 ? 10 * log10(power) : -200))
        }
        return out
    }
}
