import CTimbreSupport
import Foundation

/// Frame-by-frame inter-sample peaks for a true-peak limiter, with the ``TruePeakMeter``'s own
/// reconstruction: 4× oversampling by a 64-tap Kaiser-windowed sinc per phase (phase 0 the
/// sample itself) and, at each oversampled local maximum, the vertex of the parabola through
/// it and its neighbours — so the limiter holds the ceiling the meter reads.
///
/// Frame n's value covers the interval from input frame n − 32 (included) to n − 31. Always
/// 4× (the meter drops to 2× above 88.2 kHz as BS.1770 allows; a limiter keeps the finer grid).
/// Cost: 192 multiply-adds and four parabola tests a frame and channel (C,
/// `timbre_true_peak_frames`, AVX2+FMA when the CPU has it: the sums and the tests eight
/// frames at a time), none where a limiter's `floor` shows the signal cannot reach it.
public struct InterSamplePeakDetector: @unchecked Sendable {
    public static let oversampling = 4
    /// Frames between an input frame and the interval its value covers (see the type's summary).
    public static let delayFrames = TruePeakMeter.tapsPerPhase / 2
    public let channelCount: Int
    let taps: UnsafeMutablePointer<Float>
    /// The most any reconstructed value or parabola vertex can exceed the largest input
    /// magnitude around it by: the phases' largest Σ|tap| × 9/8 (a vertex rises at most 1/8
    /// above the largest of its three points).
    public let reconstructionGain: Double
    /// Per channel ``TruePeakMeter``'s state: the last 63 samples and the last two magnitudes.
    let state: UnsafeMutablePointer<Float>

    public init(channelCount: Int) {
        self.channelCount = channelCount
        let taps = TruePeakMeter.allocateTaps(oversampling: Self.oversampling), n = TruePeakMeter.tapsPerPhase
        self.taps = taps
        reconstructionGain = (0..<(Self.oversampling - 1)).map { p in (0..<n).reduce(0.0) { $0 + Double(abs(taps[p * n + $1])) } }.max()! * 9 / 8
        state = .allocate(capacity: channelCount * TruePeakMeter.stateSize)
        state.initialize(repeating: 0, count: channelCount * TruePeakMeter.stateSize)
    }

    public func deallocate() { taps.deallocate(); state.deallocate() }

    public func reset() { state.update(repeating: 0, count: channelCount * TruePeakMeter.stateSize) }

    /// True when NaN or an infinity is in the samples and magnitudes carried (``reset()`` clears them).
    public var hasNonFiniteState: Bool {
        for k in 0..<(channelCount * TruePeakMeter.stateSize) where !state[k].isFinite { return true }
        return false
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func copyState(from other: InterSamplePeakDetector) {
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
        for c in 0..<channelCount {
            _unsafePerformance {
                timbre_true_peak_frames(taps, Int32(Self.oversampling), state + c * TruePeakMeter.stateSize, channels[c], frameCount, peaks + c * stride,
                                        quiet, bound)
            }
        }
    }

    /// ``process(_:frameCount:into:stride:floor:)`` on the portable path, whatever the CPU
    /// (tests compare the dispatched path with it).
    public func processPortable(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                                into peaks: UnsafeMutablePointer<Float>, stride: Int) {
        for c in 0..<channelCount {
            timbre_true_peak_frames_portable(taps, Int32(Self.oversampling), state + c * TruePeakMeter.stateSize, channels[c], frameCount,
                                             peaks + c * stride, 0, 0)
        }
    }
}
