import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// An `eq` switched to linear (or minimum) phase: one FIR designed from the bands' analog
/// prototypes, rendered through the engine, its magnitude read by a naive DFT in Double
/// (written here) against the analog target at 400 log-spaced frequencies, 20 Hz–20 kHz.
@Suite struct EQLinearPhaseTests {
    static let bands = #"[{"frequency": 31.5, "gain": 6, "q": 1.4}, {"frequency": 250, "gain": -4, "q": 2}, {"frequency": 3000, "gain": 3}, {"frequency": 12000, "gain": 4, "q": 0.7, "shape": "highshelf"}, {"frequency": 18000, "gain": -3, "q": 2}]"#

    /// The node's impulse response (`frames` long) and the plan's latency.
    static func impulseResponse(_ node: String, rate: Double, frames: Int) throws -> (h: [Float], latency: Int) {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [\#(node)]}"#.utf8))
        var impulse = [Float](repeating: 0, count: frames); impulse[0] = 1
        let (y, plan) = try PresetRender.render(preset, input: [impulse], block: 512, rate: rate)
        return (y[0], plan.latencyFrames)
    }

    /// |H(f)| in dB by a naive DFT (a phasor rotated in Double, renormalised every 1,024 taps).
    static func magnitudeDB(_ h: [Float], at f: Double, rate: Double) -> Double {
        let w = 2 * Double.pi * f / rate
        var re = 0.0, im = 0.0, c = 1.0, s = 0.0
        let dc = cos(w), ds = -sin(w)
        for (n, x) in h.enumerated() {
            if x != 0 { re += Double(x) * c; im += Double(x) * s }
            (c, s) = (c * dc - s * ds, c * ds + s * dc)
            if n % 1_024 == 1_023 { c = cos(w * Double(n + 1)); s = -sin(w * Double(n + 1)) }
        }
        return 10 * log10(re * re + im * im)
    }

    /// The analog target: each band's prototype magnitude, summed in dB.
    static func target(_ f: Double) -> Double {
        let bands: [FilterDesign] = [FilterDesign(type: .peak, frequencyHz: 31.5, gainDB: 6, q: 1.4), FilterDesign(type: .peak, frequencyHz: 250, gainDB: -4, q: 2),
                                     FilterDesign(type: .peak, frequencyHz: 3_000, gainDB: 3, q: 1), FilterDesign(type: .highShelf, frequencyHz: 12_000, gainDB: 4, q: 0.7),
                                     FilterDesign(type: .peak, frequencyHz: 18_000, gainDB: -3, q: 2)]
        return bands.reduce(0) { $0 + $1.analogMagnitudeDB(at: f) }
    }

    /// Linear phase: within 0.05 dB of the analog target from 20 Hz to 20 kHz (the matched
    /// biquads' own target, bells up to 18 kHz included), symmetric taps (flat group delay),
    /// the latency reported is where the response's centre lands.
    @Test(arguments: [44_100.0, 48_000.0])
    func linearPhaseFollowsTheAnalogTarget(rate: Double) throws {
        let (h, latency) = try Self.impulseResponse(#"{"type": "eq", "phase": "linear", "bands": \#(Self.bands)}"#, rate: rate, frames: 70_000)
        let taps = 2 * latency + 1
        let grid = (0..<400).map { 20 * pow(1000, Double($0) / 399) }.filter { $0 < 0.49 * rate }
        let worst = grid.map { abs(Self.magnitudeDB(Array(h.prefix(taps)), at: $0, rate: rate) - Self.target($0)) }.max() ?? 0
        let peak = h.map(abs).max() ?? 1
        let asymmetry = (0..<latency).map { abs(h[$0] - h[taps - 1 - $0]) }.max() ?? 0
        print(String(format: "linear-phase eq at %.1f kHz: %d taps, latency %d frames (%.0f ms), worst %.4f dB from the analog target 20 Hz–20 kHz, asymmetry %.1e of peak",
                     rate / 1000, taps, latency, Double(latency) / rate * 1000, worst, Double(asymmetry / peak)))
        #expect(worst < 0.05)
        #expect(asymmetry <= 1e-6 * peak, "group delay is flat only for a symmetric response")
        // The narrowest band (31.5 Hz, Q 1.4: 22.5 Hz wide) asks for 24 × fs / 22.5 taps: the
        // largest, 65,536 (65,537 in linear phase); the impulse's centre is at the latency.
        #expect(latency == 32_768)
        #expect(h.indices.max { abs(h[$0]) < abs(h[$1]) } == latency)
    }

    /// Minimum phase: the same magnitude with no latency, its energy at the start.
    @Test func minimumPhaseHasNoLatency() throws {
        let (h, latency) = try Self.impulseResponse(#"{"type": "eq", "phase": "minimum", "bands": \#(Self.bands)}"#, rate: 48_000, frames: 70_000)
        #expect(latency == 0)
        let worst = (0..<200).map { 20 * pow(1000, Double($0) / 199) }.map { abs(Self.magnitudeDB(h, at: $0, rate: 48_000) - Self.target($0)) }.max() ?? 0
        print(String(format: "minimum-phase eq at 48 kHz: worst %.4f dB from the analog target", worst))
        #expect(worst < 0.05)
        let peak = h.indices.max { abs(h[$0]) < abs(h[$1]) }!
        #expect(peak < 64)
    }

    /// `taps` needs `phase`; taps given are used; a graph compensates the FIR's latency on the
    /// other paths (its channels stay aligned).
    @Test func tapsAndLatencyCompensation() throws {
        #expect { try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [{"type": "eq", "taps": 4096}]}"#.utf8)) } throws: {
            "\($0)".contains("chain[0].taps: taps sets the FIR of a linear- or minimum-phase eq")
        }
        let (_, latency) = try Self.impulseResponse(#"{"type": "eq", "phase": "linear", "taps": 4096, "bands": [{"frequency": 1000, "gain": 3}]}"#, rate: 48_000, frames: 8_192)
        #expect(latency == 2_048)
        let graph = #"{"version": 1, "name": "g", "graph": {"channels": [{"id": "a", "input": [0], "chain": [{"type": "eq", "phase": "linear", "taps": 4096, "bands": [{"frequency": 1000, "gain": 0.0001}]}]}, {"id": "b", "input": [0]}]}}"#
        let preset = try PresetDecoder.decode(Data(graph.utf8))
        var impulse = [Float](repeating: 0, count: 6_000); impulse[0] = 1
        let (y, plan) = try PresetRender.render(preset, input: [impulse], block: 256)
        #expect(plan.latencyFrames == 2_048)
        // Both channels' impulses arrive together at the latency (the plain path delayed to match).
        let arrival = y[0].indices.max { abs(y[0][$0]) < abs(y[0][$1]) }!
        #expect(arrival == 2_048, "impulse at \(arrival)")
    }
}
