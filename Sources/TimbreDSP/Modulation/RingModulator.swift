import Foundation

/// A ring modulator: the signal multiplied by a carrier, 2·lfo − 1 of a
/// ``LowFrequencyOscillator`` running at audio rates (sine: −cos 2πft, so a tone at f₀ comes
/// out as f₀ − f and f₀ + f and nothing at f₀), mixed with the dry signal. The carrier's
/// frequency glides when it changes (the phase runs on); the mix ramps over 25 ms.
public struct RingModulator: Sendable {
    public var oscillator: LowFrequencyOscillator
    public var wet: LinearRamp
    public var dry: LinearRamp
    public let rampFrames: Int
    public let sampleRate: Double

    public init(shape: LowFrequencyOscillator.Shape, frequencyHz: Double, mix: Double, sampleRate: Double) {
        oscillator = LowFrequencyOscillator(shape: shape, frequencyHz: frequencyHz, sampleRate: sampleRate)
        wet = LinearRamp(value: Float(mix)); dry = LinearRamp(value: Float(1 - mix))
        rampFrames = max(1, Int((GainKernel.defaultRampSeconds * sampleRate).rounded()))
        self.sampleRate = sampleRate
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func retune(frequencyHz: Double, mix: Double) {
        oscillator.setFrequency(frequencyHz, sampleRate: sampleRate)
        wet.setTarget(Float(mix), frames: rampFrames); dry.setTarget(Float(1 - mix), frames: rampFrames)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueFrom(_ previous: RingModulator) {
        oscillator.phase = previous.oscillator.phase
        let w = wet.target
        wet = LinearRamp(value: previous.wet.current); wet.setTarget(w, frames: rampFrames)
        dry = LinearRamp(value: previous.dry.current); dry.setTarget(1 - w, frames: rampFrames)
    }

    /// The carrier back at its start and the mix at its target, as a fresh kernel's.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func reset() {
        oscillator.phase = 0
        wet = LinearRamp(value: wet.target); dry = LinearRamp(value: dry.target)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        for i in 0..<frameCount {
            let carrier = Float(2 * oscillator.next() - 1), w = wet.value(at: i), d = dry.value(at: i)
            for c in 0..<channelCount {
                let x = channels[c][i]
                channels[c][i] = d * x + w * carrier * x
            }
        }
        wet.advance(by: frameCount); dry.advance(by: frameCount)
    }
}
