import Foundation

/// Tremolo and auto-pan: each channel's gain swings between 1 − depth and 1 with a
/// ``LowFrequencyOscillator``, channel c's oscillator `c × stereoPhase` cycles ahead (an
/// auto-pan is a stereo tremolo half a cycle apart: one side dips while the other peaks).
///
/// gain_c = 1 − depth · (1 − lfo(φ + c·Δ)) — at depth 100 % the dip reaches silence. Depth
/// ramps over 25 ms when it changes; a rate change keeps the phase (no jump). The oscillator
/// is worked out exactly at every 8th frame of the stream and drawn straight between (as the
/// chorus's: one libm cosine per channel and 8 frames), its phase a function of the position
/// since the last rate change: the same output for every block size.
public struct Tremolo: Sendable {
    public var oscillator: LowFrequencyOscillator
    /// Cycles between neighbouring channels' oscillators (0.5: auto-pan).
    public var stereoPhase: Double
    public var depth: LinearRamp
    public let rampFrames: Int
    public let sampleRate: Double
    /// Frames processed; `oscillator.phase` is the phase there.
    public var position = 0
    /// The position and phase of the last rate change: the phase at frame t is
    /// `origin.phase + (t − origin.position) · increment`.
    public var origin: (position: Int, phase: Double) = (0, 0)

    public init(shape: LowFrequencyOscillator.Shape, frequencyHz: Double, depth: Double, stereoPhase: Double, sampleRate: Double) {
        oscillator = LowFrequencyOscillator(shape: shape, frequencyHz: frequencyHz, sampleRate: sampleRate)
        self.stereoPhase = stereoPhase; self.sampleRate = sampleRate
        self.depth = LinearRamp(value: Float(depth))
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
    }

    /// New rate and depth (audio thread, at a block's start).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func retune(frequencyHz: Double, depth: Double) {
        origin = (position, oscillator.phase)
        oscillator.setFrequency(frequencyHz, sampleRate: sampleRate)
        self.depth.setTarget(Float(depth), frames: rampFrames)
    }

    /// Continues `previous`'s phase and depth, ramping to this kernel's depth.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueFrom(_ previous: Tremolo) {
        oscillator.phase = previous.oscillator.phase
        position = previous.position
        origin = (position, oscillator.phase)
        let target = depth.target
        depth = LinearRamp(value: previous.depth.current)
        depth.setTarget(target, frames: rampFrames)
    }

    /// The oscillator back at its start and the depth at its target, as a fresh kernel's
    /// (a plan's `reset()` after a warm-up: the stream starts at phase 0, live as offline).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func reset() {
        oscillator.phase = 0
        position = 0; origin = (0, 0)
        depth = LinearRamp(value: depth.target)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        let segment = 8
        for c in 0..<channelCount {
            let x = channels[c], offset = Double(c) * stereoPhase
            var i = 0, boundary = Int.min, u1 = 0.0
            while i < frameCount {
                // The segment holding frame i: u drawn straight from its start to its end.
                let t = position + i, start = t - (t & (segment - 1)), end = min(frameCount, i + start + segment - t)
                let u0 = start == boundary ? u1 : oscillator.value(at: start, from: origin, offset: offset)
                u1 = oscillator.value(at: start + segment, from: origin, offset: offset)
                boundary = start + segment
                let du = (u1 - u0) / Double(segment)
                for k in i..<end {
                    let u = u0 + du * Double(position + k - start), d = Double(depth.value(at: k))
                    x[k] *= Float(1 - d * (1 - u))
                }
                i = end
            }
        }
        position += frameCount
        oscillator.phase = oscillator.phase(at: position, from: origin)
        depth.advance(by: frameCount)
    }
}
