import Foundation
import CTimbreSupport

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
/// and drawn straight between — for the sine, one cosine and one sine of the stream's phase
/// per 8 frames, each voice and channel that phase turned by its own offset (the angle-sum
/// identity); the other shapes one evaluation per voice and 8 frames; a 10 Hz sine so drawn is within 1.4·10⁻⁵ of its curve (16 frames made the square's edges
/// click at 10 Hz with −95 % feedback in `ChorusNodeTests`; 8 do not). The phase is a function of the
/// position (from the last rate change), not a running sum. The block runs in chunks no
/// longer than the shortest delay in them, voice by voice, so no chunk reads what it writes:
/// each value the same arithmetic wherever a block or chunk starts — the same output for
/// every block size. A voice's reads over a chunk are `timbre_modulated_voice` (C: 8 frames a
/// step in AVX2 lanes with gathered taps when the CPU has AVX2 and FMA, chosen once at load;
/// a portable loop otherwise), in Float.
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
    /// cos and sin of 2π·(v/voices + c·stereoPhase) for channel c's voice v: a sine
    /// oscillator's voices are the stream's phase turned by these (one cosine and one sine a
    /// segment for every voice and channel, not one cosine each).
    let rotations: UnsafeMutablePointer<Double>
    /// cos and sin of the phase at a chunk's segment boundaries.
    let angles: UnsafeMutablePointer<Double>
    /// One chunk's centre, depth and summed taps (``rowStride`` each: a segment of padding,
    /// the chunk, a segment of padding — the voices' reads run whole segments), then the
    /// oscillator at a voice's segment boundaries.
    let rows: UnsafeMutablePointer<Float>
    let rampFrames: Int
    static let chunkFrames = 64
    /// Frames between the oscillators' exact values.
    static let segmentFrames = 8
    static let rowStride = chunkFrames + 2 * segmentFrames

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
        rows = .allocate(capacity: 4 * Self.rowStride)
        rows.initialize(repeating: 0, count: 4 * Self.rowStride)
        rotations = .allocate(capacity: 2 * channelCount * voices)
        for c in 0..<channelCount {
            for v in 0..<voices {
                let turn = 2 * Double.pi * (Double(v) / Double(voices) + Double(c) * stereoPhase)
                (rotations + 2 * (c * voices + v)).initialize(to: cos(turn))
                (rotations + 2 * (c * voices + v) + 1).initialize(to: sin(turn))
            }
        }
        angles = .allocate(capacity: 2 * Self.rowStride)
        angles.initialize(repeating: 0, count: 2 * Self.rowStride)
        state = .allocate(capacity: 1)
        state.initialize(to: State(oscillator: LowFrequencyOscillator(shape: shape, frequencyHz: values.rateHz, sampleRate: sampleRate),
                                   centre: LinearRamp(value: Float(values.centreFrames)), depth: LinearRamp(value: Float(values.depthFrames)),
                                   feedback: LinearRamp(value: Float(values.feedback)), wet: LinearRamp(value: Float(values.mix)),
                                   dry: LinearRamp(value: Float(1 - values.mix))))
    }

    deinit {
        for k in 0..<channelCount { rings[k].deallocate() }
        rings.deallocate(); state.deallocate(); rows.deallocate(); rotations.deallocate(); angles.deallocate()
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

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let s = state.pointee
        let mask = capacity - 1, scale = 1 / Float(voices), chunkLimit = Self.chunkFrames, segment = Self.segmentFrames
        let pad = Self.segmentFrames, stride = Self.rowStride, longest = Float(capacity - 4)
        let centres = rows + pad, depths = rows + stride + pad, taps = rows + 2 * stride + pad, boundaries = rows + 3 * stride
        let angles = angles, rotations = rotations
        // Every read in a chunk is older than the chunk: the chunk is shorter than the shortest delay.
        let shortest = Double(min(s.centre.start, s.centre.target)) - Double(max(s.depth.start, s.depth.target))
        let chunk = max(1, min(chunkLimit, Int(min(max(shortest, 2), Double(capacity))) - 1))
        let steady = !s.centre.isRamping && !s.depth.isRamping
        let mixSteady = !s.feedback.isRamping && !s.dry.isRamping && !s.wet.isRamping
        let sine = s.oscillator.shape == .sine
        var done = 0
        while done < frameCount {
            let n = min(chunk, frameCount - done), t0 = s.position + done
            if steady {
                for f in 0..<n { centres[f] = s.centre.target; depths[f] = s.depth.target }
            } else {
                for f in 0..<n { centres[f] = s.centre.value(at: done + f); depths[f] = s.depth.value(at: done + f) }
            }
            // The segments of the stream this chunk touches, from the one holding t0.
            let first = t0 - (t0 & (segment - 1)), segments = (t0 + n - first + segment - 1) / segment
            if sine {
                for j in 0...segments {
                    let turn = 2 * Double.pi * s.oscillator.phase(at: first + j * segment, from: s.origin)
                    angles[2 * j] = _unsafePerformance { cos(turn) }; angles[2 * j + 1] = _unsafePerformance { sin(turn) }
                }
            }
            for c in 0..<channelCount {
                let x = channels[c], ring = rings[c]
                for f in 0..<n { taps[f] = 0 }
                for v in 0..<voices {
                    if sine {
                        // 0.5 − 0.5·cos(θ + φ), θ the stream's phase, φ the voice's turn.
                        let r = rotations + 2 * (c * voices + v), cosTurn = r[0], sinTurn = r[1]
                        for j in 0...segments {
                            boundaries[j] = Float(0.5 - 0.5 * (angles[2 * j] * cosTurn - angles[2 * j + 1] * sinTurn))
                        }
                    } else {
                        let offset = Double(v) / Double(voices) + Double(c) * stereoPhase
                        for j in 0...segments { boundaries[j] = Float(s.oscillator.value(at: first + j * segment, from: s.origin, offset: offset)) }
                    }
                    _unsafePerformance { timbre_modulated_voice(ring, Int64(mask), Int64(t0), Int32(n), boundaries, centres, depths, longest, taps) }
                }
                if mixSteady {
                    let feedback = s.feedback.target, dry = s.dry.target, wetGain = s.wet.target
                    for f in 0..<n {
                        let wet = taps[f] * scale, input = x[done + f]
                        ring[(t0 + f) & mask] = input + feedback * wet
                        x[done + f] = dry * input + wetGain * wet
                    }
                } else {
                    for f in 0..<n {
                        let i = done + f
                        let wet = taps[f] * scale, input = x[i]
                        ring[(t0 + f) & mask] = input + s.feedback.value(at: i) * wet
                        x[i] = s.dry.value(at: i) * input + s.wet.value(at: i) * wet
                    }
                }
            }
            done += n
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
