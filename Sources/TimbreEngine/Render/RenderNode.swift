import Foundation
import TimbreDSP

/// A node as the render loop sees it: a kernel value, dispatched by `switch` (no existentials,
/// no reference counting), applied to the work channels starting at the node's base.
/// Kernel storage is raw memory owned by the ``RenderPlan``. The render loop copies a node out
/// and back each block, so large kernels (analysis 440 bytes, player 120) are held by address,
/// owned by their shared state: the enum is 65 bytes, not 441 (at 32-frame blocks the copies
/// of 441-byte nodes cost ~20 ns per node per block).
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
    /// A `meter` or `loudness` node: measures its channels, leaves them unchanged.
    case analysis(UnsafePointer<AnalysisKernel>)
    /// A `pitch` node: its shared shifter and the pitch this plan asks of it.
    case pitch(PitchKernel, semitones: Double)
    /// Latency compensation: delays a path so it meets a longer one in time at a mix.
    case delay(DelayLine)
    /// A `player` channel's source: its stream's next frames into the channel.
    case player(UnsafePointer<PlayerKernel>)
    /// A `plugin` node: an LV2 or LADSPA plugin's instances, shared across plans.
    case plugin(PluginKernel)
}

extension RenderNode {
    /// What a node is, without its state: compared across plans to decide which state continues.
    public enum Shape: Sendable, Equatable {
        case biquads(sections: Int, channels: Int)
        case gain
        case pan(PanKernel.Mode)
        case copy, sine, clear, mix, analysis, pitch, player, plugin
        case delay(frames: Int, channels: Int)

        /// Whether a node of this shape has state worth continuing in the next plan.
        /// (Analysis and pitch state is not copied: plans that continue such a node share its state.)
        var carriesState: Bool {
            switch self {
            case .biquads, .gain, .pan, .sine, .mix, .delay: true
            case .copy, .clear, .analysis, .pitch, .player, .plugin: false
            }
        }
    }

    /// This node's shape (read on the control thread, from a kernel value it built itself).
    var shape: Shape {
        switch self {
        case .biquads(let k): .biquads(sections: k.sectionCount, channels: k.channelCount)
        case .gain: .gain
        case .pan(let k): .pan(k.mode)
        case .copy: .copy
        case .sine: .sine
        case .clear: .clear
        case .mix: .mix
        case .analysis: .analysis
        case .pitch: .pitch
        case .player: .player
        case .plugin: .plugin
        case .delay(let d): .delay(frames: d.frames, channels: d.channelCount)
        }
    }
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

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    public mutating func generate(into out: UnsafeMutablePointer<Float>, frameCount: Int) {
        for i in 0..<frameCount {
            out[i] = amplitude * Float(_unsafePerformance { sin(2 * Double.pi * phase) })
            phase += increment
            if phase >= 1 { phase -= 1 }
        }
    }
}
