import Foundation

/// Chorus and flanger: each channel's input read back through `voices` delay taps whose
/// times swing around a centre with a ``LowFrequencyOscillator`` (the voices' oscillators
/// spread evenly over a cycle, each channel's `stereoPhase` cycles on from the previous),
/// the taps' mean fed back into the line, and mixed with the dry input (Zölzer, DAFX §3.3:
/// the chorus and flanger as modulated delay lines).
///
/// ```
/// d_v(n) = centre + depth · (2·lfo(φ + v/voices + c·stereoPhase) − 1),  never under 2 frames
/// w(n) = x(n) + feedback · mean_v line(n − d_v(n)),   y(n) = (1 − mix)·x(n) + mix · mean_v line(n − d_v(n))
/// ```
///
/// The moving reads are four-point Lagrange (third order: smooth in the read position, so
/// the sweep has no clicks at any depth or rate; its high-frequency droop at a half-frame
/// position is about −1 dB at 0.4 × the rate, the colour every modulated delay has). Depth,
/// centre, feedback and mix ramp over 25 ms when they change; a rate change keeps the phase.
///
/// The oscillators are worked out at every 8th frame of the stream (its absolute position)
/// and drawn straight between — one libm cosine per voice and 8 frames instead of per frame;
/// a 10 Hz sine so drawn is within 1.4·10⁻⁵ of its curve (16 frames made the square's edges
/// click at 10 Hz with −95 % feedback in `ChorusNodeTests`; 8 do not). The phase is a function of the
/// position (from the last rate change), not a running sum. The block runs in chunks no
/// longer than the shortest delay in them, voice by voice, so no chunk reads what it writes:
/// each value the same arithmetic wherever a block or chunk starts — the same output for
/// every block size.
public struct ModulatedDelay: ~Copyable, @unchecked Sendable {
    /// The numbers a live edit moves (frames and fractions).
    public struct Values: Sendable, Equatable {
        public var rateHz: Double
        public var centreFrames: Double
        public var depthFrames: Double
        public var feedback: Double
        public var mix: Double
        public init(rateHz: Double, centreFrames: Double, depthFrames: Double, feedback: Double, mix: Double) {
            self.rateHz = rateHz; self.centreFrames = centreFrames; self.depthFrames = depthFrames; self.feedback = feedback; self.mix = mix
        }
    }

    public let channelCount: Int
    public let voices: Int
    public let stereoPhase: Double
    public let sampleRate: Double
    /// Frames the ring holds (a power of two, at least the longest read and 4).
    let capacity: Int
    let rings: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let state: UnsafeMutablePointer<State>
    /// One chunk's centre, depth and summed taps (``chunkFrames`` each).
    let rows: UnsafeMutablePointer<Double>
    let rampFrames: Int
    static let chunkFrames = 64
    /// Frames between the oscillators' exact values.
    static let segmentFrames = 8

    struct State {
        var position = 0
        /// `oscillator.phase` is the phase at `position`; the phase at any frame t is
        /// `origin.phase + (t − origin.position) · increment` (cycles), from the last rate change.
        var origin: (position: Int, phase: Double) = (0, 0)
        var oscillator: LowFrequencyOscillator
        var centre: LinearRamp
        var depth: LinearRamp
        var feedback: LinearRamp
        var wet: LinearRamp
        var dry: LinearRamp
    }

    /// The longest read `values` may ever ask for is `maximumFrames` (centre + depth).
    public init(values: Values, shape: LowFrequencyOscillator.Shape, voices: Int, stereoPhase: Double, sampleRate: Double,
                channelCount: Int, maximumFrames: Int) {
        precondition(voices >= 1 && channelCount >= 1 && maximumFrames >= 1)
        self.channelCount = channelCount; self.voices = voices; self.stereoPhase = stereoPhase; self.sampleRate = sampleRate
        var c = 4
        while c < maximumFrames + 8 { c *= 2 }
        capacity = c
        rings = .allocate(capacity: channelCount)
        for k in 0..<channelCount {
            let ring = UnsafeMutablePointer<Float>.allocate(capacity: c)
            ring.initialize(repeating: 0, count: c)
            (rings + k).initialize(to: ring)
        }
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        rows = .allocate(capacity: 3 * Self.chunkFrames)
        rows.initialize(repeating: 0, count: 3 * Self.chunkFrames)
        state = .allocate(capacity: 1)
        state.initialize(to: State(oscillator: LowFrequencyOscillator(shape: shape, frequencyHz: values.rateHz, sampleRate: sampleRate),
                                   centre: LinearRamp(value: Float(values.centreFrames)), depth: LinearRamp(value: Float(values.depthFrames)),
                                   feedback: LinearRamp(value: Float(values.feedback)), wet: LinearRamp(value: Float(values.mix)),
                                   dry: LinearRamp(value: Float(1 - values.mix))))
    }

    deinit {
        for k in 0..<channelCount { rings[k].deallocate() }
        rings.deallocate(); state.deallocate(); rows.deallocate()
    }

    /// Moves to new values (audio thread, at a block's start).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ v: Values) {
        state.pointee.origin = (state.pointee.position, state.pointee.oscillator.phase)
        state.pointee.oscillator.setFrequency(v.rateHz, sampleRate: sampleRate)
        state.pointee.centre.setTarget(Float(v.centreFrames), frames: rampFrames)
        state.pointee.depth.setTarget(Float(v.depthFrames), frames: rampFrames)
        state.pointee.feedback.setTarget(Float(v.feedback), frames: rampFrames)
        state.pointee.wet.setTarget(Float(v.mix), frames: rampFrames)
        state.pointee.dry.setTarget(Float(1 - v.mix), frames: rampFrames)
    }

    /// Channel c's line `delay` frames (≥ 2) behind the frame about to be written: four-point Lagrange.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func read(_ c: Int, delay: Double, at position: Int) -> Float {
        LagrangeRead.read(rings[c], mask: capacity - 1, delay: min(max(delay, 2), Double(capacity - 4)), at: position)
    }

    /// The oscillator's value (0…1) for `offset` cycles on, at the segment boundary `frame`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    static func oscillator(_ s: State, offset: Double, at frame: Int) -> Double {
        LowFrequencyOscillator.value(s.oscillator.shape, at: s.oscillator.phase(at: frame, from: s.origin, offset: offset))
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let s = state.pointee
        let mask = capacity - 1, scale = 1 / Float(voices), chunkLimit = Self.chunkFrames, segment = Self.segmentFrames
        let centres = rows, depths = rows + chunkLimit, taps = rows + 2 * chunkLimit
        // Every read in a chunk is older than the chunk: the chunk is shorter than the shortest delay.
        let shortest = Double(min(s.centre.start, s.centre.target)) - Double(max(s.depth.start, s.depth.target))
        let chunk = max(1, min(chunkLimit, Int(min(max(shortest, 2), Double(capacity))) - 1))
        for c in 0..<channelCount {
            let x = channels[c], ring = rings[c]
            var done = 0
            while done < frameCount {
                let n = min(chunk, frameCount - done), t0 = s.position + done
                for f in 0..<n {
                    centres[f] = Double(s.centre.value(at: done + f)); depths[f] = Double(s.depth.value(at: done + f)); taps[f] = 0
                }
                for v in 0..<voices {
                    let offset = Double(v) / Double(voices) + Double(c) * stereoPhase
                    var boundary = Int.min, u0 = 0.0, u1 = 0.0, du = 0.0
                    for f in 0..<n {
                        let t = t0 + f, start = t - (t & (segment - 1))
                        if start != boundary {
                            // The next segment starts where this one ended: its first value is known.
                            u0 = start == boundary + segment ? u1 : Self.oscillator(s, offset: offset, at: start)
                            boundary = start
                            u1 = Self.oscillator(s, offset: offset, at: start + segment)
                            du = (u1 - u0) / Double(segment)
                        }
                        let u = u0 + du * Double(t - start)
                        taps[f] += Double(read(c, delay: centres[f] + depths[f] * (2 * u - 1), at: t))
                    }
                }
                for f in 0..<n {
                    let i = done + f
                    let wet = Float(taps[f]) * scale, input = x[i]
                    ring[(t0 + f) & mask] = input + s.feedback.value(at: i) * wet
                    x[i] = s.dry.value(at: i) * input + s.wet.value(at: i) * wet
                }
                done += n
            }
        }
        var next = s
        next.position = s.position + frameCount
        next.oscillator.phase = s.oscillator.phase(at: next.position, from: s.origin)
        next.centre.advance(by: frameCount); next.depth.advance(by: frameCount); next.feedback.advance(by: frameCount)
        next.wet.advance(by: frameCount); next.dry.advance(by: frameCount)
        state.pointee = next
    }
}

extension ModulatedDelay {
    /// Silence before, the oscillator at its start.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for c in 0..<channelCount { rings[c].update(repeating: 0, count: capacity) }
        state.pointee.position = 0
        state.pointee.oscillator.phase = 0
        state.pointee.origin = (0, 0)
    }

    /// Takes over `previous`'s line, phase and ramps, then moves to this kernel's values.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing ModulatedDelay) {
        guard previous.channelCount == channelCount, previous.capacity == capacity else { return }
        for c in 0..<channelCount {
            let to = rings[c], from = previous.rings[c]
            for k in 0..<capacity { to[k] = from[k] }
        }
        let p = previous.state.pointee, shape = state.pointee.oscillator.shape
        let values = Values(rateHz: state.pointee.oscillator.increment * sampleRate, centreFrames: Double(state.pointee.centre.target),
                            depthFrames: Double(state.pointee.depth.target), feedback: Double(state.pointee.feedback.target), mix: Double(state.pointee.wet.target))
        state.pointee = p
        state.pointee.oscillator.shape = shape
        retune(values)
    }

    /// Clears the line if NaN or infinity reached it; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for c in 0..<channelCount where !bad { bad = NonFiniteScan.contains(rings[c], count: capacity) }
        guard bad else { return false }
        for c in 0..<channelCount { rings[c].update(repeating: 0, count: capacity) }
        return true
    }
}
