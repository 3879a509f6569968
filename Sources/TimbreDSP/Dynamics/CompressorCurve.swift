/// The static curve of a compressor: output level against input level, in dB, with a soft knee.
///
/// Giannoulis, Massberg and Reiss, "Digital Dynamic Range Compressor Design — A Tutorial and
/// Analysis", JAES 60(6), 2012, eq. (4): with threshold T, ratio R and knee width W,
///
/// ```
/// y = x                                   2(x − T) < −W
/// y = x + (1/R − 1)(x − T + W/2)² / 2W    2|x − T| ≤ W
/// y = T + (x − T)/R                       2(x − T) > W
/// ```
/// R = ∞ is a limiter's curve (1/R = 0).
public struct CompressorCurve: Sendable, Equatable {
    public var thresholdDB: Double
    /// 1…∞ (`.infinity` allowed).
    public var ratio: Double
    /// The knee's width in dB (0: a hard knee).
    public var kneeDB: Double

    public init(thresholdDB: Double, ratio: Double, kneeDB: Double = 0) {
        self.thresholdDB = thresholdDB; self.ratio = ratio; self.kneeDB = kneeDB
    }

    /// The output level for an input level `x` (both dB).
    @inlinable
    public func outputDB(_ x: Double) -> Double {
        let over = x - thresholdDB, slope = 1 / ratio - 1
        if 2 * over < -kneeDB { return x }
        // The knee's quadratic only where there is a knee: with W = 0 the middle case would be
        // 0/0 exactly at the threshold (a level equal to T, or automatic makeup at T = 0).
        if kneeDB > 0 && 2 * abs(over) <= kneeDB { let d = over + kneeDB / 2; return x + slope * d * d / (2 * kneeDB) }
        if over <= 0 { return x }
        return thresholdDB + over / ratio
    }

    /// The gain the curve applies at input level `x`: `outputDB(x) − x`, never positive.
    @inlinable
    public func gainDB(_ x: Double) -> Double { outputDB(x) - x }

    /// Automatic makeup: the reduction the curve applies at 0 dBFS, given back.
    public var automaticMakeupDB: Double { -gainDB(0) }
}
