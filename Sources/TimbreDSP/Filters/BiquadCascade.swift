/// A cascade of second-order sections over planar `Float` buffers, state carried across blocks.
///
/// Transposed direct form II, computed in `Double` with channels as SIMD lanes: channels are
/// processed in pairs as `SIMD2<Double>` (an odd last channel runs in lane 0 beside a silent
/// lane). Samples go through every section before the next sample is read, so intermediate
/// values never round to `Float`:
///
/// ```
/// for each frame n:  x = in[n]
///   for each section k:  y = b0·x + s1;  s1 = b1·x − a1·y + s2;  s2 = b2·x − a2·y;  x = y
///   out[n] = Float(x)
/// ```
///
/// Memory: `prepare` allocates coefficient and state storage once; `process` never allocates.
/// The struct holds raw pointers so copying it is free and never reference-counts; the owner
/// calls `deallocate()` exactly once (the engine does this on the control thread).
public struct BiquadCascade {
    /// Layout of `state`, one block of `2 × sectionCount` lanes per channel pair:
    /// ```
    /// pair 0: [s1 sec0][s2 sec0][s1 sec1][s2 sec1] …   pair 1: …
    /// ```
    @usableFromInline var state: UnsafeMutablePointer<SIMD2<Double>>
    /// `sectionCount × 5` doubles: b0 b1 b2 a1 a2 per section.
    @usableFromInline var coefficients: UnsafeMutablePointer<Double>
    public let sectionCount: Int
    public let channelCount: Int
    @usableFromInline var pairCount: Int { (channelCount + 1) / 2 }

    /// Allocates storage for `sections` on `channelCount` channels with cleared state.
    public init(sections: [BiquadCoefficients], channelCount: Int) {
        precondition(channelCount >= 1)
        let active = sections.filter { !$0.isIdentity }
        self.sectionCount = active.count
        self.channelCount = channelCount
        coefficients = .allocate(capacity: max(1, active.count * 5))
        let pairs = (channelCount + 1) / 2
        state = .allocate(capacity: max(1, pairs * active.count * 2))
        state.initialize(repeating: .zero, count: max(1, pairs * active.count * 2))
        for (k, c) in active.enumerated() {
            (coefficients + 5 * k).initialize(from: [c.b0, c.b1, c.b2, c.a1, c.a2], count: 5)
        }
    }

    /// Frees the storage. Call once, off the render thread.
    public func deallocate() {
        state.deallocate()
        coefficients.deallocate()
    }

    /// Copies `other`'s filter memory into this cascade (same section and channel counts), so a
    /// redesigned filter continues where the old one was instead of starting from silence.
    @_noLocks
    public func copyState(from other: BiquadCascade) {
        guard other.sectionCount == sectionCount, other.channelCount == channelCount, sectionCount > 0 else { return }
        for i in 0..<(pairCount * sectionCount * 2) { state[i] = other.state[i] }
    }

    /// True when any state value is NaN or infinite (a non-finite input reached this filter).
    /// Real-time safe; reads `2 × sectionCount` lanes per channel pair.
    @inlinable public var hasNonFiniteState: Bool { nonFiniteStateCheck() }

    @inlinable @_noLocks
    func nonFiniteStateCheck() -> Bool {
        var bad = false
        for i in 0..<(pairCount * sectionCount * 2) {
            let v = state[i]
            bad = bad || !(v.x.isFinite && v.y.isFinite)
        }
        return bad
    }

    /// Clears the filter state (as if preceded by silence). Real-time safe.
    @inlinable @_noLocks
    public func reset() {
        for i in 0..<max(1, pairCount * sectionCount * 2) { state[i] = .zero }
    }

    /// Filters `frameCount` frames in place. `channels[c]` points at channel c's samples.
    /// Real-time safe: no allocation, locks or calls outside this function.
    @inlinable @_noLocks
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if sectionCount == 0 || frameCount == 0 { return }
        var pair = 0
        var c = 0
        while c < channelCount {
            let left = channels[c]
            let right: UnsafeMutablePointer<Float>? = c + 1 < channelCount ? channels[c + 1] : nil
            let st = state + pair * sectionCount * 2
            if let right {
                for n in 0..<frameCount {
                    var x = SIMD2<Double>(Double(left[n]), Double(right[n]))
                    x = run(x, st)
                    left[n] = Float(x.x); right[n] = Float(x.y)
                }
            } else {
                for n in 0..<frameCount {
                    let x = run(SIMD2<Double>(Double(left[n]), 0), st)
                    left[n] = Float(x.x)
                }
            }
            c += 2; pair += 1
        }
    }

    @inlinable @inline(__always)
    func run(_ input: SIMD2<Double>, _ st: UnsafeMutablePointer<SIMD2<Double>>) -> SIMD2<Double> {
        var x = input
        for k in 0..<sectionCount {
            let co = coefficients + 5 * k
            let s1 = st + 2 * k, s2 = st + 2 * k + 1
            let y = co[0] * x + s1.pointee
            s1.pointee = co[1] * x - co[3] * y + s2.pointee
            s2.pointee = co[2] * x - co[4] * y
            x = y
        }
        return x
    }
}
