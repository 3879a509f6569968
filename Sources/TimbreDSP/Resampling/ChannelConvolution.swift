import CTimbreSupport

/// One output frame of every channel: the dot product of `weights` (`taps` long) with each
/// channel's Double history from `offset` (channel c at `history + c × stride`), written as
/// Float to `output[c][frame]`. Stereo pairs share each weight load (`timbre_dot2_f64`); the C
/// kernels are dispatched at run time (AVX2+FMA or portable) and neither allocate nor lock.
@usableFromInline @inline(__always) @_noLocks
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
