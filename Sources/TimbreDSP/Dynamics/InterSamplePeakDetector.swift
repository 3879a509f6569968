import Foundation

/// Frame-by-frame inter-sample peaks for a true-peak limiter: the largest absolute value of the
/// signal reconstructed at 16 points per sample interval, with a 64-tap Kaiser-windowed sinc
/// (β = 8) per point.
///
/// Frame n's value covers the interval from input frame n − 32 (included: phase 0 is the
/// sample itself) to frame n − 31. Why 16 × 64 rather than the meter's 4 × 16: a limiter
/// has to hold its ceiling against an exact reconstruction. On a 4× grid a sine near 0.45·fs can
/// peak 1/8 sample from the nearest point (up to 0.55 dB lower there); at 16× the grid costs at
/// most 0.034 dB. Material with energy up to Nyquist (noise, clipped or square waves) needs
/// the long filter: with 32 taps the limiter let noise bursts through 0.7 dB over the ceiling
/// of a 128-tap reference (DynamicsTests). Cost: 1024 multiply-adds a frame and channel, in
/// 8-lane vectors.
public struct InterSamplePeakDetector: @unchecked Sendable {
    public static let oversampling = 16
    public static let tapsPerPhase = 64
    /// Frames between an input frame and the interval its value covers (see the type's summary).
    public static let delayFrames = tapsPerPhase / 2
    public let channelCount: Int
    /// `oversampling × tapsPerPhase`, phase-major; tap k of a phase multiplies the k-th oldest of the last 64 samples.
    let taps: UnsafeMutablePointer<Float>
    /// Per channel: 2 × 64 history values (each sample written twice: the window is always contiguous).
    let history: UnsafeMutablePointer<Float>
    let cursors: UnsafeMutablePointer<Int>

    public init(channelCount: Int) {
        self.channelCount = channelCount
        let n = Self.tapsPerPhase, l = Self.oversampling
        taps = .allocate(capacity: l * n)
        for p in 0..<l {
            // The point at n/2 − 1 + p/16 in the window of n (oldest first).
            let t = Double(n / 2 - 1) + Double(p) / Double(l)
            for k in 0..<n {
                let d = Double(k) - t
                let sinc = d == 0 ? 1 : sin(Double.pi * d) / (Double.pi * d)
                taps[p * n + k] = Float(sinc * KaiserWindow.value(at: d, halfWidth: Double(n / 2 + 1), beta: 8))
            }
        }
        history = .allocate(capacity: channelCount * 2 * n)
        history.initialize(repeating: 0, count: channelCount * 2 * n)
        cursors = .allocate(capacity: channelCount)
        cursors.initialize(repeating: 0, count: channelCount)
    }

    public func deallocate() { taps.deallocate(); history.deallocate(); cursors.deallocate() }

    public func reset() {
        history.update(repeating: 0, count: channelCount * 2 * Self.tapsPerPhase)
        cursors.update(repeating: 0, count: channelCount)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func copyState(from other: InterSamplePeakDetector) {
        guard other.channelCount == channelCount else { return }
        for k in 0..<(channelCount * 2 * Self.tapsPerPhase) { history[k] = other.history[k] }
        for c in 0..<channelCount { cursors[c] = other.cursors[c] }
    }

    /// Feeds `frameCount` frames and writes each frame's peak into `peaks[c · stride + i]`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                        into peaks: UnsafeMutablePointer<Float>, stride: Int) {
        let n = 64, phases = 16
        let t = UnsafeRawPointer(taps)
        for c in 0..<channelCount {
            let h = history + c * 2 * n, x = channels[c], out = peaks + c * stride
            var at = cursors[c]
            for i in 0..<frameCount {
                let v = x[i]
                h[at] = v; h[at + n] = v
                at = at + 1 == n ? 0 : at + 1
                let w = UnsafeRawPointer(h + at)
                var m: Float = 0
                for p in 0..<phases {
                    let o = p * n * 4
                    var acc = SIMD8<Float>()
                    for j in 0..<(n / 8) {
                        acc += w.loadUnaligned(fromByteOffset: 32 * j, as: SIMD8<Float>.self) * t.loadUnaligned(fromByteOffset: o + 32 * j, as: SIMD8<Float>.self)
                    }
                    m = max(m, abs(acc.sum()))
                }
                out[i] = m
            }
            cursors[c] = at
        }
    }
}
