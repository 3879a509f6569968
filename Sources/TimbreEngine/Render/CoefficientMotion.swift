import Atomics
import TimbreDSP

/// A live change of a filter or EQ node's continuous parameters (frequency, gain, Q), carried
/// into its sections inside the running cascade: no plan is compiled, nothing crossfades.
///
/// The control thread designs the path: the parameters interpolated (frequency and Q on a log
/// scale, gain in dB) in steps small enough that neighbouring designs are close (at most a
/// sixth of an octave, 1 dB), each point designed exactly as a compile would (the matched
/// designs included), at most ``maximumPoints``. The audio thread walks it in sub-blocks of
/// ``subBlockFrames`` frames, counted from the cascade's own start (so the walk does not
/// depend on the host's block size): within a sub-block the coefficients are constant (as x42
/// fil4 moves its filters in 32-sample chunks); from one sub-block to the next they move in a
/// straight line from where they are to the next point. A biquad's stable denominators
/// form a triangle (|a2| < 1, |a1| < 1 + a2), which is convex: every coefficient set on a line
/// between two stable designs is stable, so no step of the walk is an unstable filter. The
/// last point is written exactly, so a settled filter equals a fresh compile of the document.
///
/// ```
///   control thread                       audio thread (each sub-block, one atomic exchange)
///   design points P1…PK ──publish──▶ pending ──take──▶ walker: from → P1 → … → PK
///                        ◀──free──── retired ◀─hand back── the walk it replaced
/// ```
/// One motion per filter node in a plan (it lives and dies with the plan); a new plan starts
/// from its document's designs, so a motion never has to cross plans.
package final class CoefficientMotion {
    /// Sub-block length of the walk.
    package static let subBlockFrames = 32
    /// The most design points of one walk.
    package static let maximumPoints = 16
    static let retiredCount = 8

    /// The node's sections in its cascade.
    package let offset: Int
    package let sections: Int
    /// The published walk the audio thread has not taken yet.
    let pending: UnsafeAtomic<UnsafeMutableRawPointer?>
    /// Walks the audio thread has finished with, for the control thread to free.
    let retired: UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>>
    /// The audio thread's own state: the walk, where it is, and the coefficients it left.
    let walker: UnsafeMutablePointer<Walker>

    struct Walker {
        var walk: UnsafeMutableRawPointer?
        var point = 0
        var step = 0
        var moving = false
        /// `sections × 5` coefficients: where this leg of the walk started.
        let from: UnsafeMutablePointer<Double>
    }

    package init(offset: Int, sections: Int) {
        self.offset = offset; self.sections = sections
        pending = .create(nil)
        retired = .allocate(capacity: Self.retiredCount)
        for k in 0..<Self.retiredCount { (retired + k).initialize(to: .create(nil)) }
        let from = UnsafeMutablePointer<Double>.allocate(capacity: max(1, sections * 5))
        from.initialize(repeating: 0, count: max(1, sections * 5))
        walker = .allocate(capacity: 1)
        walker.initialize(to: Walker(from: from))
    }

    deinit {
        if let p = pending.load(ordering: .acquiring) { Self.free(p) }
        pending.destroy()
        for k in 0..<Self.retiredCount {
            if let p = retired[k].load(ordering: .acquiring) { Self.free(p) }
            retired[k].destroy()
        }
        retired.deallocate()
        if let w = walker.pointee.walk { Self.free(w) }
        walker.pointee.from.deallocate()
        walker.deinitialize(count: 1)
        walker.deallocate()
    }

    // MARK: Control thread

    /// Publishes a walk through `points` (each `sections` coefficient sets), `stepsPerPoint`
    /// sub-blocks each; a walk published before and not yet taken is dropped. Frees the walks
    /// the audio thread handed back.
    package func publish(_ points: [[BiquadCoefficients]], stepsPerPoint: Int) {
        precondition(!points.isEmpty && points.allSatisfy { $0.count == sections })
        collect()
        // Layout: point count, steps per point, then points × sections × (b0 b1 b2 a1 a2).
        let count = 2 + points.count * sections * 5
        let walk = UnsafeMutablePointer<Double>.allocate(capacity: count)
        walk[0] = Double(points.count); walk[1] = Double(max(1, stepsPerPoint))
        var i = 2
        for point in points {
            for c in point { for v in [c.b0, c.b1, c.b2, c.a1, c.a2] { walk[i] = v; i += 1 } }
        }
        if let unconsumed = pending.exchange(UnsafeMutableRawPointer(walk), ordering: .acquiringAndReleasing) { Self.free(unconsumed) }
    }

    /// Frees the walks the audio thread has handed back.
    package func collect() {
        for k in 0..<Self.retiredCount {
            if let p = retired[k].exchange(nil, ordering: .acquiring) { Self.free(p) }
        }
    }

    static func free(_ p: UnsafeMutableRawPointer) { p.assumingMemoryBound(to: Double.self).deallocate() }

    /// What the audio thread holds: raw pointers into this motion's memory (no reference to
    /// the class, so nothing is retained on the audio thread). Valid while the motion lives.
    package var handle: Handle { Handle(pending: pending, retired: retired, walker: walker, offset: offset, sections: sections) }

    package struct Handle {
        let pending: UnsafeAtomic<UnsafeMutableRawPointer?>
        let retired: UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>>
        let walker: UnsafeMutablePointer<Walker>
        let offset: Int
        let sections: Int
    }
}

extension CoefficientMotion.Handle {

    /// True when a walk is in progress or waiting.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func isActive() -> Bool { walker.pointee.moving || pending.load(ordering: .relaxed) != nil }

    /// One sub-block of the walk: takes a newly published walk (handing the old one back),
    /// then moves the sections one step. Real-time safe: atomics and stores only.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func advance(_ cascade: borrowing BiquadCascade) {
        let w = walker
        if pending.load(ordering: .relaxed) != nil, let slot = freeRetiredSlot(), let next = pending.exchange(nil, ordering: .acquiring) {
            if let old = w.pointee.walk { retired[slot].store(old, ordering: .releasing) }
            w.pointee.walk = next; w.pointee.point = 0; w.pointee.step = 0; w.pointee.moving = true
            for s in 0..<sections {
                let c = cascade.section(offset + s), f = w.pointee.from + 5 * s
                f[0] = c.b0; f[1] = c.b1; f[2] = c.b2; f[3] = c.a1; f[4] = c.a2
            }
        }
        guard w.pointee.moving, let walk = w.pointee.walk?.assumingMemoryBound(to: Double.self) else { return }
        let points = Int(walk[0]), steps = Int(walk[1])
        w.pointee.step += 1
        let target = walk + 2 + w.pointee.point * sections * 5, from = w.pointee.from
        let last = w.pointee.step >= steps
        let t = Double(w.pointee.step) / Double(steps)
        for s in 0..<sections {
            let f = from + 5 * s, g = target + 5 * s
            let c = last ? BiquadCoefficients(b0: g[0], b1: g[1], b2: g[2], a1: g[3], a2: g[4])
                : BiquadCoefficients(b0: f[0] + (g[0] - f[0]) * t, b1: f[1] + (g[1] - f[1]) * t, b2: f[2] + (g[2] - f[2]) * t,
                                     a1: f[3] + (g[3] - f[3]) * t, a2: f[4] + (g[4] - f[4]) * t)
            cascade.setSection(offset + s, to: c)
        }
        guard last else { return }
        for k in 0..<(sections * 5) { from[k] = target[k] }
        w.pointee.step = 0
        w.pointee.point += 1
        if w.pointee.point >= points { w.pointee.moving = false }
    }

    /// A retired slot the control thread has emptied, if any.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func freeRetiredSlot() -> Int? {
        for k in 0..<CoefficientMotion.retiredCount where retired[k].load(ordering: .relaxed) == nil { return k }
        return nil
    }
}
