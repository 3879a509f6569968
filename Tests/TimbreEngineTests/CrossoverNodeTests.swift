import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `crossover` node (#40) through a real plan, against the analytic responses: an impulse
/// through the node, each band's response evaluated by a naive DFT on a 1/48-octave grid from
/// 20 Hz to 20 kHz (481 points) and compared with the Butterworth magnitudes
/// 1/√(1 + w²ᴺ) (low) and wᴺ/√(1 + w²ᴺ) (high), w = tan(πf/fs)/tan(πf꜀/fs) (the bilinear
/// transform's frequency); the bands' sum against the allpass B(−s)/B(s) built from the
/// Butterworth poles (not from the design's sections). Tolerances: the sum within 0.01 dB and
/// 0.1° of the allpass (the issue's bar); each band within 0.01 dB where it is above −60 dB.
@Suite struct CrossoverNodeTests {
    static let frames = 1 << 16

    /// The node's bands for a unit impulse on one channel (mono chain).
    static func bands(_ node: String, rate: Double) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [\#(node)]}"#.utf8))
        var impulse = [Float](repeating: 0, count: frames)
        impulse[0] = 1
        return try PresetRender.render(preset, input: [impulse], block: 512, rate: rate).output
    }

    /// Σ h[n] e^(−jωn) at `hz` (naive DFT, Double).
    static func dft(_ h: [Float], hz: Double, rate: Double) -> (re: Double, im: Double) {
        let w = 2 * Double.pi * hz / rate
        var re = 0.0, im = 0.0
        // Rotate a phasor (recomputed every 1,024 samples to keep it exact).
        var c = 1.0, s = 0.0
        let dc = cos(w), ds = sin(w)
        for n in 0..<h.count {
            if n % 1024 == 0 { c = cos(w * Double(n)); s = sin(w * Double(n)) }
            re += Double(h[n]) * c; im -= Double(h[n]) * s
            let c2 = c * dc - s * ds
            s = s * dc + c * ds; c = c2
        }
        return (re, im)
    }

    static let grid: [Double] = (0...480).map { 20 * pow(2, Double($0) / 48) }.filter { $0 <= 20_000 } + [20_000]

    /// Butterworth B(s) of order n at s = jw, from its poles e^(jπ(2k + n − 1)/(2n)).
    static func butterworth(_ n: Int, _ s: (re: Double, im: Double)) -> (re: Double, im: Double) {
        var v = (re: 1.0, im: 0.0)
        for k in 1...n {
            let a = Double.pi * Double(2 * k + n - 1) / Double(2 * n)
            let f = (re: s.re - cos(a), im: s.im - sin(a))
            v = (v.re * f.re - v.im * f.im, v.re * f.im + v.im * f.re)
        }
        return v
    }

    /// The allpass B(−s)/B(s) at `hz` for a split at `fc`.
    static func allpass(_ n: Int, hz: Double, fc: Double, rate: Double) -> (re: Double, im: Double) {
        let w = tan(Double.pi * hz / rate) / tan(Double.pi * fc / rate)
        let num = butterworth(n, (0, -w)), den = butterworth(n, (0, w))
        let d = den.re * den.re + den.im * den.im
        return ((num.re * den.re + num.im * den.im) / d, (num.im * den.re - num.re * den.im) / d)
    }

    static func db(_ z: (re: Double, im: Double)) -> Double { 10 * log10(z.re * z.re + z.im * z.im) }
    static func phaseDegrees(_ z: (re: Double, im: Double)) -> Double { atan2(z.im, z.re) * 180 / Double.pi }

    @Test(arguments: [2, 4, 8], [[2_500.0], [300.0, 3_000.0], [120.0, 800.0, 5_000.0]])
    func linkwitzRileyBandsSumToTheAllpass(order: Int, splits: [Double]) throws {
        for rate in [44_100.0, 48_000.0] {
            let list = splits.map { JSONValue.number($0).brief }.joined(separator: ", ")
            let out = try Self.bands(#"{"type": "crossover", "frequencies": [\#(list)], "order": \#(order)}"#, rate: rate)
            #expect(out.count == splits.count + 1)
            var sum = [Float](repeating: 0, count: Self.frames)
            for band in out { for i in 0..<Self.frames { sum[i] += band[i] } }
            var worstDB = 0.0, worstPhase = 0.0, worstBand = 0.0
            for f in Self.grid {
                let h = Self.dft(sum, hz: f, rate: rate)
                var ap = (re: 1.0, im: 0.0)
                for fc in splits {
                    let a = Self.allpass(order / 2, hz: f, fc: fc, rate: rate)
                    ap = (ap.re * a.re - ap.im * a.im, ap.re * a.im + ap.im * a.re)
                }
                worstDB = max(worstDB, abs(Self.db(h)))
                var dp = Self.phaseDegrees(h) - Self.phaseDegrees(ap)
                dp -= 360 * (dp / 360).rounded()
                worstPhase = max(worstPhase, abs(dp))
                // Each band: the high-passes of every split below it, its own split's low-pass.
                for (b, band) in out.enumerated() {
                    var expected = 0.0
                    for (k, fc) in splits.enumerated() where k <= b {
                        let w = tan(Double.pi * f / rate) / tan(Double.pi * fc / rate), n = Double(order / 2)
                        let low = -10 * log10(1 + pow(w, 2 * n)) * 2
                        expected += k == b ? low : low + 2 * 20 * n * log10(w)
                    }
                    guard expected > -60 else { continue }
                    worstBand = max(worstBand, abs(Self.db(Self.dft(band, hz: f, rate: rate)) - expected))
                }
            }
            print("crossover LR\(order) at \(list) Hz, \(Int(rate)) Hz: sum within \(String(format: "%.5f", worstDB)) dB and \(String(format: "%.4f", worstPhase))° of the allpass; bands within \(String(format: "%.5f", worstBand)) dB of analytic (20 Hz–20 kHz, 1/48 octave)")
            #expect(worstDB < 0.01)
            #expect(worstPhase < 0.1)
            #expect(worstBand < 0.01)
        }
    }

    /// Butterworth of every order: each band's magnitude against the analytic curve; the sum
    /// of a 2-way as stated (flat for odd orders, +3 dB at the split for even ones, whose high
    /// band is inverted).
    @Test(arguments: 1...8)
    func butterworthBands(order: Int) throws {
        let rate = 48_000.0, fc = 1_000.0
        let out = try Self.bands(#"{"type": "crossover", "frequency": 1000, "alignment": "butterworth", "order": \#(order)}"#, rate: rate)
        var sum = [Float](repeating: 0, count: Self.frames)
        for band in out { for i in 0..<Self.frames { sum[i] += band[i] } }
        var worstBand = 0.0, sumLow = 0.0, sumHigh = 0.0
        for f in Self.grid {
            let w = tan(Double.pi * f / rate) / tan(Double.pi * fc / rate), n = Double(order)
            let low = -10 * log10(1 + pow(w, 2 * n)), high = low + 20 * n * log10(w)
            for (band, expected) in zip(out, [low, high]) where expected > -60 {
                worstBand = max(worstBand, abs(Self.db(Self.dft(band, hz: f, rate: rate)) - expected))
            }
            let s = Self.db(Self.dft(sum, hz: f, rate: rate))
            sumLow = min(sumLow, s); sumHigh = max(sumHigh, s)
        }
        let atSplit = Self.db(Self.dft(sum, hz: fc, rate: rate))
        print("crossover Butterworth \(order) at 1 kHz: bands within \(String(format: "%.5f", worstBand)) dB of analytic; sum \(String(format: "%+.3f", sumLow))…\(String(format: "%+.3f", sumHigh)) dB, \(String(format: "%+.3f", atSplit)) dB at the split")
        #expect(worstBand < 0.01)
        if order % 2 == 1 {
            #expect(max(-sumLow, sumHigh) < 0.01)
        } else {
            #expect(abs(atSplit - 10 * log10(2)) < 0.01)
        }
    }

    /// A stereo chain comes out band by band (low L, low R, high L, high R), and the same bits
    /// come out at every block size.
    @Test func stereoOrderAndBlockSizes() throws {
        let l = Signals.noise(20_000, amplitude: 0.3, seed: 5), r = Signals.noise(20_000, amplitude: 0.3, seed: 6)
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [{"type": "crossover", "frequencies": [200, 2000], "order": 8}]}"#.utf8))
        let reference = try PresetRender.render(preset, input: [l, r], block: 512).output
        #expect(reference.count == 6)
        let leftOnly = try PresetRender.render(preset, input: [l, [Float](repeating: 0, count: l.count)], block: 512).output
        for band in 0..<3 {
            #expect(leftOnly[2 * band] == reference[2 * band])
            #expect(leftOnly[2 * band + 1].allSatisfy { $0 == 0 })
        }
        for block in [1, 64, 1000] {
            #expect(try PresetRender.render(preset, input: [l, r], block: block).output == reference, "block \(block)")
        }
    }

    @Test func badSettingsAreRefusedWithTheirPath() throws {
        func error(_ node: String) -> String {
            do {
                let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [\#(node)]}"#.utf8))
                _ = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: 48_000, inputChannelCount: 2, maxBlockFrames: 64))
                return ""
            } catch { return "\(error)" }
        }
        #expect(error(#"{"type": "crossover", "frequency": 2000, "order": 3}"#).contains("chain[0].order: 3 is not an order of linkwitz-riley (allowed 2, 4, 8)"))
        #expect(error(#"{"type": "crossover", "frequencies": [2000, 300]}"#).contains("chain[0].frequencies[1]: 300 Hz is not above"))
        #expect(error(#"{"type": "crossover", "frequencies": [100, 200, 400, 800, 1600]}"#).contains("5 split frequencies (allowed 1…4"))
        #expect(error(#"{"type": "crossover"}"#).contains("chain[0].frequency: missing required field"))
        #expect(error(#"{"type": "crossover", "frequency": 30000}"#).contains("out of range (allowed 20…20000 Hz)"))
        let graph = #"{"version": 1, "name": "g", "graph": {"channels": [{"id": "a", "input": [0, 1], "chain": [{"type": "crossover", "frequency": 2000}]}]}}"#
        do {
            _ = try RenderPlan(preset: try PresetDecoder.decode(Data(graph.utf8)), format: RenderFormat(sampleRate: 48_000, inputChannelCount: 2, maxBlockFrames: 64))
            Issue.record("a crossover in a channel's chain compiled")
        } catch {
            #expect("\(error)".contains("carries at most 2 channels, and this node makes 4"))
        }
    }

    /// On a graph's master chain the bands are the graph's outputs.
    @Test func graphMasterOutputsTheBands() throws {
        let graph = #"{"version": 1, "name": "g", "graph": {"channels": [{"id": "a", "input": [0, 1]}], "master": {"chain": [{"type": "crossover", "frequencies": [300, 3000]}], "volume": 0.5}}}"#
        let l = Signals.noise(8_000, amplitude: 0.3, seed: 7), r = Signals.noise(8_000, amplitude: 0.3, seed: 8)
        let out = try PresetRender.render(try PresetDecoder.decode(Data(graph.utf8)), input: [l, r], block: 256).output
        #expect(out.count == 6)
        let chain = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [{"type": "crossover", "frequencies": [300, 3000]}, {"type": "gain", "gain": -6.0206}]}"#.utf8))
        let direct = try PresetRender.render(chain, input: [l, r], block: 256).output
        var worst: Float = 0
        for c in 0..<6 { for i in 0..<l.count { worst = max(worst, abs(out[c][i] - direct[c][i])) } }
        #expect(worst < 1e-5)
    }
}
