import Foundation
import Testing
import TimbreEngine

/// EqualizerAPO / AutoEQ parametric files imported as presets: every type maps, a bad line is
/// named, and an AutoEQ-style headphone correction keeps the analog shape of its filters at
/// 44.1 and 48 kHz, where EqualizerAPO's own bilinear bands cramp near Nyquist.
@Suite struct ParametricEQImportTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/autoeq-ParametricEQ.txt")

    static func designs(_ preset: Preset) -> (preampDB: Double, designs: [FilterDesign]) {
        var preamp = 0.0, designs: [FilterDesign] = []
        for n in preset.allNodes {
            if let g = n.kind.settings(as: GainSettings.self) { preamp += 20 * log10(g.linear) }
            if let eq = n.kind.settings(as: EQSettings.self) { designs += eq.bands.map(\.design) }
            if let f = n.kind.settings(as: FilterSettings.self)?.design { designs.append(f) }
        }
        return (preamp, designs)
    }

    /// The fixture's response with Timbre's designs and with bilinear (EqualizerAPO's RBJ)
    /// designs, each against the analog target of the same filters, on a log grid dense
    /// around every band (20 Hz to 20 kHz or 0.9 × Nyquist).
    @Test(arguments: [44100.0, 48000])
    func autoEQCorrectionKeepsItsAnalogShape(rate: Double) throws {
        let preset = try ParametricEQImport.preset(from: try String(contentsOf: Self.fixture, encoding: .utf8), name: "hp", source: "fixture")
        let (preamp, designs) = Self.designs(preset)
        #expect(abs(preamp + 6.4) < 1e-9)
        #expect(designs.count == 10)
        // The same file with Windows line ends (EqualizerAPO's home) reads the same.
        let crlf = try String(contentsOf: Self.fixture, encoding: .utf8).replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try ParametricEQImport.preset(from: crlf, name: "hp", source: "fixture") == preset)
        var grid = (0..<400).map { 20 * pow(min(20000, 0.45 * rate) / 20, Double($0) / 399) }
        for d in designs { for k in 0...20 { grid.append(d.frequencyHz * (1 - 1 / d.q + 2 / d.q * Double(k) / 20)) } }
        grid = grid.filter { $0 >= 20 && $0 <= min(20000, 0.45 * rate) }
        var worstMatched = 0.0, worstBilinear = 0.0
        for f in grid {
            let analog = designs.reduce(0) { $0 + $1.analogMagnitudeDB(at: f) }
            let matched = designs.flatMap { $0.sections(sampleRate: rate) }.reduce(0) { $0 + $1.magnitudeDB(at: f, sampleRate: rate) }
            var bilinearDesigns = designs
            for i in bilinearDesigns.indices { bilinearDesigns[i].method = .bilinear }
            let bilinear = bilinearDesigns.flatMap { $0.sections(sampleRate: rate) }.reduce(0) { $0 + $1.magnitudeDB(at: f, sampleRate: rate) }
            worstMatched = max(worstMatched, abs(matched - analog))
            worstBilinear = max(worstBilinear, abs(bilinear - analog))
        }
        print(String(format: "AutoEQ correction at %.0f Hz: Timbre %.3f dB, bilinear (EqualizerAPO) %.3f dB from the analog target", rate, worstMatched, worstBilinear))
        #expect(worstMatched <= 0.5)
        #expect(worstMatched < worstBilinear / 3, "the matched designs should beat the bilinear ones near Nyquist")
    }

    /// Every type, OFF filters and comments skipped, AutoEQ's old LS/HS, more than ten bands
    /// split into eq nodes; errors name the line.
    /// REW's filter-settings export (Equaliser: Generic): its header is skipped, `None` slots
    /// are empty, and the filters are the same bands as the EqualizerAPO lines with them.
    @Test func rewFilterSettingsExport() throws {
        let rew = """
        Filter Settings file
        
        Room EQ V5.20.13
        Dated: 28-Nov-2026 10:21:33
        
        Notes:Left sub, 1 m
        
        Equaliser: Generic
        28-Nov-2026 10:20:55
        Filter  1: ON  PK       Fc   63.00 Hz  Gain  -5.00 dB  Q  4.000
        Filter  2: ON  LS       Fc   40.00 Hz  Gain   3.00 dB
        Filter  3: ON  None
        Filter  4: ON  PK       Fc   125.0 Hz  Gain  -3.50 dB  Q  2.000
        Filter  5: OFF PK       Fc   500.0 Hz  Gain  -3.50 dB  Q  2.000
        Filter  6: ON  None

        """
        let apo = "Filter 1: ON PK Fc 63 Hz Gain -5 dB Q 4\nFilter 2: ON LS Fc 40 Hz Gain 3 dB\nFilter 3: ON PK Fc 125 Hz Gain -3.5 dB Q 2\n"
        let fromREW = try ParametricEQImport.preset(from: rew, name: "sub", source: "rew.txt")
        let fromAPO = try ParametricEQImport.preset(from: apo, name: "sub", source: "rew.txt")
        #expect(fromREW.allNodes.map(\.kind) == fromAPO.allNodes.map(\.kind) && fromREW.allNodes.count == 1)
        // Without REW's first line the header is an error naming its line, as before.
        #expect { try ParametricEQImport.preset(from: String(rew.dropFirst("Filter Settings file".count)), name: "x", source: "f.txt") } throws: {
            "\($0)".contains("f.txt:3")
        }
    }

    @Test func everyTypeAndErrors() throws {
        var text = "# headphone\nPreamp: -3 dB\nFilter 1: OFF PK Fc 100 Hz Gain 3 dB Q 1\n"
        let types = ["PK Fc 100 Hz Gain 3 dB Q 1", "LSC Fc 80 Hz Gain 4 dB Q 0.7", "HSC Fc 9000 Hz Gain -2 dB Q 0.7", "LS Fc 90 Hz Gain 1 dB",
                     "HS Fc 8000 Hz Gain 1 dB", "LP Fc 18000 Hz", "HP Fc 25 Hz", "LPQ Fc 17000 Hz Q 1.2", "HPQ Fc 30 Hz Q 0.9",
                     "NO Fc 60 Hz Q 10", "BP Fc 1000 Hz Q 2", "AP Fc 500 Hz Q 0.7"]
        for (i, t) in types.enumerated() { text += "Filter \(i + 2): ON \(t)\n" }
        for i in 0..<8 { text += "Filter \(20 + i): ON PK Fc \(200 * (i + 1)) Hz Gain 1 dB Q 2\n" }
        let p = try ParametricEQImport.preset(from: text, name: "all", source: "all.txt")
        let (preamp, designs) = Self.designs(p)
        #expect(preamp == -3)
        #expect(designs.count == 20)
        #expect(p.allNodes.filter { $0.kind.settings(as: EQSettings.self) != nil }.count == 2, "13 bands: two eq nodes")
        _ = try RenderPlan(preset: p, format: RenderFormat(sampleRate: 48000, inputChannelCount: 2, maxBlockFrames: 256))
        for (bad, mention) in [("Filter 1: ON XX Fc 100 Hz Gain 1 dB Q 1", "XX is not imported"), ("Filter 1: ON PK Fc 5 Hz Gain 1 dB Q 1", "allowed 20…20000"),
                               ("Filter 1: ON PK Fc 100 Hz Gain 30 dB Q 1", "allowed -20…20"), ("Filter 1: ON PK Fc 100 Hz Gain 3 dB", "needs a Q"),
                               ("Device: Speakers", "neither a Preamp nor a Filter")] {
            do {
                _ = try ParametricEQImport.preset(from: "Preamp: -1 dB\n" + bad, name: "x", source: "x.txt")
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(error.path == "x.txt:2" && error.message.contains(mention), "\(bad): \(error)")
            }
        }
    }
}
