// Reading and replacing one section's coefficients of a running cascade: what a live
// parameter motion (TimbreEngine's `CoefficientMotion`) writes each sub-block.
extension BiquadCascade {
    /// Section `k`'s coefficients (both lanes hold the same values).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func section(_ k: Int) -> BiquadCoefficients {
        let v = k / 2, lane = (k % 2) * 2, c = coefficients + 20 * v + lane
        return BiquadCoefficients(b0: c[0], b1: c[4], b2: c[8], a1: c[12], a2: c[16])
    }

    /// Replaces section `k`'s coefficients (`k` < ``sectionCount``); the state is kept, so the
    /// filter goes on from where it is. Real-time safe: ten stores.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public func setSection(_ k: Int, to s: BiquadCoefficients) {
        let v = k / 2, lane = (k % 2) * 2, c = coefficients + 20 * v + lane
        c[0] = s.b0; c[1] = s.b0; c[4] = s.b1; c[5] = s.b1; c[8] = s.b2; c[9] = s.b2
        c[12] = s.a1; c[13] = s.a1; c[16] = s.a2; c[17] = s.a2
    }
}
