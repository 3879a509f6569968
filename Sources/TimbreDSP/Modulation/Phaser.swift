import Foundation

/// A phaser: `stages` first-order all-pass sections whose break frequency sweeps with a
/// ``LowFrequencyOscillator`` around a centre, the last stage's output fed back to the first
/// (one frame later), mixed with the dry input so the all-passes' phase turns into moving
/// notches (Zölzer, DAFX §2.4.2; Smith, *Physical Audio Signal Processing*, "Phasing").
///
/// ```
/// f(n) = centre · 2^(octaves · (2·lfo − 1)),   a = (tan(π f / rate) − 1) / (tan(π f / rate) + 1)
/// stage: y = a·u + s,  s = u − a·y          (H(z) = (a + z⁻¹) / (1 + a·z⁻¹))
/// ```
///
/// The coefficient is worked out exactly at every 8th frame of the stream (its absolute
/// position) and drawn straight between (no zipper: it moves every frame; the libm calls run
/// once in 8 frames), on each channel's own oscillator phase (`stereoPhase` cycles apart). The
/// phase is a function of the position (from the last rate change), not a running sum: the
/// same output for every block size.
public struct Phaser: ~Copyable, @unchecked Sendable {
    public struct Values: Sendable, Equatable {
        public var rateHz: Double
        public var centreHz: Double
        /// The sweep each side of the centre, in octaves.
        public var octaves: Double
        public var feedback: Double
        public var mix: Double
        public init(rateHz: Double, centreHz: Double, octaves: Double, feedback: Double, mix: Double) {
            self.rateHz = rateHz; self.centreHz = centreHz; self.octaves = octaves; self.feedback = feedback; self.mix = mix
        }
    }

    public let channelCount: Int
    public let stages: Int
    public let stereoPhase: Double
    public let sampleRate: Double
    /// Per channel: `stages` all-pass states, then the fed-back output.
    let memory: UnsafeMutablePointer<Double>
    let state: UnsafeMutablePointer<State>
    let rampFrames: Int

    struct State {
        var position = 0
        /// `oscillator.phase` is the phase at `position`; at frame t it is
        /// `origin.phase + (t − origin.position) · increment`, from the last rate change.
        var origin: (position: Int, phase: Double) = (0, 0)
        var oscillator: LowFrequencyOscillator
        var centre: LinearRamp
        var octaves: LinearRamp
        var feedback: LinearRamp
        var wet: LinearRamp
        var dry: LinearRamp
    }

    public init(values: Values, shape: LowFrequencyOscillator.Shape, stages: Int, stereoPhase: Double, sampleRate: Double, channelCount: Int) {
        precondition(stages >= 1 && channelCount >= 1)
        self.channelCount = channelCount; self.stages = stages; self.stereoPhase = stereoPhase; self.sampleRate = sampleRate
        memory = .allocate(capacity: channelCount * (stages + 1))
        memory.initialize(repeating: 0, count: channelCount * (stages + 1))
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        state = .allocate(capacity: 1)
        state.initialize(to: State(oscillator: LowFrequencyOscillator(shape: shape, frequencyHz: values.rateHz, sampleRate: sampleRate),
                                   centre: LinearRamp(value: Float(values.centreHz)), octaves: LinearRamp(value: Float(values.octaves)),
                                   feedback: LinearRamp(value: Float(values.feedback)), wet: LinearRamp(value: Float(values.mix)),
                                   dry: LinearRamp(value: Float(1 - values.mix))))
    }

    deinit { memory.deallocate(); state.deallocate() }

    /// Moves to new values (audio thread, at a block's start).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func retune(_ v: Values) {
        state.pointee.origin = (state.pointee.position, state.pointee.oscillator.phase)
        state.pointee.oscillator.setFrequency(v.rateHz, sampleRate: sampleRate)
        state.pointee.centre.setTarget(Float(v.centreHz), frames: rampFrames)
        state.pointee.octaves.setTarget(Float(v.octaves), frames: rampFrames)
        state.pointee.feedback.setTarget(Float(v.feedback), frames: rampFrames)
        state.pointee.wet.setTarget(Float(v.mix), frames: rampFrames)
        state.pointee.dry.setTarget(Float(1 - v.mix), frames: rampFrames)
    }

    /// The all-pass coefficient for a break at `hz` (kept below 0.49 × the rate).
    @inline(__always)
    func coefficient(_ hz: Double) -> Double {
        let w = Double.pi * min(hz, 0.49 * sampleRate) / sampleRate
        let t = _unsafePerformance { tan(w) }
        return (t - 1) / (t + 1)
    }

    /// Frames between the coefficient's exact values.
    static let segmentFrames = 8

    /// The all-pass coefficient at `frame` for a channel `offset` cycles on (the ramps read at
    /// the block's frame `at`, never before the block).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func coefficient(_ s: State, offset: Double, frame: Int, at i: Int) -> Double {
        let u = s.oscillator.value(at: frame, from: s.origin, offset: offset)
        let e = Double(s.octaves.value(at: i)) * (2 * u - 1)
        return coefficient(Double(s.centre.value(at: i)) * _unsafePerformance { exp2(e) })
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let s = state.pointee, segment = Self.segmentFrames
        // Channels two at a time in SIMD lanes (the same Double arithmetic per lane as alone:
        // the two all-pass chains run side by side instead of one after the other).
        var c = 0
        while c + 1 < channelCount {
            processPair(channels, c, s, frameCount: frameCount)
            c += 2
        }
        if c < channelCount {
            let x = channels[c], m = memory + c * (stages + 1), offset = Double(c) * stereoPhase
            var boundary = Int.min, a0 = 0.0, a1 = 0.0, da = 0.0
            for i in 0..<frameCount {
                let t = s.position + i, start = t - (t & (segment - 1))
                if start != boundary {
                    // The next segment starts where this one ended: its first value is known.
                    a0 = start == boundary + segment ? a1 : coefficient(s, offset: offset, frame: start, at: max(0, start - s.position))
                    boundary = start
                    a1 = coefficient(s, offset: offset, frame: start + segment, at: start + segment - s.position)
                    da = (a1 - a0) / Double(segment)
                }
                let a = a0 + da * Double(t - start)
                let input = Double(x[i])
                var v = input + Double(s.feedback.value(at: i)) * m[stages]
                for k in 0..<stages {
                    let y = a * v + m[k]
                    m[k] = v - a * y
                    v = y
                }
                m[stages] = v
                x[i] = s.dry.value(at: i) * Float(input) + s.wet.value(at: i) * Float(v)
            }
        }
        var next = s
        next.position = s.position + frameCount
        next.oscillator.phase = s.oscillator.phase(at: next.position, from: s.origin)
        next.centre.advance(by: frameCount); next.octaves.advance(by: frameCount); next.feedback.advance(by: frameCount)
        next.wet.advance(by: frameCount); next.dry.advance(by: frameCount)
        state.pointee = next
    }

    /// Channels c and c + 1 of ``process(_:frameCount:)`` in the two lanes of SIMD2<Double>.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func processPair(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, _ c: Int, _ s: State, frameCount: Int) {
        let segment = Self.segmentFrames, stages = stages
        let x0 = channels[c], x1 = channels[c + 1]
        let m0 = memory + c * (stages + 1), m1 = memory + (c + 1) * (stages + 1)
        let offset0 = Double(c) * stereoPhase, offset1 = Double(c + 1) * stereoPhase
        var boundary = Int.min, a0 = SIMD2<Double>(), a1 = SIMD2<Double>(), da = SIMD2<Double>()
        for i in 0..<frameCount {
            let t = s.position + i, start = t - (t & (segment - 1))
            if start != boundary {
                if start == boundary + segment {
                    a0 = a1
                } else {
                    let at = max(0, start - s.position)
                    a0 = SIMD2(coefficient(s, offset: offset0, frame: start, at: at), coefficient(s, offset: offset1, frame: start, at: at))
                }
                boundary = start
                let at = start + segment - s.position
                a1 = SIMD2(coefficient(s, offset: offset0, frame: start + segment, at: at), coefficient(s, offset: offset1, frame: start + segment, at: at))
                da = (a1 - a0) / Double(segment)
            }
            let a = a0 + da * Double(t - start)
            let input = SIMD2(Double(x0[i]), Double(x1[i]))
            var v = input + Double(s.feedback.value(at: i)) * SIMD2(m0[stages], m1[stages])
            for k in 0..<stages {
                let y = a * v + SIMD2(m0[k], m1[k])
                let m = v - a * y
                m0[k] = m[0]; m1[k] = m[1]
                v = y
            }
            m0[stages] = v[0]; m1[stages] = v[1]
            let dry = s.dry.value(at: i), wet = s.wet.value(at: i)
            x0[i] = dry * Float(input[0]) + wet * Float(v[0])
            x1[i] = dry * Float(input[1]) + wet * Float(v[1])
        }
    }
}

extension Phaser {
    /// Silence before, the oscillator at its start.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        memory.update(repeating: 0, count: channelCount * (stages + 1))
        state.pointee.oscillator.phase = 0
        state.pointee.position = 0
        state.pointee.origin = (0, 0)
    }

    /// Takes over `previous`'s all-pass memories and phase, then moves to this kernel's values.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from previous: borrowing Phaser) {
        guard previous.channelCount == channelCount, previous.stages == stages else { return }
        for k in 0..<(channelCount * (stages + 1)) { memory[k] = previous.memory[k] }
        let values = Values(rateHz: state.pointee.oscillator.increment * sampleRate, centreHz: Double(state.pointee.centre.target),
                            octaves: Double(state.pointee.octaves.target), feedback: Double(state.pointee.feedback.target), mix: Double(state.pointee.wet.target))
        let shape = state.pointee.oscillator.shape
        state.pointee = previous.state.pointee
        state.pointee.oscillator.shape = shape
        retune(values)
    }

    /// Clears the memories if NaN or infinity reached them; true when it did.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        var bad = false
        for k in 0..<(channelCount * (stages + 1)) where !memory[k].isFinite { bad = true }
        guard bad else { return false }
        memory.update(repeating: 0, count: channelCount * (stages + 1))
        return true
    }
}
