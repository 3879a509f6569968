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
/// `timbre_true_peak_frames`, AVX2+FMA when the CPU has it).
public struct InterSamplePeakDetector: @unchecked Sendable {
    public static let oversampling = 4
    /// Frames between an input frame and the interval its value covers (see the type's summary).
    public static let delayFrames = TruePeakMeter.tapsPerPhase / 2
    public let channelCount: Int
    let taps: UnsafeMutablePointer<Float>
    /// Per channel ``TruePeakMeter``'s state: the last 63 samples and the last two magnitudes.
    let state: UnsafeMutablePointer<Float>

    public init(channelCount: Int) {
        self.channelCount = channelCount
        taps = TruePeakMeter.allocateTaps(oversampling: Self.oversampling)
        state = .allocate(capacity: channelCount * TruePeakMeter.stateSize)
        state.initialize(repeating: 0, count: channelCount * TruePeakMeter.stateSize)
    }

    public func deallocate() { taps.deallocate(); state.deallocate() }

    public func reset() { state.update(repeating: 0, count: channelCount * TruePeakMeter.stateSize) }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func copyState(from other: InterSamplePeakDetector) {
        guard other.channelCount == channelCount else { return }
        for k in 0..<(channelCount * TruePeakMeter.stateSize) { state[k] = other.state[k] }
    }

    /// Feeds `frameCount` frames and writes each frame's peak into `peaks[c · stride + i]`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                        into peaks: UnsafeMutablePointer<Float>, stride: Int) {
        for c in 0..<channelCount {
            _unsafePerformance {
                timbre_true_peak_frames(taps, Int32(Self.oversampling), state + c * TruePeakMeter.stateSize, channels[c], frameCount, peaks + c * stride)
            }
        }
    }
}
