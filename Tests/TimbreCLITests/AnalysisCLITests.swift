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
        typealias Box = (x: Double, y: Double, width: Double, height: Double)
        var series: [String] = [], markers = 0, panels = 0, texts: [String] = []
        var size = (width: 0.0, height: 0.0)
        /// What a legend could hide: curve points, marker lines and marker labels (as boxes),
        /// and the legend boxes themselves.
        var curves: [[(x: Double, y: Double)]] = [], markerLines: [Box] = [], markerLabels: [Box] = [], legends: [Box] = []
        var inText = false, labelAt: (x: Double, y: Double)?
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            func number(_ key: String) -> Double { Double(attributes[key] ?? "") ?? .nan }
            if name == "svg" { size = (number("width"), number("height")) }
            if name == "path", attributes["class"] == "series" {
                series.append(attributes["data-name"] ?? "")
                let tokens = (attributes["d"] ?? "").split(separator: " ")
                curves.append(tokens.compactMap { t in
                    let xy = t.dropFirst().split(separator: ",").compactMap { Double($0) }
                    return xy.count == 2 ? (xy[0], xy[1]) : nil
                })
            }
            if name == "line", attributes["class"] == "marker" {
                markers += 1
                markerLines.append((number("x1"), number("y1"), 0, number("y2") - number("y1")))
            }
            if name == "rect", attributes["class"] == "legend" { legends.append((number("x"), number("y"), number("width"), number("height"))) }
            if name == "g", attributes["class"] == "panel" { panels += 1 }
            inText = name == "text"
            labelAt = attributes["class"] == "marker-label" ? (number("x"), number("y")) : nil
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inText { texts.append(string) }
            // 11-pixel DejaVu Sans: at most 7 pixels a character, 11 tall above the baseline.
            if let at = labelAt { markerLabels.append((at.x, at.y - 11, 7 * Double(string.count), 13)); labelAt = nil }
        }
        /// Everything a legend box covers: curve segments (sampled every pixel), marker lines
        /// and labels, other legends. Empty when the legend hides nothing.
        func hidden(by legend: Box) -> [String] {
            func inside(_ x: Double, _ y: Double) -> Bool { x >= legend.x && x <= legend.x + legend.width && y >= legend.y && y <= legend.y + legend.height }
            func overlaps(_ b: Box) -> Bool { b.x <= legend.x + legend.width && b.x + b.width >= legend.x && b.y <= legend.y + legend.height && b.y + b.height >= legend.y }
            var found: [String] = []
            for (name, curve) in zip(series, curves) {
                for (a, b) in zip(curve, curve.dropFirst()) {
                    let n = max(1, Int(hypot(b.x - a.x, b.y - a.y).rounded(.up)))
                    if (0...n).contains(where: { k in let t = Double(k) / Double(n); return inside(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t) }) {
                        found.append("curve \(name) near (\(Int(a.x)), \(Int(a.y)))"); break
                    }
                }
            }
            found += markerLines.filter(overlaps).map { "marker line at x \(Int($0.x))" }
            found += markerLabels.filter(overlaps).map { "marker label at x \(Int($0.x))" }
            return found
        }
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

    /// Plots place each legend where it hides no curve, marker line or marker label (the
    /// response plot's legend covered the "12k" band label), and `--size WxH` sets the image.
    @Test func legendsHideNothingAndSizeIsHonoured() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "1", "-b", "24", d + "/noise.wav", "synth", "3", "pinknoise", "synth", "sine", "amod", "3", "gain", "-12"])
        for preset in ["podcast-voice", "default", "taae-10band", "studio-graph", "broadcast-master", "ducking"] {
            let r = try CLI.run(["response", "--preset", preset, "--svg", d + "/\(preset).svg"])
            #expect(r.status == 0, "\(r.stderr)")
            guard let svg = SVGReader.read(d + "/\(preset).svg") else { Issue.record("\(preset): SVG does not parse"); continue }
            #expect(svg.legends.count == svg.panels, "\(preset): \(svg.legends.count) legends for \(svg.panels) panels")
            // The check can see: a box over the whole image hides the curves and markers.
            #expect(svg.hidden(by: (0, 0, svg.size.width, svg.size.height)).count >= svg.series.count + svg.markers)
            for legend in svg.legends { #expect(svg.hidden(by: legend).isEmpty, "\(preset): legend hides \(svg.hidden(by: legend))") }
        }
        for (w, h) in [(640, 480), (1920, 1080), (320, 360)] {
            let r = try CLI.run(["response", "--preset", "podcast-voice", "--svg", d + "/s.svg", "--png", d + "/s.png", "--size", "\(w)x\(h)"])
            #expect(r.status == 0, "\(r.stderr)")
            let svg = SVGReader.read(d + "/s.svg")
            #expect(svg?.size.width == Double(w) && svg?.size.height == Double(h))
            for legend in svg?.legends ?? [] { #expect(svg?.hidden(by: legend).isEmpty == true, "\(w)x\(h): legend hides \(svg?.hidden(by: legend) ?? [])") }
            // PNG IHDR: width and height as big-endian 32-bit integers at bytes 16 and 20.
            let png = [UInt8](FileManager.default.contents(atPath: d + "/s.png") ?? Data())
            let be = { (o: Int) in png.count >= o + 4 ? png[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } : -1 }
            #expect(be(16) == w && be(20) == h, "PNG is \(be(16))x\(be(20))")
        }
        let s = try CLI.run(["spectrum", d + "/noise.wav", "--svg", d + "/n.svg", "--size", "1000x500"])
        #expect(s.status == 0, "\(s.stderr)")
        if let svg = SVGReader.read(d + "/n.svg") {
            #expect(svg.size.width == 1000 && svg.size.height == 500 && svg.legends.count == 1)
            for legend in svg.legends { #expect(svg.hidden(by: legend).isEmpty, "spectrum legend hides \(svg.hidden(by: legend))") }
        }
        for bad in ["640", "10x10", "640x", "axb", "9000x600"] {
            let r = try CLI.run(["response", "--preset", "flat", "--svg", d + "/x.svg", "--size", bad])
            #expect(r.status == 1 && r.stderr.contains("--size \(bad)") && r.stderr.contains("allowed"), "\(bad): \(r.status) \(r.stderr)")
        }
    }

    /// A dynamics node's static curve in `timbre response`: the JSON follows Giannoulis et al.'s
    /// formula (written out here) for the compressor and min(x, ceiling) for the limiter; the
    /// plot gets a third panel (input level across), the text a row per node.
    @Test func responseShowsStaticCurves() throws {
        let d = try CLI.tempDir()
        let r = try CLI.run(["response", "--preset", "broadcast-master", "--json", "--svg", d + "/b.svg"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        let curves = o["staticCurves"] as? [[String: Any]] ?? []
        #expect(curves.map { $0["name"] as? String } == ["glue", "ceiling"])
        func curve(_ x: Double) -> Double {  // threshold −18, ratio 2, knee 6
            let over = x + 18
            if 2 * over < -6 { return x }
            if 2 * abs(over) <= 6 { return x + (0.5 - 1) * pow(over + 3, 2) / 12 }
            return -18 + over / 2
        }
        let input = curves.first?["inputDB"] as? [Double] ?? []
        #expect(input.count == 81 && input.first == -80 && input.last == 0)
        let glue = curves.first?["outputDB"] as? [Double] ?? [], ceiling = curves.last?["outputDB"] as? [Double] ?? []
        #expect(zip(input, glue).allSatisfy { abs($1 - curve($0)) < 0.002 }, "\(glue)")
        #expect(zip(input, ceiling).allSatisfy { abs($1 - min($0, -1)) < 0.002 })
        let svg = SVGReader.read(d + "/b.svg")
        #expect(svg?.panels == 3 && svg?.texts.contains("Input level (dBFS)") == true)
        let text = try CLI.run(["response", "--preset", "broadcast-master"])
        #expect(text.stdout.contains("static curves") && text.stdout.contains("glue"), "\(text.stdout)")
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
