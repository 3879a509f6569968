import CTimbreSupport

// The per-channel Double history both resamplers keep (appended as input arrives, dropped as
// the kernel moves past it) and the convolution that reads it.

/// One output frame of every channel: the dot product of `weights` (`taps` long) with each
/// channel's Double history from `offset` (channel c at `history + c × stride`), written as
/// Float to `output[c][frame]`. Stereo pairs share each weight load (`timbre_dot2_f64`); the C
/// kernels are dispatched at run time (AVX2+FMA or portable) and neither allocate nor lock.
#if TIMBRE_REALTIME_CHECKS
@_noLocks
#endif
@usableFromInline @inline(__always)
func convolveChannels(_ weights: UnsafePointer<Double>, taps: Int, history: UnsafeMutablePointer<Double>, stride: Int,
                      offset: Int, channelCount: Int, output: UnsafePointer<UnsafeMutablePointer<Float>>, frame n: Int) {
    var c = 0
    while c + 1 < channelCount {
        let x0 = UnsafePointer(history + c * stride + offset), x1 = x0 + stride
        var y0 = 0.0, y1 = 0.0
        _unsafePerformance { timbre_dot2_f64(weights, x0, x1, taps, &y0, &y1) }
        output[c][n] = Float(y0); output[c + 1][n] = Float(y1)
        c += 2
    }
    if c < channelCount {
        let x = UnsafePointer(history + c * stride + offset)
        output[c][n] = Float(_unsafePerformance { timbre_dot_f64(weights, x, taps) })
    }
}

/// Appends `frames` input frames of every channel, as Double, after the `held` frames of
/// history (channel c at `history + c × stride`).
#if TIMBRE_REALTIME_CHECKS
@_noLocks
#endif
@usableFromInline @inline(__always)
func appendHistory(_ input: UnsafePointer<UnsafePointer<Float>>, frames: Int, to history: UnsafeMutablePointer<Double>,
                   stride: Int, held: Int, channelCount: Int) {
    for c in 0..<channelCount {
        let h = history + c * stride + held, x = input[c]
        for i in 0..<frames { h[i] = Double(x[i]) }
    }
}

/// Drops the first `count` of `total` history frames of every channel (moves the rest to the front).
#if TIMBRE_REALTIME_CHECKS
@_noLocks
#endif
@usableFromInline @inline(__always)
func dropHistory(_ count: Int, of total: Int, in history: UnsafeMutablePointer<Double>, stride: Int, channelCount: Int) {
    guard count > 0 else { return }
    for c in 0..<channelCount {
        let h = history + c * stride
        for i in 0..<(total - count) { h[i] = h[i + count] }
    }
}
