/// Triangular-PDF dither for integer output (libsndfile has none).
///
/// Adds `(u1 − u2) · LSB` with u1, u2 independent uniform on [0, 1), i.e. triangular noise
/// spanning ±1 LSB, before libsndfile rounds to the integer format. This removes the
/// signal-dependent quantisation distortion at the cost of noise (Lipshitz, Wannamaker &
/// Vanderkooy, "Quantization and Dither: A Theoretical Survey", JAES 1992).
/// The generator is a fixed-seed xorshift64*, so renders are reproducible, and it advances
/// once per sample, so output does not depend on the block size.
package struct TPDFDither: Sendable {
    package let lsb: Float
    var state: UInt64

    /// Dither for `bits`-bit integer output (libsndfile maps ±1.0 to ±2^(bits−1)).
    package init(bits: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        lsb = 1 / Float(1 << (bits - 1))
        state = seed == 0 ? 1 : seed
    }

    @inline(__always) mutating func nextUniform() -> Float {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        let r = state &* 2_685_821_657_736_338_717
        return Float(r >> 40) * (1 / 16_777_216)
    }

    /// Adds dither to an interleaved buffer in place.
    package mutating func apply(_ samples: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            samples[i] += (nextUniform() - nextUniform()) * lsb
        }
    }
}
