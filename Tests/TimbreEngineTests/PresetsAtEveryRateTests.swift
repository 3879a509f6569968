import Foundation
import Testing
import TimbreEngine
import TimbreTestSupport

/// Every shipped preset runs at every rate libsndfile's users meet, 8 kHz to 192 kHz, and its
/// equalisers and filters keep their analog response below 0.9 × Nyquist: the impulse
/// response of the real plan, read by a naive DFT at each grid frequency, against the analog
/// prototypes' |H| computed independently from the designs' formulas. Narrow bells near the
/// top of the band are judged on a grid dense around f0, as a 2^18-point FFT would see them.
@Suite struct PresetsAtEveryRateTests {
    static let rates: [Double] = [8000, 16000, 22050, 32000, 44100, 48000, 96000, 192000]

    /// The linear nodes of each series chain of a preset (the chain; each graph channel,
    /// group and the master bus), bypassed nodes left out.
    static func linearChains(_ preset: Preset) -> [[NodeSpec]] {
        func linear(_ nodes: [NodeSpec]) -> [NodeSpec] {
            nodes.filter { !$0.bypass && ($0.kind.settings(as: EQSettings.self) != nil || $0.kind.settings(as: FilterSettings.self)?.design != nil) }
        }
        switch preset.form {
        case .chain(let nodes): return [linear(nodes)]
        case .graph(let g): return (g.channels.map(\.chain) + g.groups.map(\.chain) + [g.master.chain]).map(linear).filter { !$0.isEmpty }
        }
    }

    static func designs(_ nodes: [NodeSpec]) -> [FilterDesign] {
        nodes.flatMap { n -> [FilterDesign] in
            if let eq = n.kind.settings(as: EQSettings.self) { return eq.bands.map(\.design) }
            return n.kind.settings(as: FilterSettings.self).map { [$0.design] } ?? []
        }
    }

    /// The impulse response of `nodes` rendered by a real plan at `rate`, long enough to decay.
    static func impulseResponse(_ nodes: [NodeSpec], rate: Double, frames: Int) throws -> [Float] {
        var impulse = [Float](repeating: 0, count: frames)
        impulse[0] = 0.5
        let (out, _) = try PresetRender.render(Preset(name: "t", form: .chain(nodes)), input: [impulse], block: 512, rate: rate)
        return out[0].map { $0 * 2 }
    }

    /// |DFT| in dB of `h` at `hz` (naive sum: no FFT bin spacing between the grid and the truth).
    static func dftMagnitudeDB(_ h: [Float], hz: Double, rate: Double) -> Double {
        let w = 2 * Double.pi * hz / rate
        var re = 0.0, im = 0.0
        for (n, v) in h.enumerated() where v != 0 { re += Double(v) * cos(w * Double(n)); im -= Double(v) * sin(w * Double(n)) }
        return 10 * log10(re * re + im * im)
    }

    /// A log grid from 20 Hz to 0.9 × Nyquist, plus 21 points across f0 ± f0/Q and the band
    /// edges of every bell and shelf that lies in it.
    static func grid(_ designs: [FilterDesign], rate: Double, points: Int = 240, top: Double? = nil) -> [Double] {
        let top = top ?? 0.45 * rate
        var g = (0..<points).map { 20 * pow(top / 20, Double($0) / Double(points - 1)) }
        for d in designs where d.type.hasGain || d.type == .lowPass {
            let half = d.frequencyHz / max(d.q, 0.1)
            for k in 0...20 { g.append(d.frequencyHz - half + 2 * half * Double(k) / 20) }
        }
        return g.filter { $0 >= 20 && $0 <= top }.sorted()
    }

    @Test(arguments: ShippedPresetTests.files.map { $0.deletingPathExtension().lastPathComponent })
    func shippedPresetAtEveryRate(name: String) throws {
        let preset = try PresetDecoder.decode(contentsOf: ShippedPresetTests.presetsDir.appendingPathComponent(name + ".json"))
        var table: [String] = []
        for rate in Self.rates {
            // The whole preset runs (noise on every input it reads, finite audio out).
            let noise = (0..<max(2, preset.inputChannelsUsed)).map { Signals.noise(Int(rate / 4), amplitude: 0.1, seed: UInt64(1 + $0)) }
            let (out, _) = try PresetRender.render(preset, input: noise, block: 512, rate: rate)
            #expect(out.allSatisfy { $0.allSatisfy(\.isFinite) }, "\(name) at \(rate) Hz: non-finite output")
            var worst = 0.0
            for chain in Self.linearChains(preset) {
                let designs = Self.designs(chain)
                let h = try Self.impulseResponse(chain, rate: rate, frames: Int(rate))
                for f in Self.grid(designs, rate: rate) {
                    let analog = designs.reduce(0) { $0 + $1.analogMagnitudeDB(at: f) }
                    worst = max(worst, abs(Self.dftMagnitudeDB(h, hz: f, rate: rate) - analog))
                }
            }
            table.append(String(format: "%6.0f Hz: %.3f dB", rate, worst))
            #expect(worst <= 0.5, "\(name) at \(rate) Hz: \(worst) dB from the analog response below 0.9 × Nyquist")
        }
        print("\(name): " + table.joined(separator: ", "))
    }

    /// Bells a user can type, near the top of the band and narrow: 0.5 dB from the analog
    /// bell on the dense grid up to 22 kHz (the issue's case: 20 kHz, −20 dB, Q 20 at 48 kHz).
    @Test(arguments: [44100.0, 48000, 96000])
    func narrowBells(rate: Double) throws {
        var worstCase = (error: 0.0, what: "")
        for f0 in [1000.0, 5000, 10000, 15000, 18000, 19000, 20000] where f0 < 0.49 * rate {
            for gain in [-20.0, -6, 6, 20] {
                for q in [0.3, 1, 4, 10, 20] {
                    let d = FilterDesign(type: .peak, frequencyHz: f0, gainDB: gain, q: q)
                    // Judged to 22 kHz at most: the audible band and the edges of a 20 kHz bell
                    // (the designs spend no accuracy on 22–43 kHz at 96 kHz; MatchedDesign.topOfBand).
                    for f in Self.grid([d], rate: rate, points: 120, top: min(0.45 * rate, 22000)) {
                        let digital = d.sections(sampleRate: rate).reduce(0) { $0 + $1.magnitudeDB(at: f, sampleRate: rate) }
                        let e = abs(digital - d.analogMagnitudeDB(at: f))
                        if e > worstCase.error { worstCase = (e, "f0 \(f0) gain \(gain) Q \(q) at \(String(format: "%.1f", f)) Hz") }
                    }
                }
            }
        }
        print(String(format: "narrow bells at %.0f Hz: worst %.3f dB (%@)", rate, worstCase.error, worstCase.what))
        #expect(worstCase.error <= 0.5, "\(worstCase.what): \(worstCase.error) dB")
    }

    /// A high-pass above Nyquist is an error naming it; a low-pass there passes.
    @Test func filtersAboveNyquist() throws {
        let hp = Preset(name: "hp", form: .chain([NodeSpec(id: "hp", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 12000, q: 0.707)), path: "chain[0]")]))
        #expect(throws: PresetError.self) { _ = try RenderPlan(preset: hp, format: RenderFormat(sampleRate: 16000, inputChannelCount: 1, maxBlockFrames: 64)) }
        do { _ = try RenderPlan(preset: hp, format: RenderFormat(sampleRate: 16000, inputChannelCount: 1, maxBlockFrames: 64)) }
        catch { #expect("\(error)".contains("chain[0].frequency") && "\(error)".contains("high-pass")) }
        let lp = FilterDesign(type: .lowPass, frequencyHz: 20000, q: 0.707)
        #expect(lp.sections(sampleRate: 8000).isEmpty, "a 20 kHz low-pass does nothing below 4 kHz: no section")
    }
}
