import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The real-time pitch shifter, block by block as a render runs it.
@Suite struct PitchShifterTests {
    /// Runs mono `input` through a shifter in blocks of `block`, calling `control(shifter, frame)` before each block.
    static func run(_ input: [Float], semitones: Double, block: Int = 256, control: (borrowing PitchShifter, Int) -> Void = { _, _ in }) -> (output: [Float], shifter: (latency: Int, underruns: Int)) {
        let s = PitchShifter(sampleRate: 48_000, channelCount: 1, semitones: semitones, maximumBlockFrames: block)
        var out = [Float](repeating: 0, count: input.count)
        var start = 0
        while start < input.count {
            let n = min(block, input.count - start)
            control(s, start)
            input.withUnsafeBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in
                    var ip = [UnsafePointer(i.baseAddress! + start)], op = [o.baseAddress! + start]
                    s.process(input: &ip, output: &op, frameCount: n)
                }
            }
            start += n
        }
        return (out, (s.latencyFrames, s.underruns))
    }

    /// At 0 semitones the shifter is a pure delay of exactly `latencyFrames` for band-limited
    /// material (the resampler's passband ends at 0.85 of Nyquist).
    @Test func zeroSemitonesIsAPureDelay() {
        let fs = 48_000.0, n = Int(2 * fs)
        let x = (0..<n).map { i in Float(0.3 * sin(2 * Double.pi * 440 * Double(i) / fs) + 0.2 * sin(2 * Double.pi * 5123.4 * Double(i) / fs + 1)) }
        let (y, info) = Self.run(x, semitones: 0)
        var worst: Float = 0
        for i in (info.latency + 4096)..<n { worst = max(worst, abs(y[i] - x[i - info.latency])) }
        print("pitch shifter 0 st: latency \(info.latency) frames (\(String(format: "%.1f", Double(info.latency) / fs * 1000)) ms), worst deviation from the delayed input \(String(format: "%.1f", 20 * log10(Double(worst) / 0.5))) dB")
        #expect(20 * log10(Double(worst) / 0.5) < -90)
        #expect(info.underruns == 0)
    }

    @Test(arguments: [12.0, -12.0, 7.0, 24.0, -24.0])
    func constantShift(semitones: Double) {
        let fs = 48_000.0, n = Int(3 * fs), hz = semitones > 12 ? 220.0 : 440.0
        let x = Signals.sine(n, hz: hz, amplitude: 0.4, rate: fs)
        let (y, info) = Self.run(x, semitones: semitones)
        let expected = hz * pow(2, semitones / 12)
        let tail = Array(y[(info.latency + 8192)...])
        let f = StretchMeasures.measuredFrequency(tail, near: expected, rate: fs, from: 0, to: tail.count - 24_000, length: 24_000)
        let fit = SineFit.fit(tail, hz: f, rate: fs, margin: 0)
        print(String(format: "pitch shifter %+.0f st: %.3f Hz (expected %.3f), THD+N %.1f dB, level %+.3f dB, underruns %d", semitones, f, expected, fit.thdnDB, 20 * log10(fit.amplitude / 0.4), info.underruns))
        #expect(abs(f / expected - 1) < 0.001)
        #expect(fit.thdnDB < -60)
        #expect(abs(20 * log10(fit.amplitude / 0.4)) < 0.5)
        #expect(info.underruns == 0)
    }

    /// Glides (each reached in 100 ms): never short of stretched frames (the latency holds), and
    /// no click. A click is broadband; the tone stays below 1760 Hz, so the measure is the energy
    /// above 5 kHz in short-time spectra of the output (4096 frames, 4-term Blackman–Harris,
    /// −92 dB side lobes) relative to the tone's. Musical glides (a fifth either way; measured
    /// −79 dB) must stay 70 dB down; the extreme ones (four octaves in 100 ms) distort while they
    /// move — harmonics, measured −58 dB at worst — and must stay 50 dB down.
    @Test(arguments: [([0.0, 7, -5, 2, 0], -70.0), ([0.0, 12, -24, 24, -7, 0], -50.0)])
    func glidesWithoutClicksOrUnderruns(targets: [Double], limitDB: Double) {
        let fs = 48_000.0, n = Int(4 * fs), hz = 440.0, block = 256
        let x = Signals.sine(n, hz: hz, amplitude: 0.4, rate: fs)
        let (y, info) = Self.run(x, semitones: 0, block: block) { s, frame in
            s.setSemitones(targets[min(targets.count - 1, frame / Int(0.6 * fs))])
        }
        #expect(info.underruns == 0)
        let size = 4096
        var worst = -200.0
        let spectrum = FFTSpectrum(size: size)
        for start in stride(from: info.latency, to: n - size, by: size / 4) {
            let frame = (0..<size).map { i -> Float in
                let w = 2 * Double.pi * Double(i) / Double(size)
                return y[start + i] * Float(0.35875 - 0.48829 * cos(w) + 0.14128 * cos(2 * w) - 0.01168 * cos(3 * w))
            }
            let mags = spectrum.magnitudes(of: frame)
            var tone = 0.0, high = 0.0
            for (k, m) in mags.enumerated() {
                if Double(k) * fs / Double(size) >= 5000 { high += Double(m * m) } else { tone += Double(m * m) }
            }
            worst = max(worst, 10 * log10(high / tone + 1e-30))
        }
        print("pitch shifter glides \(targets): worst energy above 5 kHz \(String(format: "%.1f", worst)) dB, underruns \(info.underruns)")
        #expect(worst < limitDB)
    }
}
