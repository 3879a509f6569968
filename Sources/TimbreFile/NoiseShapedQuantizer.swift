import TimbreDSP

/// Requantises interleaved float samples to a `bits`-bit integer grid with TPDF dither and
/// an error-feedback noise shaper (`NoiseShape` documents the loop and its designs).
///
/// Per channel the last errors are kept, so the result does not depend on how the stream is
/// cut into blocks; the dither is `TPDFDither`'s (a hash of the sample's index), so renders
/// repeat. An error is held within ±2 LSB before it is fed back (it lies within ±1.5 LSB
/// unless the sample clipped): a clipped peak cannot make the loop run away.
package struct NoiseShapedQuantizer: Sendable {
    package let bits: Int
    let scale: Double
    let coefficients: [Double]
    let channelCount: Int
    /// Per channel, the last `coefficients.count` errors (in LSB), newest first.
    var errors: [Double]
    var dither: TPDFDither
    let dithered: Bool

    /// Nil when `shape` has no design near `sampleRate`. `dithered` false: rounding alone
    /// (with `.tpdf`, plain requantisation to a shorter word).
    package init?(shape: NoiseShape, bits: Int, sampleRate: Double, channelCount: Int, dithered: Bool = true) {
        guard let c = shape.coefficients(sampleRate: sampleRate) else { return nil }
        self.bits = bits
        scale = Double(1 << (bits - 1))
        coefficients = c
        self.channelCount = channelCount
        errors = [Double](repeating: 0, count: max(1, c.count) * channelCount)
        dither = TPDFDither(bits: bits)
        self.dithered = dithered
    }

    /// Quantises `count` interleaved samples in place (`count` a multiple of the channels).
    package mutating func apply(_ samples: UnsafeMutablePointer<Float>, count: Int) {
        let taps = coefficients.count, nc = channelCount, scale = scale, top = scale - 1
        let first = dither.counter, seed = dither.seed, amount: Double = dithered ? 1 : 0
        coefficients.withUnsafeBufferPointer { c in
            errors.withUnsafeMutableBufferPointer { e in
                for i in 0..<count {
                    let history = e.baseAddress! + (i % nc) * max(1, taps)
                    // The wanted value in LSB, the fed-back errors taken away.
                    var v = Double(samples[i]) * scale
                    if !v.isFinite { v = 0 }
                    for j in 0..<taps { v -= c[j] * history[j] }
                    let d = amount * Double(TPDFDither.triangular(first &+ UInt64(i), seed: seed))
                    let q = min(top, max(-scale, (v + d).rounded()))
                    if taps > 0 {
                        var j = taps - 1
                        while j > 0 { history[j] = history[j - 1]; j -= 1 }
                        history[0] = min(2, max(-2, q - v))
                    }
                    samples[i] = Float(q / scale)
                }
            }
        }
        dither.counter &+= UInt64(count)
    }
}
