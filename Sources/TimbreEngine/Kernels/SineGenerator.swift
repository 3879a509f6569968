import Foundation

/// A sine oscillator with a Double phase accumulator, advanced per sample (block-size invariant).
package struct SineGenerator: Sendable {
    package var phase: Double
    package let increment: Double
    package let amplitude: Float

    package init(frequencyHz: Double, levelDB: Double, sampleRate: Double) {
        phase = 0
        increment = frequencyHz / sampleRate
        amplitude = Float(pow(10, levelDB / 20))
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    package mutating func generate(into out: UnsafeMutablePointer<Float>, frameCount: Int) {
        for i in 0..<frameCount {
            out[i] = amplitude * Float(_unsafePerformance { sin(2 * Double.pi * phase) })
            phase += increment
            if phase >= 1 { phase -= 1 }
        }
    }
}
