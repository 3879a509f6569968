import Foundation

/// Panning and balance, smoothed.
///
/// Laws (documented in README):
/// - **Mono → stereo, constant power**: θ = (pan + 1)·π/4, L = cos θ, R = sin θ.
///   Centre gives −3.01 dB in each channel; hard left/right give 0 dB / silence.
/// - **Stereo in, balance**: pan ≤ 0 leaves L at unity and scales R by (1 + pan);
///   pan ≥ 0 leaves R at unity and scales L by (1 − pan). Centre is unity in both.
///   (AVAudioPlayer's `pan` behaves as a balance control on stereo files.)
///
/// Each channel gain ramps linearly over the ramp time, so a full left → right move does
/// not click.
public struct PanKernel: Sendable {
    public enum Mode: Sendable { case monoToStereo, stereoBalance }
    public let mode: Mode
    public var left: LinearRamp
    public var right: LinearRamp
    public let rampFrames: Int

    public static func gains(pan: Double, mode: Mode) -> (left: Float, right: Float) {
        let p = min(1, max(-1, pan))
        switch mode {
        case .monoToStereo:
            let theta = (p + 1) * Double.pi / 4
            return (Float(cos(theta)), Float(sin(theta)))
        case .stereoBalance:
            return (Float(p > 0 ? 1 - p : 1), Float(p < 0 ? 1 + p : 1))
        }
    }

    public init(pan: Double, mode: Mode, sampleRate: Double, rampSeconds: Double = GainKernel.defaultRampSeconds) {
        self.mode = mode
        let g = Self.gains(pan: pan, mode: mode)
        left = LinearRamp(value: g.left); right = LinearRamp(value: g.right)
        rampFrames = max(1, Int((rampSeconds * sampleRate).rounded()))
    }

    public mutating func setPan(_ pan: Double) {
        let g = Self.gains(pan: pan, mode: mode)
        left.setTarget(g.left, frames: rampFrames); right.setTarget(g.right, frames: rampFrames)
    }

    /// Continues from `previous`: starts at its current gains and ramps to this kernel's.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public mutating func continueFrom(_ previous: PanKernel) {
        let l = left.target, r = right.target
        left = LinearRamp(value: previous.left.current); left.setTarget(l, frames: rampFrames)
        right = LinearRamp(value: previous.right.current); right.setTarget(r, frames: rampFrames)
    }

    /// For `.monoToStereo`, reads channel 0 and writes channels 0 and 1 (channel 1's buffer
    /// must exist); for `.stereoBalance`, scales channels 0 and 1 in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let l = channels[0], r = channels[1]
        switch mode {
        case .monoToStereo:
            right.scale(from: l, into: r, count: frameCount)
            left.scale(l, count: frameCount)
        case .stereoBalance:
            left.scale(l, count: frameCount)
            right.scale(r, count: frameCount)
        }
        left.advance(by: frameCount); right.advance(by: frameCount)
    }
}
