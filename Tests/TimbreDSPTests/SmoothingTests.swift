import Foundation
import Testing
import TimbreTestSignals
import TimbreDSP

/// Gain and pan changes do not click: after a change, the largest sample-to-sample step
/// stays within 1 % of the steady-state largest step at the louder setting.
@Suite struct SmoothingTests {
    static let sampleRate = 48000.0

    static func sine(_ count: Int, hz: Double = 1000, amplitude: Float = 0.09) -> [Float] { Signals.sine(count, hz: hz, amplitude: Double(amplitude), rate: sampleRate) }

    static func maxStep(_ x: ArraySlice<Float>) -> Float {
        zip(x.dropFirst(), x).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    @Test(arguments: [64, 256, 1024])
    func gainChangeDoesNotClick(blockSize: Int) {
        var kernel = GainKernel(gain: 1, sampleRate: Self.sampleRate)
        var x = Self.sine(48000)
        let changeAt = 12000 + 37  // not on a block boundary
        var n = 0
        while n < x.count {
            let len = min(blockSize, x.count - n, n < changeAt ? changeAt - n : Int.max)
            if n == changeAt { kernel.setGain(Float(GainUnits.linear(fromDB: 20))) }
            x.withUnsafeMutableBufferPointer { p in
                var ptrs = [p.baseAddress! + n]
                kernel.process(&ptrs, channelCount: 1, frameCount: len)
            }
            n += len
        }
        let steady = Self.maxStep(x[36000...])  // well after the ramp, at +20 dB
        let transition = Self.maxStep(x[(changeAt - 10)..<(changeAt + 4000)])
        #expect(abs(x[40000...].max()! - 0.9) < 0.01, "reached +20 dB")
        #expect(transition <= steady * 1.01, "transition step \(transition) vs steady \(steady)")
    }

    @Test func panLeftToRightDoesNotClick() {
        var kernel = PanKernel(pan: -1, mode: .monoToStereo, sampleRate: Self.sampleRate)
        let x = Self.sine(48000, amplitude: 0.5)
        var l = x, r = [Float](repeating: 0, count: x.count)
        let changeAt = 10000
        for start in stride(from: 0, to: x.count, by: 500) {
            if start == changeAt { kernel.setPan(1) }
            l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
                var ptrs = [lp.baseAddress! + start, rp.baseAddress! + start]
                kernel.process(&ptrs, frameCount: 500)
            } }
        }
        let steadyR = Self.maxStep(r[30000...]), steadyLBefore = Self.maxStep(l[..<changeAt])
        let steady = max(steadyR, steadyLBefore)
        #expect(Self.maxStep(l[changeAt...]) <= steady * 1.01)
        #expect(Self.maxStep(r[changeAt...]) <= steady * 1.01)
        #expect(r[..<changeAt].allSatisfy { $0 == 0 }, "hard left: right channel silent")
        #expect(l[20000...].allSatisfy { abs($0) < 1e-6 }, "hard right: left channel silent")
    }

    /// Pan laws: constant power for mono (−3.01 dB each side at centre), balance for stereo.
    @Test func panLaws() {
        let c = PanKernel.gains(pan: 0, mode: .monoToStereo)
        #expect(abs(20 * log10(Double(c.left)) + 3.0103) < 0.001 && c.left == c.right)
        for p in stride(from: -1.0, through: 1.0, by: 0.25) {
            let g = PanKernel.gains(pan: p, mode: .monoToStereo)
            #expect(abs(Double(g.left * g.left + g.right * g.right) - 1) < 1e-6, "constant power at \(p)")
        }
        #expect(PanKernel.gains(pan: 0, mode: .stereoBalance) == (1, 1))
        #expect(PanKernel.gains(pan: -0.5, mode: .stereoBalance) == (1, 0.5))
        #expect(PanKernel.gains(pan: 1, mode: .stereoBalance) == (0, 1))
    }

    /// A ramp computed in any block split gives bit-identical values.
    @Test func rampIsBlockSizeInvariant() {
        func run(_ block: Int) -> [Float] {
            var ramp = LinearRamp(value: 0.25)
            ramp.setTarget(1.5, frames: 1000)
            var out: [Float] = []
            while out.count < 3000 {
                let n = min(block, 3000 - out.count)
                for i in 0..<n { out.append(ramp.value(at: i)) }
                ramp.advance(by: n)
            }
            return out
        }
        let whole = run(3000)
        #expect(whole[0] == 0.25 && whole[1000] == 1.5 && whole[999] < 1.5)
        for b in [1, 17, 64, 256] { #expect(run(b) == whole) }
    }

    @Test func volumeAndDecibels() {
        #expect(abs(GainUnits.linear(fromDB: -6.0206) - 0.5) < 1e-4)
        #expect(abs(GainUnits.decibels(fromLinear: 10) - 20) < 1e-12)
    }
}
