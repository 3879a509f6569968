import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `drivers` node (#40) through a real plan: each output's delay against the ideal
/// e^(−jω(D + latency)) by a naive DFT of its impulse response (1/48 octave, 20 Hz–20 kHz), at
/// 44.1 and 48 kHz, for whole and fractional delays given in samples, ms and mm; gain,
/// polarity and mute; the protection limiter's ceiling per output; the same bits at every
/// block size.
@Suite struct DriversNodeTests {
    static func render(_ node: String, input: [[Float]], rate: Double = 48_000, block: Int = 512) throws -> (output: [[Float]], latency: Int) {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [\#(node)]}"#.utf8))
        let (output, plan) = try PresetRender.render(preset, input: input, block: block, rate: rate)
        return (output, plan.latencyFrames)
    }

    /// The worst error |H − e^(−jωD)| in dB over the grid, and the worst phase-delay error in samples.
    static func delayError(_ h: [Float], delay: Double, rate: Double) -> (db: Double, samples: Double) {
        var worst = 0.0, worstDelay = 0.0
        for f in CrossoverNodeTests.grid {
            let z = CrossoverNodeTests.dft(h, hz: f, rate: rate), w = 2 * Double.pi * f / rate
            let ideal = (re: cos(w * delay), im: -sin(w * delay))
            let e = (re: z.re - ideal.re, im: z.im - ideal.im)
            worst = max(worst, (e.re * e.re + e.im * e.im).squareRoot())
            // Phase delay: the phase against the ideal's, in samples.
            let dp = atan2(z.im * ideal.re - z.re * ideal.im, z.re * ideal.re + z.im * ideal.im)
            worstDelay = max(worstDelay, abs(dp / w))
        }
        return (20 * log10(max(worst, 1e-300)), worstDelay)
    }

    @Test func fractionalDelaysAreExactTo20kHz() throws {
        for rate in [44_100.0, 48_000.0] {
            let n = 16_384
            var impulse = [Float](repeating: 0, count: n)
            impulse[0] = 1
            // samples, ms and mm (343 m/s): whole, fractional, below and above the taps' reach.
            let node = #"{"type": "drivers", "outputs": [{"delaySamples": 0}, {"delaySamples": 0.37}, {"delaySamples": 10.5}, {"delaySamples": 123.25}, {"delay": 0.21}, {"delayMm": 80}]}"#
            let (out, latency) = try Self.render(node, input: Array(repeating: impulse, count: 6), rate: rate)
            let wanted = [0, 0.37, 10.5, 123.25, 0.21e-3 * rate, 0.080 / 343 * rate]
            // The smallest fractional delay (0.37) needs 47 − 0 whole frames of headroom.
            #expect(latency == FractionalDelayDesign.halfTaps - 1)
            for (c, d) in wanted.enumerated() {
                let e = Self.delayError(out[c], delay: d + Double(latency), rate: rate)
                print("drivers delay \(String(format: "%.4f", d)) samples at \(Int(rate)) Hz (+\(latency) latency): error \(String(format: "%.1f", e.db)) dB, phase delay within \(String(format: "%.2e", e.samples)) samples (20 Hz–20 kHz)")
                #expect(e.db < -90, "output \(c)")
                #expect(e.samples < 1e-4, "output \(c)")
            }
        }
    }

    @Test func wholeDelaysAddNoLatency() throws {
        let x = Signals.noise(4_000, amplitude: 0.5, seed: 3)
        let (out, latency) = try Self.render(#"{"type": "drivers", "outputs": [{"delaySamples": 7, "gain": -6}, {"invert": true}, {"mute": true}]}"#, input: [x, x, x])
        #expect(latency == 0)
        let g = Float(pow(10, -6.0 / 20))
        #expect((0..<7).allSatisfy { out[0][$0] == 0 })
        #expect((7..<x.count).allSatisfy { abs(out[0][$0] - g * x[$0 - 7]) <= 1e-7 })
        #expect(out[1] == x.map { -$0 })
        #expect(out[2].allSatisfy { $0 == 0 })
    }

    /// A tweeter limited at −12 dBTP, a woofer at −3, a third output without a limit: each
    /// held at its own ceiling (true peak by a 16× band-limited reconstruction), the unlimited one unchanged.
    @Test func protectionLimiterPerOutput() throws {
        let n = 48_000
        let loud = (0..<n).map { i in Float(0.9 * sin(2 * Double.pi * 3_000 * Double(i) / 48_000)) }
        let (out, latency) = try Self.render(#"{"type": "drivers", "outputs": [{"limit": -3}, {"limit": -12}, {}]}"#, input: [loud, loud, loud])
        #expect(latency > 0)
        for (c, ceiling) in [(0, -3.0), (1, -12.0)] {
            let peak = TruePeakReference.dB(Array(out[c][4_800...]))
            print("drivers limit \(ceiling) dBTP: true peak \(String(format: "%.2f", peak)) dBTP")
            #expect(peak <= ceiling + 0.1)
            #expect(peak > ceiling - 1)
        }
        var worst: Float = 0
        for i in latency..<n { worst = max(worst, abs(out[2][i] - loud[i - latency])) }
        #expect(worst == 0, "the output without a limit changed by \(worst)")
    }

    @Test func sameBitsAtEveryBlockSize() throws {
        let x = Signals.noise(12_000, amplitude: 0.8, seed: 9)
        let node = #"{"type": "drivers", "outputs": [{"delaySamples": 3.3, "limit": -6}, {"delay": 2, "gain": 3, "invert": true}]}"#
        let reference = try Self.render(node, input: [x, x]).output
        for block in [1, 64, 1000] { #expect(try Self.render(node, input: [x, x], block: block).output == reference, "block \(block)") }
    }

    @Test func badSettingsAreRefusedWithTheirPath() throws {
        func error(_ node: String) -> String {
            do { _ = try Self.render(node, input: [[0, 0], [0, 0]]); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"type": "drivers", "outputs": [{}]}"#).contains("chain[0].outputs: 1 outputs for a chain of 2 channels here"))
        #expect(error(#"{"type": "drivers", "outputs": [{"delay": 1, "delayMm": 3}, {}]}"#).contains("chain[0].outputs[0]: give one of delay (ms), delaySamples and delayMm"))
        #expect(error(#"{"type": "drivers", "outputs": [{"limit": 3}, {}]}"#).contains("chain[0].outputs[0].limit: 3 is out of range (allowed -40…0 dBTP)"))
        #expect(error(#"{"type": "drivers", "outputs": [{"gain": 0, "colour": 1}, {}]}"#).contains("chain[0].outputs[0].colour: unknown key"))
    }
}
