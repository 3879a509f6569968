import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TimbreTestSupport

/// `timbre spectrum` and `timbre response` as a user runs them: JSON checked against
/// references computed here, plots parsed as XML, PNGs produced.
@Suite(.serialized) struct AnalysisCLITests {
    /// The series names and marker count of an SVG, via XMLParser (the file must parse).
    final class SVGReader: NSObject, XMLParserDelegate {
        var series: [String] = [], markers = 0, panels = 0, texts: [String] = []
        var inText = false
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if name == "path", attributes["class"] == "series" { series.append(attributes["data-name"] ?? "") }
            if name == "line", attributes["class"] == "marker" { markers += 1 }
            if name == "g", attributes["class"] == "panel" { panels += 1 }
            inText = name == "text"
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if inText { texts.append(string) } }
        static func read(_ path: String) -> SVGReader? {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            let r = SVGReader(), p = XMLParser(data: data)
            p.delegate = r
            return p.parse() ? r : nil
        }
    }

    static func isPNG(_ path: String) -> Bool {
        FileManager.default.contents(atPath: path)?.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test func spectrumFindsTheToneAndPlots() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "24", d + "/tone.wav", "synth", "3", "sine", "997", "gain", "-6"])
        let r = try CLI.run(["spectrum", d + "/tone.wav", "--json", "--svg", d + "/s.svg", "--png", d + "/s.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        #expect(abs((o["peakFrequencyHz"] as? Double ?? 0) - 997) <= 0.5, "\(o["peakFrequencyHz"] ?? "none")")
        let bins = o["bins"] as? [[String: Any]] ?? []
        #expect(bins.count == 8192 / 2 + 1 && bins.allSatisfy { $0["frequencyHz"] is Double && $0["levelDB"] is Double })
        let flat = try CLI.run(["spectrum", d + "/tone.wav", "--json", "--window", "flattop"])
        let level = ((try JSONSerialization.jsonObject(with: Data(flat.stdout.utf8)) as? [String: Any])?["peakLevelDBFS"] as? Double) ?? 0
        #expect(abs(level - -6.02) <= 0.1, "flat-top level \(level)")
        guard let svg = SVGReader.read(d + "/s.svg") else { Issue.record("SVG does not parse"); return }
        #expect(svg.series == ["peak hold", "average"] && svg.markers == 1 && svg.texts.contains("Frequency (Hz)") && svg.texts.contains("1k"))
        #expect(Self.isPNG(d + "/s.png"))
        // Bands: third-octave levels, the 1 kHz band holds the tone.
        let b = try CLI.run(["spectrum", d + "/tone.wav", "--json", "--bands", "third"])
        let bands = ((try JSONSerialization.jsonObject(with: Data(b.stdout.utf8)) as? [String: Any])?["bands"] as? [[String: Any]]) ?? []
        let loudest = bands.max { ($0["levelDB"] as? Double ?? -999) < ($1["levelDB"] as? Double ?? -999) }
        #expect(abs((loudest?["frequencyHz"] as? Double ?? 0) - 1000) < 1, "\(String(describing: loudest))")
        // Bad options are usage errors.
        #expect(try CLI.run(["spectrum", d + "/tone.wav", "--fft-size", "100"]).status == 1)
        #expect(try CLI.run(["spectrum", d + "/tone.wav", "--window", "kaiser"]).status == 1)
    }

    /// A preset with one matched bell: the JSON total follows the analog prototype (written
    /// out here) within the EQ accuracy limit, and gain at f0 is the set gain.
    @Test func responseFollowsTheAnalogBell() throws {
        let d = try CLI.tempDir()
        CLI.write(d + "/bell.json", #"{"version": 1, "name": "bell", "chain": [{"type": "peak", "id": "b", "frequency": 1000, "gain": 6, "q": 1}, {"type": "gain", "id": "g", "gain": -2}]}"#)
        let r = try CLI.run(["response", "--preset", d + "/bell.json", "--json", "--svg", d + "/r.svg", "--png", d + "/r.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        let f = o["frequencyHz"] as? [Double] ?? [], m = o["magnitudeDB"] as? [Double] ?? []
        #expect(f.count == 400 && m.count == 400)
        var worst = 0.0
        for (hz, db) in zip(f, m) {
            let a = pow(10, 6.0 / 40), x = hz / 1000, dd = (1 - x * x) * (1 - x * x)
            let analog = 10 * log10((dd + (a * x) * (a * x)) / (dd + (x / a) * (x / a))) - 2
            worst = max(worst, abs(db - analog))
        }
        print(String(format: "timbre response vs the analog bell: worst %.3f dB", worst))
        #expect(worst <= Tolerance[.eqMatched48k].limit)
        guard let svg = SVGReader.read(d + "/r.svg") else { Issue.record("SVG does not parse"); return }
        #expect(svg.panels == 2 && svg.series.contains("b") && svg.series.contains("total") && svg.markers >= 1)
        #expect(Self.isPNG(d + "/r.png"))
    }

    /// The spectrum's peak frequency with every window, from sox's sines between bins:
    /// 997 Hz and 1234.5 Hz within 0.1 Hz, levels within 0.05 dB (the flat-top read 997.74 Hz
    /// when the peak was a parabola through three bins).
    @Test func peakFrequencyWithEveryWindow() throws {
        let d = try CLI.tempDir()
        for (hz, rate, gain, size) in [(997.0, 48000, -6.0, "8192"), (1234.5, 44100, -3.0, "4096")] {
            let path = d + "/tone\(Int(hz)).wav"
            try CLI.tool(["sox", "-n", "-r", String(rate), "-c", "1", "-b", "24", path, "synth", "3", "sine", String(hz), "gain", String(gain)])
            for window in ["hann", "hamming", "blackman-harris", "flattop"] {
                let r = try CLI.run(["spectrum", path, "--window", window, "--fft-size", size, "--json"])
                let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
                let f = o["peakFrequencyHz"] as? Double ?? 0, level = o["peakLevelDBFS"] as? Double ?? 0
                #expect(abs(f - hz) <= 0.1, "\(window): \(f) Hz for \(hz) Hz")
                #expect(abs(level - gain) <= 0.05, "\(window): \(level) dBFS for \(gain)")
            }
        }
    }
}
