import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The de-plosive (``PlosiveSuppressor``) against what it must do: a pop (white noise low-passed
/// at 120 Hz under a 5 ms rise and 30 ms decay, as `scripts/plosive-study.py` models one)
/// coming out of quiet (a 100 Hz tone 20 dB under a 1 kHz one) is turned down 3–5 dB at its
/// peak (5–15 ms; the one-pole averages give 4.4 dB), while the tones before it pass within
/// 0.05 dB; with the low band never rising, the output is the input to float rounding;
/// the same bits for every block size. Its effect on speech scores is in docs/ACCURACY.md.
@Suite struct PlosiveSuppressorTests {
    static let rate = 48_000.0

    static func run(_ d: borrowing PlosiveSuppressor, _ x: [[Float]], blocks: [Int] = [256]) -> [[Float]] {
        Signals.processed(x, blocks: blocks) { d.process($0, frameCount: $1) }
    }

    static func rms(_ x: ArraySlice<Float>) -> Double { (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }

    /// A pop at `at` frames: 120 ms of low-passed noise, peak envelope 1 × `amplitude`.
    static func pop(_ n: Int, at: Int, amplitude: Double) -> [Float] {
        let noise = Signals.noise(n, amplitude: 1, seed: 4)
        // Two one-pole low-passes at 120 Hz.
        let a = exp(-2 * Double.pi * 120 / rate)
        var y1 = 0.0, y2 = 0.0
        var out = [Float](repeating: 0, count: n)
        for i in at..<min(n, at + Int(0.12 * rate)) {
            let t = Double(i - at) / rate
            let envelope = min(t / 0.005, 1) * exp(-max(t - 0.005, 0) / 0.03)
            y1 = a * y1 + (1 - a) * Double(noise[i]); y2 = a * y2 + (1 - a) * y1
            out[i] = Float(amplitude * 8 * envelope * y2)
        }
        return out
    }

    @Test func popTurnedDownSteadyLowSoundKept() {
        let n = Int(2 * Self.rate), at = Int(1.2 * Self.rate)
        let low = Signals.sine(n, hz: 100, amplitude: 0.005, rate: Self.rate), high = Signals.sine(n, hz: 1000, amplitude: 0.05, rate: Self.rate)
        let steady = zip(low, high).map(+)
        let blast = Self.pop(n, at: at, amplitude: 0.5)
        let d = PlosiveSuppressor(settings: .init(), sampleRate: Self.rate, channelCount: 1)
        let y = Self.run(d, [zip(steady, blast).map(+)])[0]
        // The pop from 5 to 15 ms (its peak): what came out beyond the steady tones, against the
        // pop. There the 5 ms power stands ~16 dB over the 300 ms power, 4 dB over the 12 dB
        // allowed (one-pole averages: 4.4 dB at the gain's lowest).
        let popRange = (at + Int(0.005 * Self.rate))..<(at + Int(0.015 * Self.rate))
        let left = zip(y[popRange], steady[popRange]).map { $0 - $1 }
        let down = 20 * log10(Self.rms(blast[popRange]) / Self.rms(left[...]))
        // Before the pop (from 0.5 s: the 300 ms average settled) the tones pass as they are.
        let before = (Int(0.5 * Self.rate))..<(Int(1.1 * Self.rate))
        let steadyChange = 20 * log10(Self.rms(y[before]) / Self.rms(steady[before]))
        var worst: Float = 0
        for i in before { worst = max(worst, abs(y[i] - steady[i])) }
        print(String(format: "de-plosive: the pop's 5-15 ms down %.1f dB; steady 100 Hz + 1 kHz changed %.4f dB (worst sample %.2e)", down, steadyChange, Double(worst)))
        #expect(down > 3 && down < 5)
        #expect(abs(steadyChange) < 0.05)
        #expect(worst < 1e-5)
    }

    @Test func nothingTurnedDownIsTheInput() {
        // A steady mix of tones and noise after 1 s: the low band never jumps 12 dB over its average.
        let n = Int(3 * Self.rate)
        let x = zip(Signals.sine(n, hz: 150, amplitude: 0.2, rate: Self.rate), Signals.noise(n, amplitude: 0.1, seed: 2)).map(+)
        let d = PlosiveSuppressor(settings: .init(), sampleRate: Self.rate, channelCount: 1)
        let y = Self.run(d, [x])[0]
        var worst: Float = 0
        for i in Int(1 * Self.rate)..<n { worst = max(worst, abs(y[i] - x[i])) }
        print("de-plosive on steady sound: worst difference from the input \(worst)")
        #expect(worst < 1e-6)
    }

    @Test func sameBitsForEveryBlockSize() {
        let n = Int(1 * Self.rate)
        let x = zip(Signals.noise(n, amplitude: 0.05, seed: 3), Self.pop(n, at: 20_000, amplitude: 0.4)).map(+)
        let input = [x, Array(x.reversed())]
        let reference = Self.run(PlosiveSuppressor(settings: .init(), sampleRate: Self.rate, channelCount: 2), input, blocks: [4096])
        for blocks in [[1], [64], [1000], [7, 256, 33, 1024, 5]] {
            let y = Self.run(PlosiveSuppressor(settings: .init(), sampleRate: Self.rate, channelCount: 2), input, blocks: blocks)
            #expect(y == reference, "blocks \(blocks)")
        }
    }
}
