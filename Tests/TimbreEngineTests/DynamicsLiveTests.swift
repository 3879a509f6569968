import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreControl
import TimbreTestSupport

/// The dynamics nodes under live edits and in graphs: their state carries across plan swaps
/// (an edit elsewhere does not restart them), their own parameters change without a click, and
/// a limiter's lookahead is compensated on the parallel paths of a graph.
@Suite(.serialized) struct DynamicsLiveTests {
    static let rate = 48000.0
    static let nodes = [
        #"{"type": "compressor", "id": "dyn", "threshold": -30, "ratio": 4, "attack": 5, "release": 200}"#,
        #"{"type": "limiter", "id": "dyn", "ceiling": -12, "release": 200}"#,
        #"{"type": "gate", "id": "dyn", "threshold": -30, "release": 200}"#,
        #"{"type": "expander", "id": "dyn", "threshold": -10, "ratio": 3, "range": 30}"#,
    ]

    /// A −6 dBFS sine with a slow tremolo (so the dynamics keep moving), 2 s.
    static let signal: [Float] = (0..<96_000).map { i in
        let t = Double(i) / rate
        return Float(0.5 * (0.6 + 0.4 * sin(2 * Double.pi * 1.3 * t)) * sin(2 * Double.pi * 997 * t))
    }

    /// An edit to a neighbouring node swaps the plan; the dynamics node continues its gain,
    /// detector, hold and lookahead: the output equals the output without the edit (the
    /// neighbour's change is 0.0001 dB), where a restarted node would differ by decibels.
    @Test(arguments: nodes)
    func stateCarriesAcrossPlanSwaps(node: String) throws {
        let chain = #"{"type": "peak", "id": "nb", "frequency": 1000, "gain": 0, "q": 1}, \#(node)"#
        func render(edit: Bool) throws -> [Float] {
            let engine = try LiveEngine(document: LiveEngineTests.document(chain), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
            let d = LiveEngineTests.Driver(engine, block: 256)
            var y = d.run(Self.signal[0..<48_000])
            if edit { try engine.apply(.set(address: "nb.gain", value: 0.0001)) }
            y += d.run(Self.signal[48_000...])
            return y
        }
        let plain = try render(edit: false), edited = try render(edit: true)
        let worst = zip(plain, edited).map { abs($0 - $1) }.max() ?? 1
        print(String(format: "%@: largest difference after an edit elsewhere %.2e", String(node.prefix(30)), worst))
        #expect(worst < 1e-3, "\(node): \(worst)")
    }

    /// Changing the node's own setting mid-signal (threshold or ceiling lower, so the output
    /// gets quieter) moves the gain with its time constants: the largest sample step around
    /// the edit stays within the output's own largest step before it (no click), and the edit
    /// takes effect (the tail is at least 3 dB quieter than without it).
    @Test(arguments: [("compressor", "dyn.threshold", -36.0), ("limiter", "dyn.ceiling", -18.0), ("gate", "dyn.threshold", -4.0), ("expander", "dyn.threshold", -4.0)])
    func ownParameterChangesWithoutAClick(kind: String, address: String, value: Double) throws {
        let node = Self.nodes.first { $0.contains("\"\(kind)\"") }!
        func render(edit: Bool) throws -> [Float] {
            let engine = try LiveEngine(document: LiveEngineTests.document(node), sampleRate: Self.rate, inputChannelCount: 1, outputChannelCount: 1)
            let d = LiveEngineTests.Driver(engine, block: 256)
            var y = d.run(Self.signal[0..<48_000])
            if edit { try engine.apply(.set(address: address, value: value)) }
            y += d.run(Self.signal[48_000...])
            return y
        }
        let y = try render(edit: true), plain = try render(edit: false)
        let before = LiveEngineTests.maxStep(y[36_000..<48_000])
        let around = LiveEngineTests.maxStep(y[48_000..<60_000])
        func rms(_ x: ArraySlice<Float>) -> Double { (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }
        let change = 20 * log10(rms(y[72_000...]) / rms(plain[72_000...]))
        print(String(format: "%@ %@ → %g: largest step around the edit %.5f (before it %.5f); tail %.1f dB", kind, address, value, around, before, change))
        #expect(around <= before * 1.01, "\(kind): step \(around) > \(before)")
        #expect(change < -3, "\(kind): the edit did not take effect (\(change) dB)")
    }

    /// Two paths from one input into the master, one through a limiter (its lookahead is
    /// latency) whose ceiling the signal never reaches: the other path is delayed to match, so
    /// the sum is the input doubled and delayed, sample for sample (no comb filter).
    @Test func limiterLatencyIsCompensatedOnParallelPaths() throws {
        let preset = try PresetDecoder.decode(Data(#"""
        {"version": 1, "name": "parallel", "graph": {"channels": [
          {"id": "limited", "input": [0], "chain": [{"type": "limiter", "ceiling": 0, "lookahead": 3}]},
          {"id": "dry", "input": [0]}], "master": {"chain": []}}}
        """#.utf8))
        let x = Self.signal.map { $0 * 0.5 }
        let (out, plan) = try PresetRender.render(preset, input: [x], block: 256, rate: Self.rate)
        let latency = plan.latencyFrames
        #expect(latency == TruePeakLimiter.latencyFrames(lookaheadFrames: 144))
        // Both channels are panned centre (equal-power, −3.01 dB each side): the left output is
        // 2 × 0.7071 × the input, `latency` frames late.
        let gain = Float(2 * cos(Double.pi / 4))
        var worst: Float = 0
        for i in latency..<x.count { worst = max(worst, abs(out[0][i] - gain * x[i - latency])) }
        print("limiter on one of two parallel paths: latency \(latency) frames, worst difference from the aligned sum \(worst)")
        #expect(worst < 1e-5)
    }
}
