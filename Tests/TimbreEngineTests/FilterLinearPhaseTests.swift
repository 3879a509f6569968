import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// Filter nodes with `phase`: one FIR of the design's analog prototype magnitude, rendered
/// through the engine, its magnitude read by a naive DFT in Double against the analog target
/// on 400 log-spaced frequencies from 20 Hz to 20 kHz (below 0.49 × the rate).
@Suite struct FilterLinearPhaseTests {
    /// Where the target is above −40 dB the FIR is within 0.05 dB of it; below, at most 1 dB
    /// above the target (or −60 dB where it is deeper). A notch (−∞ at its centre, 12.5 Hz
    /// wide here) is followed within 0.1 dB above −6 dB; its bottom is filled in by the
    /// window's resolution (about 3 × fs / taps);
    /// linear phase: symmetric taps, the latency reported where the impulse's centre lands.
    @Test(arguments: [
        (#"{"type": "highpass", "frequency": 80, "slope": 24}"#, FilterDesign(type: .highPass, frequencyHz: 80, slopeDBPerOctave: 24), -40.0),
        (#"{"type": "lowpass", "frequency": 5000, "q": 2}"#, FilterDesign(type: .lowPass, frequencyHz: 5_000, q: 2), -40),
        (#"{"type": "lowshelf", "frequency": 120, "gain": -6, "q": 0.7}"#, FilterDesign(type: .lowShelf, frequencyHz: 120, gainDB: -6, q: 0.7), -40),
        (#"{"type": "notch", "frequency": 50, "q": 4}"#, FilterDesign(type: .notch, frequencyHz: 50, q: 4), -6),
        (#"{"type": "peak", "frequency": 15000, "gain": 5, "q": 1.5}"#, FilterDesign(type: .peak, frequencyHz: 15_000, gainDB: 5, q: 1.5), -40),
    ])
    func linearPhaseFollowsTheAnalogTarget(node: String, design: FilterDesign, floorDB: Double) throws {
        for rate in [44_100.0, 48_000.0] {
            let (h, latency) = try EQLinearPhaseTests.impulseResponse(String(node.dropLast()) + #", "phase": "linear"}"#, rate: rate, frames: 70_000)
            let taps = 2 * latency + 1
            let fir = Array(h.prefix(taps))
            let grid = (0..<400).map { 20 * pow(1000, Double($0) / 399) }.filter { $0 < 0.49 * rate }
            var worst = 0.0, deepest = -Double.infinity
            for f in grid {
                let got = EQLinearPhaseTests.magnitudeDB(fir, at: f, rate: rate), target = design.analogMagnitudeDB(at: f)
                if target > floorDB { worst = max(worst, abs(got - target)) } else { deepest = max(deepest, got - max(target, -60)) }
            }
            let asymmetry = (0..<latency).map { abs(fir[$0] - fir[taps - 1 - $0]) }.max() ?? 0
            let peak = fir.map(abs).max() ?? 1
            print(String(format: "linear-phase %@ at %.1f kHz: %d taps, latency %d (%.0f ms), worst %.4f dB from the analog target above %.0f dB; below, at most %.2f dB above it (or -60 dB)",
                         design.type.rawValue, rate / 1000, taps, latency, Double(latency) / rate * 1000, worst, floorDB, deepest))
            #expect(worst < (floorDB < -10 ? 0.05 : 0.1), "\(node) at \(rate)")
            #expect(deepest < (floorDB < -10 ? 1 : 20), "\(node) at \(rate): the stopband rises \(deepest) dB over the target")
            #expect(asymmetry <= 1e-6 * peak)
            #expect(latency == FilterNode.firTaps(for: FilterSettings(design, phase: .linear), sampleRate: rate) / 2)
        }
    }

    /// Minimum phase: no latency, the same magnitude; `taps` needs `phase` and is used as given;
    /// a live edit of a FIR filter compiles a plan (nothing moves in place).
    @Test func minimumPhaseTapsAndEdits() throws {
        let (h, latency) = try EQLinearPhaseTests.impulseResponse(#"{"type": "highpass", "frequency": 100, "slope": 12, "phase": "minimum", "taps": 16384}"#, rate: 48_000, frames: 20_000)
        #expect(latency == 0)
        let design = FilterDesign(type: .highPass, frequencyHz: 100, slopeDBPerOctave: 12)
        let worst = (0..<200).map { 30 * pow(600, Double($0) / 199) }.map { abs(EQLinearPhaseTests.magnitudeDB(h, at: $0, rate: 48_000) - design.analogMagnitudeDB(at: $0)) }.max() ?? 0
        print(String(format: "minimum-phase highpass 100 Hz 12 dB/oct, 16,384 taps: worst %.4f dB from the analog target 30 Hz–18 kHz", worst))
        #expect(worst < 0.05)
        #expect { try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [{"type": "lowpass", "taps": 4096}]}"#.utf8)) } throws: {
            "\($0)".contains("chain[0].taps: taps sets the FIR of a linear- or minimum-phase filter")
        }
        let document = try PresetDecoder.parse(Data(#"{"version": 1, "name": "t", "chain": [{"type": "highpass", "id": "hp", "frequency": 80, "phase": "linear", "taps": 4096}]}"#.utf8))
        let engine = try LiveEngine(document: document, sampleRate: 48_000, inputChannelCount: 1, outputChannelCount: 1, maxBlockFrames: 256)
        #expect(engine.latencyFrames == 2_048)
        let edit = try PresetDecoder.parse(Data(#"{"version": 1, "name": "t", "chain": [{"type": "highpass", "id": "hp", "frequency": 120, "phase": "linear", "taps": 4096}]}"#.utf8))
        #expect(try engine.apply(document: edit) == .planSwap, "a FIR filter's frequency cannot move inside its kernel")
    }
}
