import Foundation
import TimbreDSP

/// A node as the render loop sees it: a kernel value, dispatched by `switch` (no existentials,
/// no reference counting), applied to the work channels starting at the node's base.
/// Kernel storage is raw memory owned by the ``RenderPlan``.
public enum RenderNode {
    case biquads(BiquadCascade)
    case gain(GainKernel)
    case pan(PanKernel)
    /// Copies work channel `from` to the node's base channel (a graph channel's input).
    case copy(from: Int)
    /// Writes a sine into the node's base channel.
    case sine(SineGenerator)
    /// Zeroes `count` channels at the node's base (buses before mixing).
    case clear(count: Int)
    /// Adds `count` channels at the node's base into the bus at `to`, scaled by a ramped gain
    /// (volume × mute/solo), so muting does not click.
    case mix(to: Int, count: Int, gain: LinearRamp)
}

/// A sine oscillator with a Double phase accumulator, advanced per sample (block-size invariant).
public struct SineGenerator: Sendable {
    public var phase: Double
    public let increment: Double
    public let amplitude: Float

    public init(frequencyHz: Double, levelDB: Double, sampleRate: Double) {
        phase = 0
        increment = frequencyHz / sampleRate
        amplitude = Float(pow(10, levelDB / 20))
    }

    @inlinable @_noLocks
    public mutating func generate(into out: UnsafeMutablePointer<Float>, frameCount: Int) {
        for i in 0..<frameCount {
            out[i] = amplitude * Float(_unsafePerformance { sin(2 * Double.pi * phase) })
            phase += increment
            if phase >= 1 { phase -= 1 }
        }
    }
}
