import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// `bitcrush`: every output on the grid of 2^(1 − bits) with the rounding error a uniform
/// quantiser has (RMS step/√12); with TPDF dither a sine of a third of a step survives in the
/// average where without it the output is silence; the held rate exact (runs of 4 at 12 kHz
/// of 48; 48/7 frames on average at 7 kHz); the same bits for every block size, dither too.
@Suite struct BitcrushNodeTests {
    static let rate = 48_000.0

    static func render(_ node: String, _ x: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "b", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: x, block: block, rate: rate).output
    }

    @Test func theStepsAreThoseOfTheBits() throws {
        let x = Signals.noise(48_000, amplitude: 0.5, seed: 1)
        let y = try Self.render(#"{"type": "bitcrush", "bits": 8}"#, [x])[0]
        let step = 1.0 / 128
        var sum = 0.0
        for (a, b) in zip(x, y) {
            let k = Double(b) / step
            #expect(abs(k - k.rounded()) < 1e-6)
            sum += (Double(b) - Double(a)) * (Double(b) - Double(a))
        }
        let rms = (sum / Double(x.count)).squareRoot(), expected = step / 12.0.squareRoot()
        #expect(abs(rms / expected - 1) < 0.05, "error RMS \(rms), a uniform quantiser's \(expected)")
    }

    @Test func ditherKeepsASignalBelowTheStep() throws {
        let step = 1.0 / 128, n = 96_000
        let sine = (0..<n).map { Float(step / 3 * sin(2 * Double.pi * 1_000 * Double($0) / Self.rate)) }
        func amplitude(_ y: [Float]) -> Double {
            var re = 0.0, im = 0.0
            for (i, v) in y.enumerated() { re += Double(v) * cos(2 * Double.pi * 1_000 * Double(i) / Self.rate); im += Double(v) * sin(2 * Double.pi * 1_000 * Double(i) / Self.rate) }
            return 2 * (re * re + im * im).squareRoot() / Double(y.count)
        }
        let plain = try Self.render(#"{"type": "bitcrush", "bits": 8}"#, [sine])[0]
        #expect(plain.allSatisfy { $0 == 0 }, "a third of a step rounds to silence")
        let dithered = try Self.render(#"{"type": "bitcrush", "bits": 8, "dither": true}"#, [sine])[0]
        let a = amplitude(dithered)
        #expect(abs(a / (step / 3) - 1) < 0.1, "dithered: the sine's amplitude \(a), in \(step / 3)")
    }

    @Test func theHeldRateIsExact() throws {
        let x = Signals.noise(4_800, amplitude: 0.5, seed: 2)
        func runs(_ y: [Float]) -> [Int] {
            var out: [Int] = [], count = 1
            for i in 1..<y.count { if y[i] == y[i - 1] { count += 1 } else { out.append(count); count = 1 } }
            return out
        }
        let even = runs(try Self.render(#"{"type": "bitcrush", "bits": 24, "rate": 12000}"#, [x])[0])
        #expect(even.dropFirst().dropLast().allSatisfy { $0 == 4 })
        let odd = runs(try Self.render(#"{"type": "bitcrush", "bits": 24, "rate": 7000}"#, [x])[0]).dropFirst().dropLast()
        #expect(odd.allSatisfy { $0 == 6 || $0 == 7 })
        let mean: Double = Double(odd.reduce(0, +)) / Double(odd.count)
        #expect(abs(mean - 48.0 / 7) < 0.02, "mean run \(mean)")
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let x = [Signals.noise(20_000, amplitude: 0.5, seed: 4), Signals.noise(20_000, amplitude: 0.5, seed: 5)]
        let node = #"{"type": "bitcrush", "bits": 5.5, "rate": 9000, "dither": true, "mix": 70}"#
        let reference = try Self.render(node, x, block: 4_096)
        for block in [1, 64, 333] { #expect(try Self.render(node, x, block: block) == reference, "block \(block)") }
    }
}
