import CTimbreSupport
import Foundation

/// Frame-by-frame inter-sample peaks for a true-peak limiter, with the ``TruePeakMeter``'s own
/// reconstruction: 4× oversampling by a 64-tap Kaiser-windowed sinc per phase (phase 0 the
/// sample itself) and, at each oversampled local maximum, the vertex of the parabola through
/// it and its neighbours — so the limiter holds the ceiling the meter reads.
///
/// Frame n's value covers the interval from input frame n − 32 (included) to n − 31. Always
/// 4× (the meter drops to 2× above 88.2 kHz as BS.1770 allows; a limiter keeps the finer grid).
///
/// Content near Nyquist: every finite interpolator attenuates it (this one −6 dB at 0.49·fs),
/// so on broadband material the reconstruction under-reads the true peak — after a limiter
/// 0.12 dB over its ceiling on an aliased square and up to 1 dB on white noise to Nyquist, by
/// the ideal 16× FFT reconstruction. Each frame's value therefore adds an allowance:
/// ``highBandAllowance`` times the magnitude of a band-pass over 0.45–0.5·fs (56 taps, see
/// `allocateHighTaps()`) centred on the frame's interval, held over it and the three
/// intervals either side. Music, whose spectrum falls, reads as before; a lone tone between
/// 0.45 and 0.495·fs reads up to 5 dB over its true peak and full-band noise up to 1 dB (a
/// limiter pulls them down further than it needs to: the price of holding the ceiling on
/// noise and squares); a tone at fs/2 itself reads exactly.
///
/// Cost: 192 + 56 multiply-adds and four parabola tests a frame and channel (C,
/// `timbre_true_peak_frames`, AVX2+FMA when the CPU has it: the sums and the tests eight
/// frames at a time), none where a limiter's `floor` shows the signal cannot reach it.
public struct InterSamplePeakDetector: ~Copyable, @unchecked Sendable {
    public static let oversampling = 4
    /// Frames between an input frame and the interval its value covers (see the type's summary).
    public static let delayFrames = TruePeakMeter.tapsPerPhase / 2
    public let channelCount: Int
    let taps: UnsafeMutablePointer<Float>
    /// The high band's weight in a frame's value (see the type's summary): 0.8 held the ceiling
    /// on a second of noise but not on 20 s of sox's stereo white noise (0.38 dB over); 1.5
    /// held sixteen such runs 0.18 dB under at worst.
    public static let highBandAllowance = 1.5
    /// The most any frame's value can exceed the largest input magnitude around it by: the
    /// phases' largest Σ|tap| × 9/8 (a vertex rises at most 1/8 above the largest of its three
    /// points) plus the allowance's Σ|tap|.
    public let reconstructionGain: Double
    /// The allowance's band-pass, scaled by ``highBandAllowance`` (56 taps).
    let highTaps: UnsafeMutablePointer<Float>
    /// Per channel ``TruePeakMeter``'s state: the last 63 samples and the last two magnitudes.
    let state: UnsafeMutablePointer<Float>

    public init(channelCount: Int) {
        self.channelCount = channelCount
        let taps = TruePeakMeter.allocateTaps(oversampling: Self.oversampling), n = TruePeakMeter.tapsPerPhase
        self.taps = taps
        let highTaps = Self.allocateHighTaps()
        self.highTaps = highTaps
        let high = (0..<Self.highTapCount).reduce(0.0) { $0 + Double(abs(highTaps[$1])) }
        reconstructionGain = (0..<(Self.oversampling - 1)).map { p in (0..<n).reduce(0.0) { $0 + Double(abs(taps[p * n + $1])) } }.max()! * 9 / 8 + high
        state = .allocate(capacity: channelCount * TruePeakMeter.stateSize)
        state.initialize(repeating: 0, count: channelCount * TruePeakMeter.stateSize)
    }

    deinit { taps.deallocate(); highTaps.deallocate(); state.deallocate() }

    static let highTapCount = 56

    /// The allowance's band-pass: an ideal high-pass above 0.45·fs delayed by half a sample
    /// (h[m] = sinc(m) − 0.9·sinc(0.9·m) at the half-integer offsets m from the centre;
    /// Oppenheim & Schafer, "Discrete-Time Signal Processing", §7.2, for windowed ideal designs),
    /// Kaiser window β = 6, times ``highBandAllowance``. Even length and symmetric (type II), so
    /// it is zero at Nyquist itself, where the samples are the signal's peaks and the
    /// reconstruction is exact: −60 dB at 0.40·fs, −6 at 0.45, −0.8 at 0.47, −5.8 at 0.49, −25
    /// at 0.499. Oldest sample first.
    static func allocateHighTaps() -> UnsafeMutablePointer<Float> {
        let n = highTapCount, half = Double(n - 1) / 2
        let taps = UnsafeMutablePointer<Float>.allocate(capacity: n)
        let sinc = { (x: Double) in sin(Double.pi * x) / (Double.pi * x) }
        for k in 0..<n {
            let m = Double(k) - half
            let ideal = sinc(m) - 0.9 * sinc(0.9 * m)
            taps[k] = Float(ideal * KaiserWindow.value(at: m, halfWidth: half, beta: 6) * highBandAllowance)
        }
        return taps
    }

    public func reset() { state.update(repeating: 0, count: channelCount * TruePeakMeter.stateSize) }

    /// Clears the samples and magnitudes carried if NaN or an infinity is among them; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        guard NonFiniteScan.contains(state, count: channelCount * TruePeakMeter.stateSize) else { return false }
        reset()
        return true
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from other: borrowing InterSamplePeakDetector) {
        guard other.channelCount == channelCount else { return }
        for k in 0..<(channelCount * TruePeakMeter.stateSize) { state[k] = other.state[k] }
    }

    /// Feeds `frameCount` frames and writes each frame's peak into `peaks[c · stride + i]`.
    ///
    /// `floor` > 0: a caller that only needs to know which frames rise above `floor` (a
    /// limiter's ceiling) lets stretches of up to 256 frames whose samples are too small for
    /// any reconstructed value to reach it (under `floor` / ``reconstructionGain``, with a
    /// 0.1 % margin for rounding) go without the filter; their frames read just under `floor`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                        into peaks: UnsafeMutablePointer<Float>, stride: Int, floor: Float = 0) {
        let quiet = floor > 0 ? Float(Double(floor) / reconstructionGain * 0.999) : 0
        let bound = floor > 0 ? floor.nextDown : 0
        let taps = taps, highTaps = highTaps, state = state  // (trivial locals: no closure over a non-copyable `self`)
        for c in 0..<channelCount {
            _unsafePerformance {
                timbre_true_peak_frames(taps, highTaps, Int32(Self.oversampling), state + c * TruePeakMeter.stateSize, channels[c], frameCount, peaks + c * stride,
                                        quiet, bound)
            }
        }
    }

    /// ``process(_:frameCount:into:stride:floor:)`` on the portable path, whatever the CPU
    /// (tests compare the dispatched path with it).
    public func processPortable(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                                into peaks: UnsafeMutablePointer<Float>, stride: Int) {
        for c in 0..<channelCount {
            timbre_true_peak_frames_portable(taps, highTaps, Int32(Self.oversampling), state + c * TruePeakMeter.stateSize, channels[c], frameCount,
                                             peaks + c * stride, 0, 0)
        }
    }
}

extension InterSamplePeakDetector: ContinuableAudioKernel {
    /// A detector for `format`'s channels.
    public init?(_ setup: Void, format: KernelFormat) { self.init(channelCount: format.channelCount) }
}
