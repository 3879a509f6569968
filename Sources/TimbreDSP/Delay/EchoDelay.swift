import Foundation

/// A feedback delay (echo): each channel's input written to a ring, read back `delay` frames
/// later — exactly for a whole number of frames, through ``FractionalDelayTable`` between
/// them — the read fed back through a low-cut and a high-cut (second-order sections) at
/// `feedback`, and mixed with the dry input. Stereo ping-pong sends the input's mid into the
/// left line and crosses the feedback, so echoes alternate sides.
///
/// ```
///  x ─┬────────────────────────────── × dry ──┐
///     └─▶ (+) ─▶ ring ─▶ read(D) ─┬── × wet ──(+)─▶ y
///          ▲                      │
///          └─ × feedback ◀─ cut ◀─┘   (ping-pong: from the other channel)
/// ```
///
/// A new delay time is reached without a click either way: ``TimeChange/crossfade`` starts a
/// second read at the new time and crossfades (Hann, ``crossfadeSeconds``) — no pitch change;
/// ``TimeChange/glide`` moves the read smoothly (one-pole, ``glideSeconds``) like a tape
/// head — the pitch bends while it moves. Feedback and mix ramp over 25 ms. Everything runs
/// per frame at absolute positions, so the output does not depend on the block size.
///
/// Reads between samples need ``FractionalDelayTable/halfTaps`` frames (38) behind the write;
/// closer, a four-point Lagrange interpolator (from 2 frames) or a linear one (1 frame) is
/// used. The shortest delay is one frame (the loop needs one).
public struct EchoDelay: ~Copyable, @unchecked Sendable {
    /// How a delay-time change is reached.
    public enum TimeChange: String, Sendable, CaseIterable, Codable {
        case crossfade, glide
    }

    /// The numbers a live edit moves: delay (frames), feedback (−1…1), wet share (0…1), and
    /// the loop's low-cut and high-cut sections (identity when off).
    public struct Values: Sendable, Equatable {
        public var delayFrames: Double
        public var feedback: Double
        public var mix: Double
        public var lowCut: BiquadCoefficients
        public var highCut: BiquadCoefficients
        public init(delayFrames: Double, feedback: Double, mix: Double, lowCut: BiquadCoefficients = .identity, highCut: BiquadCoefficients = .identity) {
            self.delayFrames = delayFrames; self.feedback = feedback; self.mix = mix; self.lowCut = lowCut; self.highCut = highCut
        }
    }

    public static let crossfadeSeconds = 0.05
    public static let glideSeconds = 0.08
    public static let rampSeconds = 0.025

    public let channelCount: Int
    public let change: TimeChange
    public let pingPong: Bool
    /// The longest delay the ring holds, frames.
    public let maximumDelayFrames: Int
    let table: FractionalDelayTable
    /// Per channel: a mirrored ring (each frame written at i and i + capacity, so any window
    /// is contiguous), `2 × capacity` floats.
    let rings: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let capacity: Int
    /// Per channel: low-cut z1, z2, high-cut z1, z2 (transposed direct form II).
    let filterState: UnsafeMutablePointer<Double>
    /// The running state (`State`), one allocation.
    let state: UnsafeMutablePointer<State>
    let crossfadeFrames: Int
    /// The new read's share through a crossfade: 0.5 − 0.5 cos(π k / frames) (Hann).
    let fadeCurve: UnsafeMutablePointer<Float>
    let glideCoefficient: Double
    let rampFrames: Int

    struct State {
        var position = 0
        /// The read in use, the one faded from (crossfade), and where the fade is (−1: none).
        var delay: Double
        var oldDelay: Double
        var fade = -1
        var target: Values
        var lowCut: BiquadCoefficients
        var highCut: BiquadCoefficients
        /// Both cuts off (identity sections): the loop passes the read as it is.
        var filtersOff: Bool
        var feedback: LinearRamp
        var wet: LinearRamp
        var dry: LinearRamp
    }

    /// A delay for `channelCount` channels at `sampleRate`, holding up to `maximumDelayFrames`.
    public init(values: Values, sampleRate: Double, channelCount: Int, maximumDelayFrames: Int, change: TimeChange = .crossfade, pingPong: Bool = false) {
        precondition(channelCount >= 1 && maximumDelayFrames >= 1 && (!pingPong || channelCount == 2))
        self.channelCount = channelCount; self.change = change; self.pingPong = pingPong
        self.maximumDelayFrames = maximumDelayFrames
        table = FractionalDelayTable.shared
        var c = 1
        while c < maximumDelayFrames + table.taps + 4 { c *= 2 }
        capacity = c
        rings = .allocate(capacity: channelCount)
        for k in 0..<channelCount {
            let ring = UnsafeMutablePointer<Float>.allocate(capacity: 2 * c)
            ring.initialize(repeating: 0, count: 2 * c)
            (rings + k).initialize(to: ring)
        }
        filterState = .allocate(capacity: 4 * channelCount)
        filterState.initialize(repeating: 0, count: 4 * channelCount)
        crossfadeFrames = max(1, Int((Self.crossfadeSeconds * sampleRate).rounded()))
        fadeCurve = .allocate(capacity: crossfadeFrames)
        for k in 0..<crossfadeFrames { (fadeCurve + k).initialize(to: Float(0.5 - 0.5 * cos(Double.pi * Double(k) / Double(crossfadeFrames)))) }
        glideCoefficient = 1 - exp(-1 / (Self.glideSeconds * sampleRate))
        rampFrames = max(1, Int((Self.rampSeconds * sampleRate).rounded()))
        let d = Self.clamped(values.delayFrames, maximumDelayFrames)
        state = .allocate(capacity: 1)
        state.initialize(to: State(delay: d, oldDelay: d, target: values, lowCut: values.lowCut, highCut: values.highCut,
                                   filtersOff: Self.passes(values.lowCut) && Self.passes(values.highCut),
                                   feedback: LinearRamp(value: Float(values.feedback)), wet: LinearRamp(value: Float(values.mix)),
                                   dry: LinearRamp(value: Float(1 - values.mix))))
    }

    deinit {
        for k in 0..<channelCount { rings[k].deallocate() }
        rings.deallocate(); filterState.deallocate(); state.deallocate(); fadeCurve.deallocate()
    }

    static func clamped(_ frames: Double, _ maximum: Int) -> Double { min(max(frames, 1), Double(maximum)) }

    /// True for the identity section (compared by value: no global is touched on the audio thread).
    @inline(__always)
    static func passes(_ c: BiquadCoefficients) -> Bool { c.b0 == 1 && c.b1 == 0 && c.b2 == 0 && c.a1 == 0 && c.a2 == 0 }

    /// Moves to new values (audio thread, at a block's start): the time by crossfade or
    /// glide, feedback and mix by 25 ms ramps, the loop filters at once.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ values: Values) {
        var v = values
        v.delayFrames = Self.clamped(values.delayFrames, maximumDelayFrames)
        state.pointee.target = v
        state.pointee.lowCut = v.lowCut
        state.pointee.highCut = v.highCut
        state.pointee.filtersOff = Self.passes(v.lowCut) && Self.passes(v.highCut)
        state.pointee.feedback.setTarget(Float(v.feedback), frames: rampFrames)
        state.pointee.wet.setTarget(Float(v.mix), frames: rampFrames)
        state.pointee.dry.setTarget(Float(1 - v.mix), frames: rampFrames)
    }

    /// The delayed signal of channel `c` at `delay` frames behind the frame about to be written.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func read(_ c: Int, delay: Double, at position: Int) -> Float {
        let ring = rings[c], mask = capacity - 1
        let whole = Int(delay), fraction = delay - Double(whole)
        if fraction == 0 { return ring[(position - whole) & mask] }
        // Between base = position − whole − 1 and base + 1, φ = 1 − fraction past base.
        let base = position - whole - 1, phi = Float(1 - fraction)
        let h = table.halfTaps
        if whole >= h {
            // The window base − h + 1 … base + h, contiguous in the mirrored ring.
            return table.read(ring + ((base - h + 1) & mask), fraction: phi)
        }
        let y0 = ring[base & mask], y1 = ring[(base + 1) & mask]
        if whole < 2 { return y0 + phi * (y1 - y0) }
        return LagrangeRead.value(ring[(base - 1) & mask], y0, y1, ring[(base + 2) & mask], at: phi)
    }

    /// One frame's read time, crossfade share and gains; moves `s` on by a frame.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func step(_ s: inout State) -> (newShare: Float, feedback: Float, wet: Float, dry: Float) {
        let target = s.target.delayFrames
        if change == .glide {
            if s.delay != target {
                s.delay += (target - s.delay) * glideCoefficient
                if abs(target - s.delay) < 1e-4 { s.delay = target }
            }
        } else if s.fade < 0 && s.delay != target {
            s.oldDelay = s.delay; s.delay = target; s.fade = 0
        }
        var share: Float = 1
        if s.fade >= 0 { share = fadeCurve[s.fade] }
        let gains = (share, s.feedback.value(at: 0), s.wet.value(at: 0), s.dry.value(at: 0))
        s.feedback.advance(by: 1); s.wet.advance(by: 1); s.dry.advance(by: 1)
        return gains
    }

    /// Moves `s` past the frame just processed.
    @inline(__always)
    func finish(_ s: inout State) {
        s.position += 1
        if s.fade >= 0 {
            s.fade += 1
            if s.fade >= crossfadeFrames { s.fade = -1 }
        }
    }

    /// Channel c's read at this frame (crossfaded while a time change fades).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func delayed(_ c: Int, _ s: State, share: Float) -> Float {
        let r = read(c, delay: s.delay, at: s.position)
        return s.fade >= 0 ? share * r + (1 - share) * read(c, delay: s.oldDelay, at: s.position) : r
    }

    /// Channel c's loop filters (low-cut, then high-cut; transposed direct form II) on `r`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func loop(_ c: Int, _ r: Float, _ s: State) -> Float {
        if s.filtersOff { return r }
        let z = filterState + 4 * c, hp = s.lowCut, lp = s.highCut, u = Double(r)
        let a = hp.b0 * u + z[0]
        z[0] = hp.b1 * u - hp.a1 * a + z[1]; z[1] = hp.b2 * u - hp.a2 * a
        let b = lp.b0 * a + z[2]
        z[2] = lp.b1 * a - lp.a1 * b + z[3]; z[3] = lp.b2 * a - lp.a2 * b
        return Float(b)
    }

    @inline(__always)
    func write(_ c: Int, _ value: Float, at position: Int) {
        let at = position & (capacity - 1)
        rings[c][at] = value; rings[c][at + capacity] = value
    }

    /// Processes `frameCount` frames of every channel in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let start = state.pointee
        var s = start
        if pingPong {
            // Left line: the input's mid plus the right read's loop; right line: the left's.
            let l = channels[0], r = channels[1]
            for i in 0..<frameCount {
                let g = step(&s)
                let a = delayed(0, s, share: g.newShare), b = delayed(1, s, share: g.newShare)
                let fa = loop(0, a, s), fb = loop(1, b, s)
                let xl = l[i], xr = r[i]
                write(0, 0.5 * (xl + xr) + g.feedback * fb, at: s.position)
                write(1, g.feedback * fa, at: s.position)
                l[i] = g.dry * xl + g.wet * a
                r[i] = g.dry * xr + g.wet * b
                finish(&s)
            }
        } else {
            // Channel by channel, each replaying the same time and gain motion from the block's start.
            for c in 0..<channelCount {
                s = start
                let x = channels[c]
                for i in 0..<frameCount {
                    let g = step(&s)
                    let d = delayed(c, s, share: g.newShare)
                    let input = x[i]
                    write(c, input + g.feedback * loop(c, d, s), at: s.position)
                    x[i] = g.dry * input + g.wet * d
                    finish(&s)
                }
            }
        }
        state.pointee = s
    }
}

extension EchoDelay {
    /// Silence before: the rings and loop filters cleared, the time at its target, no fade.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for c in 0..<channelCount { rings[c].update(repeating: 0, count: 2 * capacity) }
        filterState.update(repeating: 0, count: 4 * channelCount)
        state.pointee.delay = state.pointee.target.delayFrames
        state.pointee.oldDelay = state.pointee.delay
        state.pointee.fade = -1
        state.pointee.position = 0
    }

    /// Takes over `previous`'s line (what its reads can still reach), loop filters, time and
    /// ramps — the echoes in flight continue — then moves to this kernel's values as a live
    /// edit would. Copies only the reachable part of the ring (the longest delay in use and
    /// the interpolator's reach), so a short delay is cheap to carry over.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing EchoDelay) {
        guard previous.channelCount == channelCount, previous.pingPong == pingPong else { return }
        let p = previous.state.pointee
        let reach = min(Int(max(p.delay, p.oldDelay)) + table.taps + 2, min(capacity, previous.capacity))
        let mask = capacity - 1, previousMask = previous.capacity - 1
        for c in 0..<channelCount {
            let to = rings[c], from = previous.rings[c]
            for k in 1...reach {
                let value = from[(p.position - k) & previousMask], at = (p.position - k) & mask
                to[at] = value; to[at + capacity] = value
            }
        }
        for k in 0..<(4 * channelCount) { filterState[k] = previous.filterState[k] }
        let values = state.pointee.target
        state.pointee = p
        state.pointee.delay = Self.clamped(p.delay, maximumDelayFrames)
        state.pointee.oldDelay = Self.clamped(p.oldDelay, maximumDelayFrames)
        retune(values)
    }

    /// Clears the line and loop filters if NaN or infinity reached them; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for k in 0..<(4 * channelCount) where !filterState[k].isFinite { bad = true }
        for c in 0..<channelCount where !bad { bad = NonFiniteScan.contains(rings[c], count: 2 * capacity) }
        guard bad else { return false }
        for c in 0..<channelCount { rings[c].update(repeating: 0, count: 2 * capacity) }
        filterState.update(repeating: 0, count: 4 * channelCount)
        return true
    }
}

extension EchoDelay: InPlaceAudioKernel, ContinuableAudioKernel {
    /// An echo of `values` for `format`'s channels, holding up to 5 s at its rate, crossfading
    /// time changes.
    public init?(_ values: Values, format: KernelFormat) {
        let maximum = Int(5 * format.sampleRate)
        guard values.delayFrames <= Double(maximum) else { return nil }
        self.init(values: values, sampleRate: format.sampleRate, channelCount: format.channelCount, maximumDelayFrames: maximum)
    }
}
