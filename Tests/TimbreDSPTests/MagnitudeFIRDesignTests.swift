import Foundation
import Testing
import TimbreDSP

/// FIR designs from a magnitude curve, measured by a naive DFT in Double written here (the
/// independent reference) at 400 log-spaced frequencies from 20 Hz to 20 kHz.
@Suite struct MagnitudeFIRDesignTests {
    /// A headphone-correction-like target: a +6 dB bass shelf, a −5 dB bell at 3 kHz, +4 dB at
    /// 8 kHz, −3 dB from 15 kHz (analog shapes, smooth in log frequency).
    static func target(_ f: Double) -> Double {
        func bell(_ f0: Double, _ db: Double, _ octaves: Double) -> Double { db * exp(-pow(log2(f / f0) / octaves, 2)) }
        return 6 / (1 + pow(f / 120, 2)) + bell(3_000, -5, 0.6) + bell(8_000, 4, 0.4) - 3 / (1 + pow(15_000 / f, 4))
    }

    static func magnitudeDB(_ h: [Float], at f: Double, rate: Double) -> Double {
        var re = 0.0, im = 0.0
        let w = 2 * Double.pi * f / rate
        for (n, x) in h.enumerated() { re += Double(x) * cos(w * Double(n)); im -= Double(x) * sin(w * Double(n)) }
        return 10 * log10(re * re + im * im)
    }

    static let grid: [Double] = (0..<400).map { 20 * pow(1000, Double($0) / 399) }

    /// Within 0.1 dB of the target from 20 Hz to 20 kHz, 8,192 taps, both phases, 44.1 and 48 kHz.
    @Test(arguments: [44_100.0, 48_000.0], MagnitudeFIRDesign.Phase.allCases)
    func followsTheTarget(rate: Double, phase: MagnitudeFIRDesign.Phase) {
        let h = MagnitudeFIRDesign.design(length: 8_192, sampleRate: rate, phase: phase, magnitudeDB: Self.target)
        #expect(h.count == MagnitudeFIRDesign.tapCount(8_192, phase: phase))
        let worst = Self.grid.filter { $0 < rate * 0.45 }.map { abs(Self.magnitudeDB(h, at: $0, rate: rate) - Self.target($0)) }.max() ?? 0
        print(String(format: "magnitude FIR design, %@ phase, 8192 taps at %.1f kHz: worst error %.4f dB over 20 Hz–20 kHz", phase.rawValue, rate / 1000, worst))
        #expect(worst < 0.1)
    }

    /// Linear phase: symmetric taps (constant group delay (L − 1)/2). Minimum phase: at every
    /// length its partial energy is at least the linear-phase design's (the property that
    /// defines minimum phase among filters of one magnitude), and it starts at once.
    @Test func phaseProperties() {
        let linear = MagnitudeFIRDesign.design(length: 4_096, sampleRate: 48_000, phase: .linear, magnitudeDB: Self.target)
        #expect(linear.count == 4_097 && (0..<linear.count).allSatisfy { abs(linear[$0] - linear[linear.count - 1 - $0]) <= 1e-7 * (linear.map(abs).max() ?? 1) })
        #expect(MagnitudeFIRDesign.latency(4_096, phase: .linear) == 2_048)
        let minimum = MagnitudeFIRDesign.design(length: 4_096, sampleRate: 48_000, phase: .minimum, magnitudeDB: Self.target)
        var a = 0.0, b = 0.0, worst = Double.infinity
        for n in 0..<4_096 {
            a += Double(minimum[n]) * Double(minimum[n]); b += Double(linear[n]) * Double(linear[n])
            worst = min(worst, a - b)
        }
        #expect(worst >= -1e-9, "partial energy below the linear design's by \(-worst)")
        let peak = minimum.indices.max { abs(minimum[$0]) < abs(minimum[$1]) }!
        #expect(peak < 16, "minimum phase peaks at tap \(peak)")
    }
}
