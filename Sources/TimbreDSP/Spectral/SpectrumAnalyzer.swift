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
/// so results never depend on the block sizes fed to `process(_:frameCount:)`.
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
/// Peak frequency and level: the window's own main lobe fitted to the bins around the strongest
/// (``peak(binCount:binWidth:window:power:level:)``): within 0.1 Hz and 0.05 dB for a sine between
/// bins with every window.
///
/// Plans and buffers are made in `init` (FFTW planning allocates); `process(_:frameCount:)`
/// only copies, executes plans and accumulates, in fixed memory. A non-copyable value over raw
/// memory (``AudioKernel``: a `spectrum` node runs it on the audio thread without reference
/// counting; `deinit` frees plans and buffers); ``SpectrumAnalyzer`` owns one for callers that
/// prefer a class.
public struct SpectrumKernel: ~Copyable {
    public let size: Int
    public let sampleRate: Double
    public let channelCount: Int
    public let window: SpectrumWindow
    public let hop: Int
    public let averagingSeconds: Double
    let alpha: Float
    let windowValues: UnsafeMutablePointer<Float>
    public let windowSum: Double, windowSquareSum: Double
    /// Per channel, a ring of the last `size` samples.
    let history: UnsafeMutablePointer<Float>
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<fftwf_complex>
    let plan: fftwf_plan
    let framePower: UnsafeMutablePointer<Float>
    /// Averaged |X[k]|² per bin (what a `spectrum` node publishes).
    public let averagePower: UnsafeMutablePointer<Float>
    let peakPower: UnsafeMutablePointer<Float>
    /// [samples seen, frames analysed].
    let counters: UnsafeMutablePointer<Int>
    var position: Int { counters[0] }
    public var frames: Int { counters[1] }

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
        counters = .allocate(capacity: 2)
        counters.initialize(repeating: 0, count: 2)
    }

    /// Frees plans and buffers (FFTW's plan destruction takes its planner lock: end a kernel off the audio thread).
    deinit {
        FFTWPlanner.destroy(plan); fftwf_free(input); fftwf_free(output)
        windowValues.deallocate(); history.deallocate(); framePower.deallocate(); averagePower.deallocate(); peakPower.deallocate()
        counters.deallocate()
    }

    public var binCount: Int { size / 2 + 1 }
    public func frequency(ofBin k: Int) -> Double { Double(k) * sampleRate / Double(size) }

    /// Feeds planar audio; a frame is analysed every ``hop`` samples once ``size`` have arrived.
    /// Real-time safe: copies, FFTW execution (thread-safe, allocation-free) and sums.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            // Copy up to the next frame boundary (or the ring's end) in one contiguous run.
            let nextFrame = position < size ? size : size + ((position - size) / hop + 1) * hop
            let slot = position % size
            let n = min(min(frameCount - done, nextFrame - position), size - slot)
            for c in 0..<channelCount {
                let src = channels[c] + done, dst = history + c * size + slot
                for i in 0..<n { dst[i] = src[i] }
            }
            counters[0] += n
            done += n
            if position >= size && (position - size) % hop == 0 { analyseFrame() }
        }
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func analyseFrame() {
        let bins = binCount
        for k in 0..<bins { framePower[k] = 0 }
        let start = position % size  // oldest sample
        for c in 0..<channelCount {
            let h = history + c * size
            let firstRun = size - start  // oldest samples: h[start..<size], then h[0..<start]
            for n in 0..<firstRun { input[n] = h[start + n] * windowValues[n] }
            for n in firstRun..<size { input[n] = h[n - firstRun] * windowValues[n] }
            let plan = plan  // (a trivial local: a closure over a non-copyable `self` would box it)
            _unsafePerformance { fftwf_execute(plan) }
            for k in 0..<bins { let v = output[k]; framePower[k] += v.0 * v.0 + v.1 * v.1 }
        }
        let scale = 1 / Float(channelCount)
        let a = max(alpha, 1 / Float(frames + 1))
        for k in 0..<bins {
            let p = framePower[k] * scale
            averagePower[k] += a * (p - averagePower[k])
            peakPower[k] = max(peakPower[k], p)
        }
        counters[1] += 1
    }

    // MARK: Results

    /// Sine-calibrated level of bin k in dBFS from averaged (or peak-held) power.
    public func levelDB(bin k: Int, peakHold: Bool = false) -> Double {
        Self.levelDB(power: Double(peakHold ? peakPower[k] : averagePower[k]), windowSum: windowSum)
    }

    public func levelsDB(peakHold: Bool = false) -> [Double] { (0..<binCount).map { levelDB(bin: $0, peakHold: peakHold) } }

    /// The strongest bin (above DC), refined between bins (see the type's documentation).
    public var peak: (frequencyHz: Double, levelDB: Double) {
        Self.peak(binCount: binCount, binWidth: sampleRate / Double(size), window: window, power: { Double(averagePower[$0]) }) { levelDB(bin: $0) }
    }

    /// One fractional-octave band: nominal centre, edges and power level in dBFS.
    public struct Band: Sendable { public var centerHz, lowerHz, upperHz, levelDB: Double }

    /// Fractional-octave bands (`fraction` = 1, 3 or 6 per octave) from 20 Hz to min(20 kHz, Nyquist).
    public func bands(fraction b: Int) -> [Band] {
        Self.bands(fraction: b, sampleRate: sampleRate, size: size, windowSquareSum: windowSquareSum) { Double(averagePower[$0]) }
    }

    // MARK: The maths, shared with `spectrum` nodes, whose control side reads published powers.

    /// 20·log10(2·√power / Σw): a full-scale sine reads 0 dBFS at its peak bin.
    public static func levelDB(power p: Double, windowSum: Double) -> Double {
        p > 0 ? 20 * log10(2 * p.squareRoot() / windowSum) : -200
    }

    /// The strongest bin above DC, refined by fitting the window's own main lobe
    /// (``SpectrumWindow/mainLobe(atBinOffset:)``) to the levels of the bins around it: the
    /// offset δ ∈ [−½, ½] whose lobe shape best explains the level differences of bins −2…2
    /// (least squares in dB), and the level the lobe's top has there. Exact for a lone sine
    /// with every window (a parabola through three dB levels is exact for none: with a
    /// flat-top, whose lobe is flat across ±1 bin, it read a 997 Hz sine at 997.74 Hz).
    /// `power` finds the strongest bin (any quantity that grows with the level: no logarithm
    /// per bin, as a live meter reads this for every analyser frame); `level` is asked for the
    /// five bins around it.
    public static func peak(binCount: Int, binWidth: Double, window: SpectrumWindow, power: (Int) -> Double, level: (Int) -> Double) -> (frequencyHz: Double, levelDB: Double) {
        var best = 1, strongest = power(1)
        for k in 2..<(binCount - 1) { let p = power(k); if p > strongest { strongest = p; best = k } }
        let centre = level(best)
        let offsets = (-2...2).filter { $0 != 0 && best + $0 >= 1 && best + $0 < binCount }
        let measured = offsets.map { level(best + $0) - centre }
        func lobeDB(_ x: Double) -> Double { 20 * log10(max(window.mainLobe(atBinOffset: x), 1e-12)) }
        func residual(_ delta: Double) -> Double {
            let top = lobeDB(-delta)
            var sum = 0.0
            for (i, j) in offsets.enumerated() {
                // Bins far down the skirt (noise, a neighbour) count less than those near the top.
                let model = lobeDB(Double(j) - delta) - top
                let weight = 1 / (1 + max(0, -model - 20) / 10)
                sum += weight * (model - measured[i]) * (model - measured[i])
            }
            return sum
        }
        // Coarse scan, then golden-section refinement around the best coarse point.
        var delta = 0.0, lowest = Double.infinity
        // (21 coarse points and 32 golden steps: 5e-8 bins, at half the cost of a finer scan;
        // a live page reads this for every analyser frame.)
        for i in 0...20 {
            let d = -0.5 + Double(i) / 20
            let r = residual(d)
            if r < lowest { lowest = r; delta = d }
        }
        var lo = max(-0.5, delta - 0.05), hi = min(0.5, delta + 0.05)
        let g = (5.0.squareRoot() - 1) / 2
        for _ in 0..<32 {
            let x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo)
            if residual(x1) < residual(x2) { hi = x2 } else { lo = x1 }
        }
        delta = (lo + hi) / 2
        return ((Double(best) + delta) * binWidth, centre - lobeDB(-delta))
    }

    /// Band powers from bin powers |X[k]|² (edge bins weighted by their overlap with the band;
    /// see ``SpectrumBandTable``, which a repeated reader keeps).
    public static func bands(fraction b: Int, sampleRate: Double, size: Int, windowSquareSum: Double, power: (Int) -> Double) -> [Band] {
        SpectrumBandTable(fraction: b, sampleRate: sampleRate, size: size, windowSquareSum: windowSquareSum).bands(power: power)
    }
}

/// An owning wrapper of a ``SpectrumKernel`` for offline callers.
public final class SpectrumAnalyzer {
    public let kernel: SpectrumKernel

    public static let sizes = SpectrumKernel.sizes

    public init(size: Int, sampleRate: Double, channelCount: Int = 1, window: SpectrumWindow = .hann,
                overlap: Double = 0.5, averagingSeconds: Double = 0) {
        kernel = SpectrumKernel(size: size, sampleRate: sampleRate, channelCount: channelCount, window: window,
                                overlap: overlap, averagingSeconds: averagingSeconds)
    }

    public var size: Int { kernel.size }
    public var sampleRate: Double { kernel.sampleRate }
    public var binCount: Int { kernel.binCount }
    /// Frames analysed so far.
    public var frames: Int { kernel.frames }
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) { kernel.process(channels, frameCount: frameCount) }
    public func frequency(ofBin k: Int) -> Double { kernel.frequency(ofBin: k) }
    public func levelDB(bin k: Int, peakHold: Bool = false) -> Double { kernel.levelDB(bin: k, peakHold: peakHold) }
    public func levelsDB(peakHold: Bool = false) -> [Double] { kernel.levelsDB(peakHold: peakHold) }
    public func bands(fraction b: Int) -> [SpectrumKernel.Band] { kernel.bands(fraction: b) }
    public var peak: (frequencyHz: Double, levelDB: Double) { kernel.peak }
}

extension SpectrumKernel: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A Hann-windowed analyser of `size` points (50 % overlap, no averaging) for `format`.
    public init?(_ size: Int, format: KernelFormat) {
        guard Self.sizes.contains(size) else { return nil }
        self.init(size: size, sampleRate: format.sampleRate, channelCount: format.channelCount)
    }

    /// Back to no samples seen: history, averages and peaks cleared.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        history.update(repeating: 0, count: channelCount * size)
        for k in 0..<binCount { framePower[k] = 0; averagePower[k] = 0; peakPower[k] = 0 }
        counters[0] = 0; counters[1] = 0
    }

    /// Takes over `previous`'s history, averages, peaks and position (same size, hop and channels).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing SpectrumKernel) {
        guard previous.size == size, previous.hop == hop, previous.channelCount == channelCount else { return }
        for i in 0..<(channelCount * size) { history[i] = previous.history[i] }
        for k in 0..<binCount { averagePower[k] = previous.averagePower[k]; peakPower[k] = previous.peakPower[k] }
        counters[0] = previous.counters[0]; counters[1] = previous.counters[1]
    }

    /// Clears everything if NaN or infinity reached the history or the averages; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        guard NonFiniteScan.contains(history, count: channelCount * size) || NonFiniteScan.contains(averagePower, count: binCount)
            || NonFiniteScan.contains(peakPower, count: binCount) else { return false }
        reset()
        return true
    }
}
