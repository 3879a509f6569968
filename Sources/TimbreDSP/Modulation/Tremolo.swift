import Foundation

/// Tremolo and auto-pan: each channel's gain swings between 1 − depth and 1 with a
/// ``LowFrequencyOscillator``, channel c's oscillator `c × stereoPhase` cycles ahead (an
/// auto-pan is a stereo tremolo half a cycle apart: one side dips while the other peaks).
///
/// gain_c = 1 − depth · (1 − lfo(φ + c·Δ)) — at depth 100 % the dip reaches silence. Depth
/// ramps over 25 ms when it changes; a rate change keeps the phase (no jump). Per frame at
/// absolute positions: the same output for every block size.
public struct Tremolo: Sendable {
    public var oscillator: LowFrequencyOscillator
    /// Cycles between neighbouring channels' oscillators (0.5: auto-pan).
    public var stereoPhase: Double
    public var depth: LinearRamp
    public let rampFrames: Int
    public let sampleRate: Double

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
        oscillator.setFrequency(frequencyHz, sampleRate: sampleRate)
        self.depth.setTarget(Float(depth), frames: rampFrames)
    }

    /// Continues `previous`'s phase and depth, ramping to this kernel's depth.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueFrom(_ previous: Tremolo) {
        oscillator.phase = previous.oscillator.phase
        let target = depth.target
        depth = LinearRamp(value: previous.depth.current)
        depth.setTarget(target, frames: rampFrames)
    }

    /// The oscillator back at its start and the depth at its target, as a fresh kernel's
    /// (``RenderPlan/reset()`` after a warm-up: the stream starts at phase 0, live as offline).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func reset() {
        oscillator.phase = 0
        depth = LinearRamp(value: depth.target)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        for i in 0..<frameCount {
            let d = Double(depth.value(at: i))
            for c in 0..<channelCount {
                let u = oscillator.value(offset: Double(c) * stereoPhase)
                channels[c][i] *= Float(1 - d * (1 - u))
            }
            oscillator.phase += oscillator.increment
            if oscillator.phase >= 1 { oscillator.phase -= 1 }
        }
        depth.advance(by: frameCount)
    }
}
