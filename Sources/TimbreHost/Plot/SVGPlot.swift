import Foundation
import TimbreFile

/// A frequency plot as SVG: log-frequency axis 20 Hz–20 kHz, one or more stacked panels with
/// their own value axis (dB, degrees), grid, labelled axes, a title, a legend, and vertical
/// markers (EQ band centres, a spectrum's peak). PNG through `rsvg-convert` (librsvg).
///
/// The legend goes in the first panel corner (or edge middle) where it covers no curve, marker
/// or marker label; when every place inside covers something it is drawn as a row above the
/// panel instead.
package struct SVGPlot {
    package struct Series {
        var name: String; var color: String; var points: [(x: Double, y: Double)]; var dashed = false; var width = 1.8
        package init(name: String, color: String, points: [(x: Double, y: Double)], dashed: Bool = false, width: Double = 1.8) {
            self.name = name; self.color = color; self.points = points; self.dashed = dashed; self.width = width
        }
    }
    package struct Marker {
        var x: Double; var label: String
        package init(x: Double, label: String) { self.x = x; self.label = label }
    }
    /// A panel's horizontal axis: log frequency (20 Hz–20 kHz grid) or a linear one (levels).
    package enum XAxis {
        case logFrequency
        case linear(label: String, step: Double)
    }

    package struct Panel {
        package var yLabel: String
        package var yRange: ClosedRange<Double>
        package var yStep: Double
        package var series: [Series]
        package var markers: [Marker] = []
        package var xAxis: XAxis = .logFrequency
        /// The panel's own x range (nil: the plot's frequency range).
        package var xRange: ClosedRange<Double>? = nil
        package init(yLabel: String, yRange: ClosedRange<Double>, yStep: Double, series: [Series], markers: [Marker] = [],
                     xAxis: XAxis = .logFrequency, xRange: ClosedRange<Double>? = nil) {
            self.yLabel = yLabel; self.yRange = yRange; self.yStep = yStep; self.series = series; self.markers = markers
            self.xAxis = xAxis; self.xRange = xRange
        }
    }

    package var title: String
    package var panels: [Panel]
    package var xRange: ClosedRange<Double> = 20...20000
    /// The whole image in pixels; panels share the height left after title, axes and gaps
    /// (by default 360 pixels each).
    package var width = 960.0, height: Double? = nil
    package init(title: String, panels: [Panel], xRange: ClosedRange<Double> = 20...20000, width: Double = 960, height: Double? = nil) {
        self.title = title; self.panels = panels; self.xRange = xRange; self.width = width; self.height = height
    }

    package static let margins = (left: 80.0, right: 30.0, top: 70.0, gap: 74.0, bottom: 56.0)
    /// The smallest image `--size` accepts: room for the axes and labels of two panels.
    package static let minimumSize = (width: 320, height: 360), maximumSize = 8000

    /// Parses `--size WxH` (e.g. 1280x720), naming the allowed range when it cannot be used.
    package static func size(parsing text: String) throws(HostError) -> (width: Double, height: Double) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (minimumSize.width...maximumSize).contains(w), (minimumSize.height...maximumSize).contains(h) else {
            throw .usage("--size \(text) is not WIDTHxHEIGHT in pixels (allowed \(minimumSize.width)…\(maximumSize) × \(minimumSize.height)…\(maximumSize), e.g. 1280x720)")
        }
        return (Double(w), Double(h))
    }

    package static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]

    /// A value range that holds `values` (within `hard`), rounded out to `step`.
    package static func range(of values: [Double], step: Double, minimumSpan: Double, hard: ClosedRange<Double>) -> ClosedRange<Double> {
        let finite = values.filter(\.isFinite)
        var lo = max(hard.lowerBound, ((finite.min() ?? -step) / step).rounded(.down) * step)
        var hi = min(hard.upperBound, ((finite.max() ?? step) / step).rounded(.up) * step)
        if hi - lo < minimumSpan { let mid = ((lo + hi) / 2 / step).rounded() * step; lo = mid - minimumSpan / 2; hi = mid + minimumSpan / 2 }
        return lo...hi
    }

    package func render() -> String {
        let (left, right, top, gap, bottom) = Self.margins
        let plotWidth = width - left - right
        let count = Double(max(panels.count, 1))
        let height = self.height ?? top + count * 360 + (count - 1) * gap + bottom
        let panelHeight = (height - top - bottom - (count - 1) * gap) / count
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(width / 2)" y="30" text-anchor="middle" font-size="18" font-weight="bold">\(Self.esc(title))</text>

        """
        let majors: [Double] = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]
        let minors: [Double] = [30, 40, 60, 70, 80, 90, 300, 400, 600, 700, 800, 900, 3000, 4000, 6000, 7000, 8000, 9000]
        for (index, panel) in panels.enumerated() {
            let y0 = top + Double(index) * (panelHeight + gap)
            let xRange = panel.xRange ?? self.xRange
            func x(_ v: Double) -> Double {
                switch panel.xAxis {
                case .logFrequency: left + plotWidth * log10(v / xRange.lowerBound) / log10(xRange.upperBound / xRange.lowerBound)
                case .linear: left + plotWidth * (v - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound)
                }
            }
            func y(_ v: Double) -> Double {
                let t = (min(panel.yRange.upperBound, max(panel.yRange.lowerBound, v)) - panel.yRange.lowerBound) / (panel.yRange.upperBound - panel.yRange.lowerBound)
                return y0 + panelHeight * (1 - t)
            }
            svg += "<g class=\"panel\" id=\"panel-\(index)\">\n"
            let xLabel: String
            switch panel.xAxis {
            case .logFrequency:
                xLabel = "Frequency (Hz)"
                for f in minors where xRange.contains(f) {
                    svg += "<line x1=\"\(x(f))\" y1=\"\(y0)\" x2=\"\(x(f))\" y2=\"\(y0 + panelHeight)\" stroke=\"#eeeeee\"/>\n"
                }
                for f in majors where xRange.contains(f) {
                    svg += "<line x1=\"\(x(f))\" y1=\"\(y0)\" x2=\"\(x(f))\" y2=\"\(y0 + panelHeight)\" stroke=\"#cccccc\"/>\n"
                    let label = f >= 1000 ? "\(Int(f / 1000))k" : "\(Int(f))"
                    svg += "<text x=\"\(x(f))\" y=\"\(y0 + panelHeight + 18)\" text-anchor=\"middle\" font-size=\"12\">\(label)</text>\n"
                }
            case .linear(let label, let step):
                xLabel = label
                var v = xRange.lowerBound
                while v <= xRange.upperBound + 1e-9 {
                    svg += "<line x1=\"\(x(v))\" y1=\"\(y0)\" x2=\"\(x(v))\" y2=\"\(y0 + panelHeight)\" stroke=\"#cccccc\"/>\n"
                    svg += "<text x=\"\(x(v))\" y=\"\(y0 + panelHeight + 18)\" text-anchor=\"middle\" font-size=\"12\">\(v == v.rounded() ? String(Int(v)) : String(v))</text>\n"
                    v += step
                }
            }
            var v = panel.yRange.lowerBound
            while v <= panel.yRange.upperBound + 1e-9 {
                svg += "<line x1=\"\(left)\" y1=\"\(y(v))\" x2=\"\(left + plotWidth)\" y2=\"\(y(v))\" stroke=\"\(v == 0 ? "#888888" : "#cccccc")\"/>\n"
                svg += "<text x=\"\(left - 8)\" y=\"\(y(v) + 4)\" text-anchor=\"end\" font-size=\"12\">\(v == v.rounded() ? String(Int(v)) : String(v))</text>\n"
                v += panel.yStep
            }
            svg += "<rect x=\"\(left)\" y=\"\(y0)\" width=\"\(plotWidth)\" height=\"\(panelHeight)\" fill=\"none\" stroke=\"#333333\"/>\n"
            svg += "<text x=\"\(left + plotWidth / 2)\" y=\"\(y0 + panelHeight + 40)\" text-anchor=\"middle\" font-size=\"13\">\(xLabel)</text>\n"
            svg += "<text x=\"24\" y=\"\(y0 + panelHeight / 2)\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 24 \(y0 + panelHeight / 2))\">\(Self.esc(panel.yLabel))</text>\n"
            for m in panel.markers where xRange.contains(m.x) {
                svg += "<line class=\"marker\" x1=\"\(x(m.x))\" y1=\"\(y0)\" x2=\"\(x(m.x))\" y2=\"\(y0 + panelHeight)\" stroke=\"#999999\" stroke-dasharray=\"4 4\"/>\n"
                svg += "<text class=\"marker-label\" x=\"\(x(m.x) + 3)\" y=\"\(y0 + 14)\" font-size=\"11\" fill=\"#555555\">\(Self.esc(m.label))</text>\n"
            }
            for s in panel.series {
                let pts = s.points.filter { xRange.contains($0.x) && $0.y.isFinite }
                guard !pts.isEmpty else { continue }
                // A jump over half the panel (a phase wrapping at ±180°) starts a new subpath.
                let span = panel.yRange.upperBound - panel.yRange.lowerBound
                let d = pts.enumerated().map { (k, p) in
                    let jump = k > 0 && abs(p.y - pts[k - 1].y) > span / 2
                    return String(format: "%@%.2f,%.2f", k == 0 || jump ? "M" : "L", x(p.x), y(p.y))
                }.joined(separator: " ")
                svg += "<path class=\"series\" data-name=\"\(Self.esc(s.name))\" d=\"\(d)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"\(s.width)\"\(s.dashed ? " stroke-dasharray=\"6 3\"" : "")/>\n"
            }
            // Legend: the first place that hides nothing, else a row above the panel.
            let named = panel.series.filter { !$0.name.isEmpty }
            if !named.isEmpty {
                let box = (width: 16 + 7.5 * Double(named.map(\.name.count).max() ?? 0) + 30, height: Double(named.count) * 18 + 8)
                var occupied: [(x: Double, y: Double)] = []
                for s in panel.series {
                    let pts = s.points.filter { xRange.contains($0.x) && $0.y.isFinite }.map { (x: x($0.x), y: y($0.y)) }
                    for (a, b) in zip(pts, pts.dropFirst()) {
                        let steps = max(1, Int((hypot(b.x - a.x, b.y - a.y) / 3).rounded(.up)))
                        for k in 0..<steps { let t = Double(k) / Double(steps); occupied.append((a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)) }
                    }
                    if let last = pts.last { occupied.append(last) }
                }
                for m in panel.markers where xRange.contains(m.x) {
                    for py in stride(from: y0, through: y0 + panelHeight, by: 3) { occupied.append((x(m.x), py)) }
                    let labelWidth = 7 * Double(m.label.count) + 3
                    for px in stride(from: x(m.x), through: x(m.x) + labelWidth, by: 3) { occupied.append((px, y0 + 4)); occupied.append((px, y0 + 16)) }
                }
                let inset = 8.0
                let xs = [left + plotWidth - box.width - inset, left + inset, left + (plotWidth - box.width) / 2]
                let ys = [y0 + inset, y0 + panelHeight - box.height - inset, y0 + (panelHeight - box.height) / 2]
                var candidates: [(x: Double, y: Double)] = []
                for yy in ys.prefix(2) { for xx in xs { candidates.append((xx, yy)) } }
                candidates += [(xs[0], ys[2]), (xs[1], ys[2])]
                // Then any gap along the top, bottom and middle (between marker lines, say).
                for yy in ys { for xx in stride(from: xs[0], through: xs[1], by: -6) { candidates.append((xx, yy)) } }
                func covered(_ c: (x: Double, y: Double)) -> Bool {
                    occupied.contains { $0.x >= c.x - 2 && $0.x <= c.x + box.width + 2 && $0.y >= c.y - 2 && $0.y <= c.y + box.height + 2 }
                }
                if let place = candidates.first(where: { !covered($0) }) {
                    svg += "<rect class=\"legend\" x=\"\(place.x)\" y=\"\(place.y)\" width=\"\(box.width)\" height=\"\(box.height)\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999999\"/>\n"
                    for (k, s) in named.enumerated() {
                        let ly = place.y + 14 + Double(k) * 18
                        svg += legendEntry(s, x: place.x + 8, baseline: ly)
                    }
                } else {
                    // A row above the panel, right-aligned, entries side by side.
                    let entryWidths = named.map { 36 + 7.5 * Double($0.name.count) + 12 }
                    var ex = left + plotWidth - entryWidths.reduce(0, +)
                    let row = (y: y0 - 22, width: entryWidths.reduce(0, +))
                    svg += "<rect class=\"legend\" x=\"\(ex - 4)\" y=\"\(row.y)\" width=\"\(row.width + 4)\" height=\"18\" fill=\"white\" stroke=\"none\"/>\n"
                    for (s, w) in zip(named, entryWidths) {
                        svg += legendEntry(s, x: ex, baseline: row.y + 13)
                        ex += w
                    }
                }
            }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    /// Text escaped for SVG character data and attribute values.
    private static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private func legendEntry(_ s: Series, x: Double, baseline: Double) -> String {
        return "<line x1=\"\(x)\" y1=\"\(baseline - 4)\" x2=\"\(x + 22)\" y2=\"\(baseline - 4)\" stroke=\"\(s.color)\" stroke-width=\"2.5\"\(s.dashed ? " stroke-dasharray=\"6 3\"" : "")/>\n"
            + "<text class=\"legend-entry\" x=\"\(x + 28)\" y=\"\(baseline)\" font-size=\"12\">\(Self.esc(s.name))</text>\n"
    }

    /// Writes the SVG (atomically) and, when `png` is given, converts it with rsvg-convert.
    package func write(svg svgPath: String?, png pngPath: String?) throws(HostError) {
        try Self.writeSVG(render(), svg: svgPath, png: pngPath)
    }

    /// Writes SVG `text` to `svgPath` and, with `pngPath`, a PNG made by `rsvg-convert` (from a
    /// temporary SVG when no `svgPath` is given); each file appears whole or not at all.
    package static func writeSVG(_ text: String, svg svgPath: String?, png pngPath: String?) throws(HostError) {
        var temporary: String?
        let target = svgPath ?? {
            let t = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-plot-\(UUID().uuidString).svg").path
            temporary = t
            return t
        }()
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        do { try AtomicFileWrite.write(Data(text.utf8), to: target) } catch {
            throw .io(error.description)
        }
        guard let pngPath else { return }
        guard let converter = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .io("\(pngPath): PNG needs rsvg-convert (Debian: apt-get install librsvg2-bin)")
        }
        // rsvg-convert writes the temporary file; it is renamed over the target when complete.
        let file: AtomicFileWrite
        do { file = try AtomicFileWrite(path: pngPath) } catch { throw .io(error.description) }
        let partial = file.temporaryPath
        let p = Process()
        p.executableURL = URL(fileURLWithPath: converter)
        p.arguments = ["-f", "png", "-o", partial, target]
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { file.discard(); throw .io("\(pngPath): cannot run rsvg-convert: \(error.localizedDescription)") }
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { file.discard(); throw .io("\(pngPath): rsvg-convert failed (exit \(p.terminationStatus))") }
        do { try file.commit() } catch { throw .io(error.description) }
    }
}
