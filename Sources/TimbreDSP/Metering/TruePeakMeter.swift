import CTimbreSupport
import Foundation

/// Inter-sample ("true") peak of planar audio by oversampling, after ITU-R BS.1770-4 Annex 2,
/// with the peak between grid points found by a parabola.
///
/// The signal is upsampled by ``oversampling`` (4 below 88.2 kHz, 2 up to 192 kHz, 1 above, as
/// the Recommendation asks) with a polyphase windowed-sinc interpolator of 64 taps per phase,
/// phases at p/L of a sample after each input sample (phase 0 is the sample itself):
///
/// ```
/// h_p[k] = sinc(k − t_p) · w(k − t_p),   t_p = 31 + p/L,   k = 0 … 63 (oldest first)
/// ```
/// w a Kaiser window (β = 8, half-width 33), each phase normalised to unity gain at DC so a
/// constant reads exactly its value. At every local maximum of the oversampled magnitudes the
/// vertex of the parabola through it and its two neighbours, y₁ + (y₀ − y₂)² / 8(2y₁ − y₀ − y₂),
/// is taken as the peak there (a grid alone reads a sine near 0.45·fs up to 0.55 dB low at 4×,
/// 1/8 sample from its crest).
///
/// Measured (TruePeakTests): sines from 100 Hz to 0.45·fs at 16 phases, 44.1 and 48 kHz, read
/// 0.000 dB under to 0.001 dB over their amplitude (libebur128 on the same sines: up to 0.08 dB
/// over); a 0.25·fs sine at 45° (its crest between samples) reads its amplitude within 0.01 dB
/// where the 4× grid alone reads 0.168 dB low; EBU Tech 3341 cases 15–23 within 0.021 dB.
/// Cost: 192 multiply-adds and four parabola tests per sample (C, `timbre_true_peak_block`),
/// except in stretches too quiet to raise the peak already found.
/// The limiter uses the same reconstruction (`InterSamplePeakDetector`): 64 taps rather than
/// 32 because its ceiling has to hold on square waves and noise, where 32 taps read 0.02 dB low.
///
/// Memory: per channel the last 63 samples and the last two magnitudes, allocated in `init`;
/// `process` never allocates. Non-copyable (``AudioKernel``): `deinit` frees it.
public struct TruePeakMeter: ~Copyable {
    public let oversampling: Int
    public let channelCount: Int
    @usableFromInline static let tapsPerPhase = 64
    /// Floats of state per channel: 63 samples, 2 magnitudes.
    @usableFromInline static let stateSize = 65
    /// `(oversampling − 1) × 64` coefficients, phase-major (phase 1 first), oldest sample first.
    @usableFromInline let taps: UnsafeMutablePointer<Float>
    @usableFromInline let state: UnsafeMutablePointer<Float>
    @usableFromInline let peaks: UnsafeMutablePointer<Float>
    /// The most a reconstructed value can exceed the samples around it by (the phases' largest
    /// Σ|tap| × 9/8): stretches whose samples times this stay under the peak so far are skipped.
    @usableFromInline let reconstructionGain: Float

    public init(sampleRate: Double, channelCount: Int) {
        oversampling = sampleRate < 88_200 ? 4 : sampleRate <= 192_000 ? 2 : 1
        self.channelCount = channelCount
        let taps = Self.allocateTaps(oversampling: oversampling), n = Self.tapsPerPhase
        self.taps = taps
        var largest = 1.0
        for p in 0..<max(1, oversampling - 1) {
            var sum = 0.0
            for k in 0..<n { sum += Double(abs(taps[p * n + k])) }
            largest = max(largest, sum)
        }
        reconstructionGain = Float(largest * 9 / 8)
        state = .allocate(capacity: channelCount * Self.stateSize)
        state.initialize(repeating: 0, count: channelCount * Self.stateSize)
        peaks = .allocate(capacity: channelCount)
        peaks.initialize(repeating: 0, count: channelCount)
    }

    /// The interpolator's `(L − 1) × 64` coefficients (room for three phases), phase-major,
    /// oldest sample first, each phase normalised to unity gain at DC (see the type's summary).
    static func allocateTaps(oversampling l: Int) -> UnsafeMutablePointer<Float> {
        let n = tapsPerPhase
        let taps = UnsafeMutablePointer<Float>.allocate(capacity: 3 * n)
        taps.initialize(repeating: 0, count: 3 * n)
        for p in 1..<max(l, 1) {
            let t = Double(n / 2 - 1) + Double(p) / Double(l)
            let phase = (0..<n).map { k -> Double in
                let d = Double(k) - t
                let sinc = d == 0 ? 1 : sin(Double.pi * d) / (Double.pi * d)
                return sinc * KaiserWindow.value(at: d, halfWidth: Double(n / 2 + 1), beta: 8)
            }
            let sum = phase.reduce(0, +)
            for k in 0..<n { taps[(p - 1) * n + k] = Float(phase[k] / sum) }
        }
        return taps
    }

    deinit { taps.deallocate(); state.deallocate(); peaks.deallocate() }

    public func reset() {
        state.update(repeating: 0, count: channelCount * Self.stateSize)
        peaks.update(repeating: 0, count: channelCount)
    }

    /// Continues `other`'s measurement (same rate and channel count).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from other: borrowing TruePeakMeter) {
        guard other.channelCount == channelCount, other.oversampling == oversampling else { return }
        for k in 0..<(channelCount * Self.stateSize) { state[k] = other.state[k] }
        for c in 0..<channelCount { peaks[c] = other.peaks[c] }
    }

    /// Feeds `frameCount` frames of planar `channels`. Allocation-free (the loop is C:
    /// `timbre_true_peak_block`: eight outputs of every phase per AVX2+FMA vector when the CPU
    /// has them, plain vectorisable loops otherwise).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        // (Trivial locals: a closure over a non-copyable `self` would box it.)
        let taps = taps, state = state, peaks = peaks, oversampling = oversampling, reconstructionGain = reconstructionGain
        for c in 0..<channelCount {
            peaks[c] = _unsafePerformance {
                timbre_true_peak_block(taps, Int32(oversampling), state + c * Self.stateSize, channels[c], frameCount, peaks[c], reconstructionGain)
            }
        }
    }

    /// `process` on the portable path whatever the CPU; tests compare the two.
    public func processPortable(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        for c in 0..<channelCount {
            peaks[c] = timbre_true_peak_block_portable(taps, Int32(oversampling), state + c * Self.stateSize, channels[c], frameCount, peaks[c], reconstructionGain)
        }
    }

    /// True when `process` runs the AVX2+FMA loop (chosen once at load; `TIMBRE_NO_AVX2=1` declines it).
    public static var usesAVX2: Bool { timbre_true_peak_uses_avx2() != 0 }

    /// Largest true peak per channel, linear.
    public func peak(channel c: Int) -> Float { peaks[c] }
    /// The largest true peak over all channels, linear.
    public var peak: Float { (0..<channelCount).map { peaks[$0] }.max() ?? 0 }
    /// The largest true peak in dBTP (−inf for silence).
    public var peakDBTP: Double { 20 * log10(Double(peak)) }
}

extension TruePeakMeter: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A meter for `format`'s rate and channels.
    public init?(_ setup: Void, format: KernelFormat) { self.init(sampleRate: format.sampleRate, channelCount: format.channelCount) }

    /// Zeroes NaN and infinity among the samples carried and the peaks; true when there was some.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        let carried = NonFiniteScan.zero(state, count: channelCount * Self.stateSize)
        return NonFiniteScan.zero(peaks, count: channelCount) || carried
    }
}
