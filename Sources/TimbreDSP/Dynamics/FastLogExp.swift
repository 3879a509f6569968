/// Base-2 logarithm and exponential for the dynamics nodes' per-sample gain computer, to
/// within 4e-6 of a doubling (2e-5 dB; measured in FastLogExpTests), several times cheaper
/// than `log10`/`exp` in `Double`, and in eight lanes at a time.
///
/// The exponent comes from the float's bits; the mantissa's part is a short series:
/// log₂ m = (2 / ln 2)·atanh((m − 1)/(m + 1)) with the atanh series to t⁹ for m in [1, 2)
/// (t ≤ 1/3: the first term left out is t¹¹/11 < 3.2e-7), and 2^f = e^(f·ln 2) by its Taylor
/// series to the 7th power for f in [0, 1) (remainder < (ln 2)⁸/8! = 1.3e-6, relative).
/// (Abramowitz and Stegun, 4.1.28 and 4.2.1.) The tests hold the compressor's static curve
/// within 0.1 dB of its formula and its time constants within 5 %; these errors are 10⁴ times
/// smaller.
package enum FastLogExp {
    /// log₂ x for x > 0 (normal floats; subnormals and 0 read as −126).
    @inlinable @inline(__always)
    package static func log2(_ x: Float) -> Float {
        let bits = x.bitPattern
        let exponent = Int32(bitPattern: (bits >> 23) & 0xff) - 127
        if exponent == -127 { return -126 }
        let m = Float(bitPattern: (bits & 0x7f_ffff) | 0x3f80_0000)
        let t = (m - 1) / (m + 1), t2 = t * t
        let series = t * (1 + t2 * (1 / 3 + t2 * (1 / 5 + t2 * (1 / 7 + t2 * (1 / 9)))))
        return Float(exponent) + series * 2.8853900817779268  // 2 / ln 2
    }

    /// 2^y; 0 below −126 (and for NaN), 2^127 above 127. No conversion that can trap: the
    /// whole part comes from the float's bits (a render must survive a non-finite level).
    @inlinable @inline(__always)
    package static func exp2(_ y: Float) -> Float {
        if !(y >= -126) { return 0 }  // also NaN
        let y = min(y, 127)
        let big: Float = 12_582_912  // 1.5·2²³: adding and taking it away rounds to a whole number
        var floored = (y + big) - big
        if floored > y { floored -= 1 }
        let whole = (floored + big).bitPattern &- 0x4B40_0000  // the whole number, two's complement
        let f = (y - floored) * 0.6931471805599453  // f · ln 2
        let p = 1 + f * (1 + f * (1 / 2 + f * (1 / 6 + f * (1 / 24 + f * (1 / 120 + f * (1 / 720 + f * (1 / 5040)))))))
        return p * Float(bitPattern: (whole &+ 127) << 23)
    }
}

extension FastLogExp {
    /// ``log2(_:)-(Float)`` on eight lanes at once.
    @inlinable @inline(__always)
    package static func log2(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
        let exponent = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: (bits &>> 23) & 0xff) &- 127)
        let m = unsafeBitCast((bits & 0x7f_ffff) | 0x3f80_0000, to: SIMD8<Float>.self)
        let t = (m - 1) / (m + 1), t2 = t * t
        var series = t2 * (1 / 9) + (1 / 7)
        series = series * t2 + (1 / 5); series = series * t2 + (1 / 3); series = series * t2 + 1
        return exponent + t * series * 2.8853900817779268
    }

    /// ``exp2(_:)-(Float)`` on eight lanes at once (inputs below −126 give 0).
    @inlinable @inline(__always)
    package static func exp2(_ y: SIMD8<Float>) -> SIMD8<Float> {
        // (Comparisons and blends, not `clamped`, which is not always inlined.)
        var clamped = y.replacing(with: -126, where: y .< -126)
        clamped.replace(with: 127, where: clamped .> 127)
        // Round to the nearest whole by adding and taking away 1.5·2²³ (whose bits then hold the
        // whole number: 0x4B40_0000 + n), then down.
        let big = SIMD8<Float>(repeating: 12_582_912)
        var floored = (clamped + big) - big
        floored.replace(with: floored - 1, where: floored .> clamped)
        let whole = SIMD8<Int32>(truncatingIfNeeded: unsafeBitCast(floored + big, to: SIMD8<UInt32>.self) &- 0x4B40_0000)
        let f = (clamped - floored) * 0.6931471805599453
        var p = f * (1 / 5040) + (1 / 720)
        p = p * f + (1 / 120); p = p * f + (1 / 24); p = p * f + (1 / 6); p = p * f + (1 / 2); p = p * f + 1; p = p * f + 1
        let scale = unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: whole &+ 127) &<< 23, to: SIMD8<Float>.self)
        return (p * scale).replacing(with: 0, where: y .< -126)
    }

    /// `out[i] = scale · log₂(in[i])` for `count` values, −400 where `in[i]` ≤ `floor` (in
    /// place allowed). `scale` 10 / log₂ 10 turns powers into dB, 20 / log₂ 10 amplitudes.
    @inlinable
    package static func decibels(_ input: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int, scale: Float, floor: Float) {
        var i = 0
        let raw = UnsafeRawPointer(input), rawOut = UnsafeMutableRawPointer(out)
        while i + 8 <= count {
            let bits = unsafeBitCast(raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self), to: SIMD8<UInt32>.self)
            let x = unsafeBitCast(bits & 0x7fff_ffff, to: SIMD8<Float>.self)  // |x|
            let db = (log2(x) * scale).replacing(with: -400, where: x .<= floor)
            rawOut.storeBytes(of: db, toByteOffset: 4 * i, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { let x = abs(input[i]); out[i] = x > floor ? scale * log2(x) : -400; i += 1 }
    }

    /// `values[i] = 2^values[i]` for `count` values, in place.
    @inlinable
    package static func exponentiate(_ values: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let raw = UnsafeMutableRawPointer(values)
        while i + 8 <= count {
            raw.storeBytes(of: exp2(raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)), toByteOffset: 4 * i, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { values[i] = exp2(values[i]); i += 1 }
    }

    /// ``log2(_:)-(Float)`` without branches, so that a loop of it vectorises: x at or under
    /// the smallest normal float reads as it (−126).
    @inlinable @inline(__always)
    package static func log2Branchless(_ x: Float) -> Float {
        let bits = Swift.max(x, .leastNormalMagnitude).bitPattern
        let exponent = Float(Int32(bitPattern: bits >> 23) &- 127)
        let m = Float(bitPattern: (bits & 0x7f_ffff) | 0x3f80_0000)
        let t = (m - 1) / (m + 1), t2 = t * t
        let series = t * (1 + t2 * (1 / 3 + t2 * (1 / 5 + t2 * (1 / 7 + t2 * (1 / 9)))))
        return exponent + series * 2.8853900817779268  // 2 / ln 2
    }

    /// 2^y for −126 ≤ y ≤ 127 (clamped) without branches or trapping conversions, so that a
    /// loop of it vectorises: 2^k · e^(f·ln 2) with k the whole number *nearest* y (|f| ≤ ½;
    /// the Taylor remainder to f⁷ is then under 0.35⁸/8! = 5e-9), so that it is exactly 1 at
    /// y = 0 and goes there smoothly — ``exp2(_:)-(Float)``'s floor leaves f near 1 just under
    /// 0, where its error is 1.3e-6.
    @inlinable @inline(__always)
    package static func exp2Nearest(_ y: Float) -> Float {
        let big: Float = 12_582_912  // 1.5·2²³: adding and taking it away rounds to a whole number
        let y = Swift.min(Swift.max(y, -126), 127)
        let whole = (y + big) - big
        let f = (y - whole) * 0.6931471805599453
        let p = 1 + f * (1 + f * (1 / 2 + f * (1 / 6 + f * (1 / 24 + f * (1 / 120 + f * (1 / 720 + f * (1 / 5040)))))))
        let exponent = (whole + big).bitPattern &- 0x4B40_0000  // the whole number, two's complement
        return p * Float(bitPattern: (exponent &+ 127) << 23)
    }
}
