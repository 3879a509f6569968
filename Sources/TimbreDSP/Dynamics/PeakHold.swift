import Foundation

/// The running maximum of a stream over its last `span` values (the current one included;
/// values before the first count as 0), by van Herk's and Gil-Werman's method: the stream is cut
/// into segments of `span` values at fixed positions, and the maximum over a window is that of
/// the previous segment's tail (kept as suffix maxima, computed once per segment) and the
/// current segment's head (a running maximum) — two comparisons a value, no branches on the
/// data, and the result does not depend on how the stream is cut into blocks.
///
/// ``TruePeakLimiter`` holds each frame's peak with one so its gain is at or below what every
/// peak in the span needs; `--normalize`'s trials hold a whole file's peaks once and run the
/// limiter's later stages at several gains on them. Non-copyable (``AudioKernel``): `deinit`
/// frees its storage.
public struct PeakHold: ~Copyable, @unchecked Sendable {
    /// Values the maximum is taken over.
    public let span: Int
    /// The current segment's values (`span`).
    let segment: UnsafeMutablePointer<Float>
    /// The previous segment's suffix maxima (`span` + 1, the last 0).
    let suffix: UnsafeMutablePointer<Float>
    /// [0] the position in the segment, [1] the bit pattern of the current segment's maximum so far.
    let state: UnsafeMutablePointer<Int>

    public init(span: Int) {
        precondition(span >= 1)
        self.span = span
        segment = .allocate(capacity: span)
        suffix = .allocate(capacity: span + 1)
        state = .allocate(capacity: 2)
        segment.initialize(repeating: 0, count: span)
        suffix.initialize(repeating: 0, count: span + 1)
        state.initialize(repeating: 0, count: 2)
    }

    deinit { segment.deallocate(); suffix.deallocate(); state.deallocate() }

    /// Back to an empty history (every earlier value 0).
    public func reset() {
        segment.update(repeating: 0, count: span)
        suffix.update(repeating: 0, count: span + 1)
        state[0] = 0; state[1] = Int(Float(0).bitPattern)
    }

    /// Continues `other` (same span).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from other: borrowing PeakHold) {
        guard other.span == span else { return }
        for k in 0..<span { segment[k] = other.segment[k] }
        for k in 0...span { suffix[k] = other.suffix[k] }
        state[0] = other.state[0]; state[1] = other.state[1]
    }

    /// `out[i]` = the maximum of the last `span` values up to and including `x[i]`. `out` may be `x`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ x: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
        let h = span, seg = segment, suf = suffix
        var position = state[0], head = Float(bitPattern: UInt32(truncatingIfNeeded: state[1]))
        for i in 0..<count {
            let v = x[i]
            head = position == 0 ? v : max(head, v)
            seg[position] = v
            let held = max(suf[position + 1], head)
            position += 1
            if position == h {
                var m: Float = 0, j = h - 1
                while j >= 0 { m = max(m, seg[j]); suf[j] = m; j -= 1 }
                position = 0
            }
            out[i] = held
        }
        state[0] = position; state[1] = Int(head.bitPattern)
    }

    /// Clears the history if NaN or an infinity is in it; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = !Float(bitPattern: UInt32(truncatingIfNeeded: state[1])).isFinite || !suffix[span].isFinite
        for k in 0..<span where !segment[k].isFinite || !suffix[k].isFinite { bad = true }
        if bad { reset() }
        return bad
    }

    /// True when every value in the history is at or under `limit`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func isQuiet(under limit: Float) -> Bool {
        suffix[0] <= limit && (state[0] == 0 || Float(bitPattern: UInt32(truncatingIfNeeded: state[1])) <= limit)
    }

    /// Moves on by `count` values that are all at or under a limit the history is quiet under
    /// (``isQuiet(under:)``): they are taken as 0, which changes no maximum that matters to a
    /// caller comparing with that limit — every maximum it will see is either over the limit
    /// (and set by a later value) or under it, as it would have been.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func skipQuiet(count: Int) {
        let h = span
        var position = state[0], left = count, wrapped = false
        while left > 0 {
            let step = min(left, h - position)
            for k in position..<(position + step) { segment[k] = 0 }
            position += step; left -= step
            if position == h { position = 0; wrapped = true }  // (the suffix maxima kept are all under the limit too)
        }
        if wrapped { state[1] = Int(Float(0).bitPattern) }
        state[0] = position
    }
}

extension PeakHold: ContinuableAudioKernel {
    /// A running maximum over `span` values (one stream; the format's channels are not used).
    public init?(_ span: Int, format: KernelFormat) { self.init(span: span) }
}
