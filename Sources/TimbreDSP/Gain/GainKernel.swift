import Foundation

/// Conversions between the user-facing gain units.
public enum GainUnits {
    /// `10^(dB/20)`.
    @inlinable public static func linear(fromDB db: Double) -> Double { pow(10, db / 20) }
    /// `20 log10(g)`; −inf for 0.
    @inlinable public static func decibels(fromLinear g: Double) -> Double { 20 * log10(g) }
}

/// Applies a smoothed gain to every channel: the same ramp for all channels.
///
/// Gain changes ramp linearly in amplitude over `rampFrames` (25 ms by default, see
/// ``GainKernel/defaultRampSeconds``). With a 0 → +20 dB change on a full-scale 1 kHz sine at
/// 48 kHz, the extra sample-to-sample step the ramp adds is 9/1200 of full scale, below
/// 1 % of the sine's own largest step at the louder setting.
public struct GainKernel: Sendable {
    public static let defaultRampSeconds = 0.025
    public var ramp: LinearRamp
    public let rampFrames: Int

    public init(gain: Float, sampleRate: Double, rampSeconds: Double = GainKernel.defaultRampSeconds) {
        ramp = LinearRamp(value: gain)
        rampFrames = max(1, Int((rampSeconds * sampleRate).rounded()))
    }

    /// Sets a new linear gain target (smoothed).
    public mutating func setGain(_ gain: Float) { ramp.setTarget(gain, frames: rampFrames) }

    /// Continues from `previous`: starts at its current gain and ramps to this kernel's target.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueFrom(_ previous: GainKernel) {
        let target = ramp.target
        ramp = LinearRamp(value: previous.ramp.current)
        ramp.setTarget(target, frames: rampFrames)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        if !ramp.isRamping {
            let g = ramp.target
            if g != 1 {
                for c in 0..<channelCount {
                    let p = channels[c]
                    for n in 0..<frameCount { p[n] *= g }
                }
            }
        } else {
            for c in 0..<channelCount { ramp.scale(channels[c], count: frameCount) }
        }
        ramp.advance(by: frameCount)
    }
}
