import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The variable-ratio resampler against analytic sines evaluated at the positions its documented
/// step schedule visits.
@Suite struct VariableResamplerTests {
    /// Runs `input` (mono) through the resampler in blocks of `block` output frames, calling
    /// `schedule(outputFrameIndex)` before each block for a new target step.
    static func run(_ input: [Float], step: Double, outputFrames: Int, block: Int, schedule: (Int) -> Double? = { _ in nil }) -> [Float] {
        let r = VariableResampler(channelCount: 1, step: step, maximumOutputFrames: block)
        var out: [Float] = [], read = 0
        var buffer = [Float](repeating: 0, count: block)
        while out.count < outputFrames {
            if let s = schedule(out.count) { r.setStep(s) }
            let n = min(block, outputFrames - out.count)
            let need = r.inputFramesNeeded(forOutputFrames: n)
            let chunk = (0..<need).map { read + $0 < input.count ? input[read + $0] : 0 }
            read += need
            chunk.withUnsafeBufferPointer { i in
                buffer.withUnsafeMutableBufferPointer { o in
                    var ip = [i.baseAddress!], op = [o.baseAddress!]
                    r.process(input: &ip, inputFrames: need, output: &op, outputFrames: n)
                }
            }
            out += buffer[0..<n]
        }
        return out
    }

    @Test func halfWidthFollowsKaiser() {
        #expect(VariableResampler.zeroCrossings == (KaiserWindow.length(attenuationDB: 120, transitionWidth: 0.075) + 1) / 2)
    }

    /// Constant steps: 44.1 → 48 kHz (step 0.91875) and varispeed 2× (step 2: 440 Hz → 880 Hz).
    @Test(arguments: [(0.91875, 1000.0), (2.0, 440.0), (0.5, 1000.0)])
    func constantStep(step: Double, hz: Double) {
        let fs = 48_000.0
        let input = Signals.sine(96_000, hz: hz, amplitude: 0.5, rate: fs)
        let out = Self.run(input, step: step, outputFrames: Int(Double(input.count) / step) - 4000, block: 777)
        let fit = SineFit.fit(out, hz: hz * step, rate: fs, margin: 2000)
        print("variable resampler step \(step): THD+N \(String(format: "%.1f", fit.thdnDB)) dB")
        #expect(fit.thdnDB <= -130)  // measured −144 … −152 dB
        #expect(abs(fit.phase) < 1e-4, "aligned: output n is the input at n × step")
        #expect(abs(20 * log10(fit.amplitude / 0.5)) < 0.001)
    }

    /// At step 2 the output's Nyquist is the input's quarter: a 15 kHz tone (30 kHz after) must vanish.
    @Test func rejectsWhatWouldAlias() {
        let fs = 48_000.0
        let input = Signals.sine(96_000, hz: 15_000, amplitude: 0.5, rate: fs)
        let out = Self.run(input, step: 2, outputFrames: 44_000, block: 512)
        let middle = out[2000..<42_000]
        let rms = (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
        let rejection = 20 * log10(rms / (0.5 / 2.0.squareRoot()))
        print("variable resampler 15 kHz at step 2: \(String(format: "%.1f", rejection)) dB")
        #expect(rejection <= -120)  // measured −136 dB
    }

    /// A sweep (targets 0.5 → 2 → 0.7, changed every block) against the analytic sine at the
    /// positions of the documented schedule: the step moves linearly to each target over
    /// `smoothingFrames` (1024) output frames. No click can hide in an error below −110 dB.
    @Test func sweepsFollowTheScheduleWithoutClicks() {
        let fs = 48_000.0, hz = 500.0, block = 256
        let input = Signals.sine(300_000, hz: hz, amplitude: 0.5, rate: fs)
        let targets: (Int) -> Double? = { n in
            let t = Double(n) / 120_000
            return t < 0.5 ? 0.5 + 3 * t : 2 - 1.3 * min(1, (t - 0.5) * 2)
        }
        let frames = 120_000
        let out = Self.run(input, step: 0.5, outputFrames: frames, block: block, schedule: targets)
        // The documented schedule, replayed.
        var position = 0.0, step = 0.5, target = 0.5, delta = 0.0
        var worst = 0.0
        for n in 0..<frames {
            if n % block == 0, let t = targets(n) { target = t; delta = (t - step) / 1024 }
            if n > 2000 {
                let expected = 0.5 * sin(2 * Double.pi * hz * position / fs)
                worst = max(worst, abs(Double(out[n]) - expected))
            }
            position += step
            let next = step + delta
            step = (delta > 0 && next > target) || (delta < 0 && next < target) || delta == 0 ? target : next
        }
        let db = 20 * log10(worst / 0.5)
        print("variable resampler sweep: worst deviation from the analytic output \(String(format: "%.1f", db)) dB")
        #expect(db <= -110)  // measured −125 dB
    }

    @Test func sameOutputForEveryBlockSize() {
        let input = Signals.noise(60_000, seed: 5)
        // Targets change at fixed output frames (multiples of 4096), whatever the block size.
        func schedule(_ block: Int) -> (Int) -> Double? {
            { n in n % 4096 == 0 ? 0.6 + Double(n / 4096 % 5) * 0.3 : nil }
        }
        let reference = Self.run(input, step: 1, outputFrames: 40_000, block: 4096, schedule: schedule(4096))
        for block in [1, 64, 512] {
            let same = Self.run(input, step: 1, outputFrames: 40_000, block: block, schedule: schedule(block)) == reference
            #expect(same, "block \(block)")
        }
    }
}
