import Foundation
import Testing
import TimbreDSP
import TimbreEngine

/// REW's biquad coefficient lists (its miniDSP export) imported as the bands they were
/// designed from: sections made here with the RBJ cookbook's formulas come back as their
/// frequency, gain and Q; a real REW export (four sections a user posted, Audio Science
/// Review thread 60834) comes back as bands whose RBJ design at 48 kHz gives the file's
/// coefficients again; sections of other kinds and malformed lines are errors naming the line.
@Suite struct BiquadListImportTests {
    /// RBJ's cookbook (Bristow-Johnson), written out here as the reference: b0, b1, b2, a1, a2
    /// normalised by a0, standard signs.
    static func cookbook(_ shape: FilterType, f: Double, gain: Double, q: Double, rate: Double) -> [Double] {
        let w0 = 2 * Double.pi * f / rate, c = cos(w0), alpha = sin(w0) / (2 * q), a = pow(10, gain / 40), r = 2 * a.squareRoot() * alpha
        let (b, d): ([Double], [Double])
        switch shape {
        case .peak: (b, d) = ([1 + alpha * a, -2 * c, 1 - alpha * a], [1 + alpha / a, -2 * c, 1 - alpha / a])
        case .lowShelf:
            b = [a * ((a + 1) - (a - 1) * c + r), 2 * a * ((a - 1) - (a + 1) * c), a * ((a + 1) - (a - 1) * c - r)]
            d = [(a + 1) + (a - 1) * c + r, -2 * ((a - 1) + (a + 1) * c), (a + 1) + (a - 1) * c - r]
        case .highShelf:
            b = [a * ((a + 1) + (a - 1) * c + r), -2 * a * ((a - 1) + (a + 1) * c), a * ((a + 1) + (a - 1) * c - r)]
            d = [(a + 1) - (a - 1) * c + r, 2 * ((a - 1) - (a + 1) * c), (a + 1) - (a - 1) * c - r]
        case .lowPass: (b, d) = ([(1 - c) / 2, 1 - c, (1 - c) / 2], [1 + alpha, -2 * c, 1 - alpha])
        case .highPass: (b, d) = ([(1 + c) / 2, -(1 + c), (1 + c) / 2], [1 + alpha, -2 * c, 1 - alpha])
        case .notch: (b, d) = ([1, -2 * c, 1], [1 + alpha, -2 * c, 1 - alpha])
        default: (b, d) = ([1 - alpha, -2 * c, 1 + alpha], [1 + alpha, -2 * c, 1 - alpha])  // all-pass
        }
        return [b[0] / d[0], b[1] / d[0], b[2] / d[0], d[1] / d[0], d[2] / d[0]]
    }

    /// Sections as REW writes them for miniDSP: a1 and a2 negated, 16 digits.
    static func export(_ sections: [[Double]]) -> String {
        sections.enumerated().map { i, s in
            "biquad\(i + 1),\nb0=\(s[0]),\nb1=\(s[1]),\nb2=\(s[2]),\na1=\(-s[3]),\na2=\(-s[4])"
        }.joined(separator: ",\n") + "\n"
    }

    static func designs(_ preset: Preset) -> [FilterDesign] {
        preset.allNodes.flatMap { n -> [FilterDesign] in
            if let eq = n.kind.settings(as: EQSettings.self) { return eq.bands.map(\.design) }
            return n.kind.settings(as: FilterSettings.self).map { [$0.design] } ?? []
        }
    }

    @Test(arguments: [48_000.0, 96_000])
    func cookbookSectionsComeBackAsTheirBands(rate: Double) throws {
        let made: [(FilterType, Double, Double, Double)] = [
            (.peak, 31.7, -7.3, 4.2), (.peak, 2_345, 5.5, 0.8), (.peak, 15_000, -12, 2),
            (.lowShelf, 105, 4.5, 0.71), (.highShelf, 8_200, -3.25, 0.9),
            (.lowPass, 18_000, 0, 0.707), (.highPass, 25, 0, 1.3),
        ]
        let text = Self.export(made.map { Self.cookbook($0.0, f: $0.1, gain: $0.2, q: $0.3, rate: rate) })
        let preset = try BiquadListImport.preset(from: text, sampleRate: rate, name: "room", source: "room.txt")
        let designs = Self.designs(preset)
        #expect(designs.count == made.count)
        for (design, (shape, f, gain, q)) in zip(designs.sorted { $0.type.rawValue + "\($0.frequencyHz)" < $1.type.rawValue + "\($1.frequencyHz)" },
                                                 made.sorted { $0.0.rawValue + "\($0.1)" < $1.0.rawValue + "\($1.1)" }) {
            #expect(design.type == shape)
            #expect(abs(design.frequencyHz - f) < 1e-4 * f, "\(shape) \(f) Hz came back as \(design.frequencyHz) Hz")
            #expect(abs(design.gainDB - gain) < 1e-5, "\(shape) \(f) Hz: gain \(design.gainDB) dB, made \(gain)")
            #expect(abs(design.q - q) < 1e-5 * q, "\(shape) \(f) Hz: Q \(design.q), made \(q)")
        }
        // Bells and shelves go into one eq node, the passes into filter nodes.
        #expect(preset.allNodes.map(\.id) == ["eq", "lowpass1", "highpass2"])
    }

    /// A real REW export: every section is read (three bells and a low shelf), and designing
    /// the bands back with RBJ's bilinear transform at 48 kHz (``DesignMethod/bilinear``)
    /// gives the file's coefficients to 10⁻⁸ (the bands are written with six decimals) — the
    /// import loses nothing of what REW meant.
    @Test func aRealREWExportRoundTrips() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/rew-minidsp-biquads.txt")
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(BiquadListImport.recognizes(text))
        let preset = try BiquadListImport.preset(from: text, sampleRate: 48_000, name: "sub", source: "rew.txt")
        let bands = try #require(preset.allNodes.first?.kind.settings(as: EQSettings.self)).bands
        #expect(bands.map(\.shape) == [.peak, .peak, .lowShelf, .peak])
        var file: [[Double]] = []
        for block in text.components(separatedBy: "biquad").dropFirst() {
            let values = block.split(whereSeparator: \.isNewline).compactMap { line -> Double? in
                let parts = line.split(separator: "=")
                return parts.count == 2 ? Double(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: ", "))) : nil
            }
            file.append([values[0], values[1], values[2], -values[3], -values[4]])
        }
        for (band, coefficients) in zip(bands, file) {
            var rbj = band
            rbj.method = .bilinear
            let s = try #require(rbj.design.sections(sampleRate: 48_000).first)
            let mine = [s.b0, s.b1, s.b2, s.a1, s.a2]
            let worst = zip(mine, coefficients).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-8, "\(band): RBJ at 48 kHz is off the file's coefficients by \(worst)")
            #expect((20...200).contains(band.frequencyHz) && abs(band.gainDB) < 20)
        }
    }

    @Test func whatCannotBeMappedIsNamed() {
        func error(_ text: String) -> String {
            do { _ = try BiquadListImport.preset(from: text, sampleRate: 48_000, name: "x", source: "x.txt"); return "" } catch { return "\(error)" }
        }
        let notch = Self.export([Self.cookbook(.peak, f: 100, gain: 3, q: 1, rate: 48_000), Self.cookbook(.notch, f: 1_000, gain: 0, q: 5, rate: 48_000)])
        #expect(error(notch).contains("x.txt:7") && error(notch).contains("biquad2") && error(notch).contains("imported are peaking"), "\(error(notch))")
        let allPass = Self.export([Self.cookbook(.allPass, f: 1_000, gain: 0, q: 0.7, rate: 48_000)])
        #expect(error(allPass).contains("biquad1"))
        #expect(error("biquad1,\nb0=1,\nb1=0,\nb2=0,\na1=0\n").contains("has no a2"))
        #expect(error("biquad1,\nb0=one,\n").contains("x.txt:2"))
        #expect(error("biquad1,\nc0=1,\n").contains("neither a biquad name"))
        #expect(error("b0=1,\n").contains("before the first biquad"))
        // Unstable (a pole outside the unit circle).
        #expect(error("biquad1,\nb0=1,\nb1=0,\nb2=0,\na1=0,\na2=1.5\n").contains("not a stable"))
        // A bell below 20 Hz.
        #expect(error(Self.export([Self.cookbook(.peak, f: 12, gain: 3, q: 1, rate: 48_000)])).contains("out of range (allowed 20…20000 Hz)"))
        #expect(error(Self.export([Self.cookbook(.peak, f: 100, gain: 0, q: 1, rate: 48_000)])).contains("every biquad is flat"))
    }
}
