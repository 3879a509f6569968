/// Finds NaN and ±infinity in sample buffers, cheaply enough to run on every block.
///
/// IEEE 754: a `Float` is non-finite exactly when its 8 exponent bits are all ones. Adding
/// 2²³ to the masked exponent carries into bit 31 only in that case, so OR-ing
/// `(bits & 0x7F80_0000) &+ 0x0080_0000` over a buffer and testing bit 31 answers the
/// question with integer operations the compiler vectorises (no branch per sample, no
/// floating-point reduction order to respect).
public enum NonFiniteScan {
    /// True when any of the first `count` samples of `samples` is NaN or infinite.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public static func contains(_ samples: UnsafePointer<Float>, count: Int) -> Bool {
        var acc: UInt32 = 0
        for i in 0..<count {
            acc |= (samples[i].bitPattern & 0x7F80_0000) &+ 0x0080_0000
        }
        return acc & 0x8000_0000 != 0
    }

    /// Sets every NaN or infinite value among the first `count` of `values` to zero; true if
    /// there was one. For clearing a kernel's memory after non-finite input (real-time safe).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public static func zero(_ values: UnsafeMutablePointer<Float>, count: Int) -> Bool {
        guard contains(values, count: count) else { return false }
        for i in 0..<count where !values[i].isFinite { values[i] = 0 }
        return true
    }

    /// ``zero(_:count:)`` for `Double` memory.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public static func zero(_ values: UnsafeMutablePointer<Double>, count: Int) -> Bool {
        var found = false
        for i in 0..<count where !values[i].isFinite { values[i] = 0; found = true }
        return found
    }

    /// The index of the first NaN or infinite sample, or nil (for error messages; not real-time critical).
    public static func firstIndex(_ samples: UnsafePointer<Float>, count: Int) -> Int? {
        guard contains(samples, count: count) else { return nil }
        return (0..<count).first { !samples[$0].isFinite }
    }
}
