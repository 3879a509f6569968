/// Triangular-PDF dither for integer output (libsndfile has none).
///
/// Adds `(u1 − u2) · LSB` with u1, u2 independent uniform on [0, 1), i.e. triangular noise
/// spanning ±1 LSB, before libsndfile rounds to the integer format. This removes the
/// signal-dependent quantisation distortion at the cost of noise (Lipshitz, Wannamaker &
/// Vanderkooy, "Quantization and Dither: A Theoretical Survey", JAES 1992).
/// The noise of sample k (counted over the interleaved samples written, from 0) is a hash of
/// k and a fixed seed (SplitMix64's finaliser: Steele, Lea & Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014): renders are reproducible, output does not
/// depend on the block size, and — no sample waiting on the one before — the loop runs at
/// the multipliers' throughput rather than a generator's latency. Each hash gives both
/// uniforms (its top 24 bits and the 24 below them).
package struct TPDFDither: Sendable {
    package let lsb: Float
    let seed: UInt64
    /// Samples dithered so far.
    var counter: UInt64 = 0

    /// Dither for `bits`-bit integer output (libsndfile maps ±1.0 to ±2^(bits−1)).
    package init(bits: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        lsb = 1 / Float(1 << (bits - 1))
        self.seed = seed
    }

    /// (u1 − u2) for sample `k`: u1, u2 uniform on [0, 1) in steps of 2⁻²⁴.
    @inline(__always) static func triangular(_ k: UInt64, seed: UInt64) -> Float {
        var z = seed &+ k &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let u1 = Float(Int32(truncatingIfNeeded: z >> 40)), u2 = Float(Int32(truncatingIfNeeded: (z >> 16) & 0xFF_FFFF))
        return (u1 - u2) * (1 / 16_777_216)
    }

    /// Adds dither to an interleaved buffer in place.
    package mutating func apply(_ samples: UnsafeMutablePointer<Float>, count: Int) {
        let first = counter, seed = seed, lsb = lsb
        for i in 0..<count {
            samples[i] += Self.triangular(first &+ UInt64(i), seed: seed) * lsb
        }
        counter &+= UInt64(count)
    }
}
