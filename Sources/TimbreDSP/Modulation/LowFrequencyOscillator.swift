import Foundation

/// A low-frequency oscillator for the modulation effects: a phase in cycles (0 ≤ phase < 1,
/// Double, advanced by rate / sampleRate each frame — so its frequency is exact and a rate
/// change never jumps the phase) read through a shape into 0…1.
public struct LowFrequencyOscillator: Sendable, Equatable {
    /// The waveforms, each from 0 to 1 and back over a cycle.
    public enum Shape: String, Sendable, CaseIterable, Codable {
        /// 0.5 − 0.5 cos 2πφ: starts at 0.
        case sine
        case triangle
        /// A square whose edges are raised-cosine ramps of 1/50 of the period (no click).
        case square
        /// Rising from 0 to 1, then back to 0 over the last 1/50 of the period.
        case sawUp = "saw-up"
        /// Falling from 1 to 0, then back over the first 1/50.
        case sawDown = "saw-down"
    }

    public var shape: Shape
    /// Cycles per frame.
    public var increment: Double
    /// The phase, in cycles.
    public var phase: Double

    public init(shape: Shape, frequencyHz: Double, sampleRate: Double, phase: Double = 0) {
        self.shape = shape; increment = frequencyHz / sampleRate; self.phase = phase - phase.rounded(.down)
    }

    /// Sets the rate (the phase runs on from where it is).
    public mutating func setFrequency(_ hz: Double, sampleRate: Double) { increment = hz / sampleRate }

    /// Fraction of a period the square's and saws' edges take.
    public static let edge = 0.02

    /// The shape at phase `p` (0 ≤ p < 1), in 0…1.
    @inline(__always)
    public static func value(_ shape: Shape, at p: Double) -> Double {
        // (libm's cos: no lock, no allocation; `_unsafePerformance` tells the `@_noLocks` checker.)
        func smooth(_ x: Double) -> Double { 0.5 - 0.5 * _unsafePerformance { cos(Double.pi * min(1, max(0, x))) } }  // 0 → 1, raised cosine
        switch shape {
        case .sine: return 0.5 - 0.5 * _unsafePerformance { cos(2 * Double.pi * p) }
        case .triangle: return p < 0.5 ? 2 * p : 2 - 2 * p
        case .square: return p < 0.5 ? smooth(p / edge) : 1 - smooth((p - 0.5) / edge)
        case .sawUp: return p < 1 - edge ? p / (1 - edge) : 1 - smooth((p - (1 - edge)) / edge)
        case .sawDown: return p < edge ? smooth(p / edge) : 1 - (p - edge) / (1 - edge)
        }
    }

    /// The value now (0…1), then one frame on.
    @inline(__always)
    public mutating func next() -> Double {
        let v = Self.value(shape, at: phase)
        phase += increment
        if phase >= 1 { phase -= 1 }
        return v
    }

    /// The phase (0 ≤ φ < 1) at `frame`, `offset` cycles on, for an oscillator whose phase was
    /// `origin.phase` at frame `origin.position` (its last rate change): a function of the
    /// position, not a running sum, so it is the same whichever block reaches the frame.
    @inline(__always)
    public func phase(at frame: Int, from origin: (position: Int, phase: Double), offset: Double = 0) -> Double {
        var p = origin.phase + Double(frame - origin.position) * increment + offset
        p -= Double(Int64(truncatingIfNeeded: Int(p.magnitude < 1e15 ? p : 0)))
        return p < 0 ? p + 1 : p
    }

    /// The value (0…1) at `frame`, `offset` cycles on, from the last rate change `origin`
    /// (``phase(at:from:offset:)`` read through the shape).
    @inline(__always)
    public func value(at frame: Int, from origin: (position: Int, phase: Double), offset: Double = 0) -> Double {
        Self.value(shape, at: phase(at: frame, from: origin, offset: offset))
    }
}
