import Foundation

/// A frequency plot as SVG: log-frequency axis 20 Hz–20 kHz, one or more stacked panels with
/// their own value axis (dB, degrees), grid, labelled axes, a title, a legend, and vertical
/// markers (EQ band centres, a spectrum's peak). PNG through `rsvg-convert` (librsvg).
struct SVGPlot {
    struct Series { var name: String; var color: String; var points: [(x: Double, y: Double)]; var dashed = false; var width = 1.8 }
    struct Marker { var x: Double; var label: String }
    struct Panel {
        var yLabel: String
        var yRange: ClosedRange<Double>
        var yStep: Double
        var series: [Series]
        var markers: [Marker] = []
    }

    var title: String
    var panels: [Panel]
    var xRange: ClosedRange<Double> = 20...20000
    var width = 960.0, panelHeight = 360.0

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]

    /// A value range that holds `values` (within `hard`), rounded out to `step`.
    static func range(of values: [Double], step: Double, minimumSpan: Double, hard: ClosedRange<Double>) -> ClosedRange<Double> {
        let finite = values.filter(\.isFinite)
        var lo = max(hard.lowerBound, ((finite.min() ?? -step) / step).rounded(.down) * step)
        var hi = min(hard.upperBound, ((finite.max() ?? step) / step).rounded(.up) * step)
        if hi - lo < minimumSpan { let mid = ((lo + hi) / 2 / step).rounded() * step; lo = mid - minimumSpan / 2; hi = mid + minimumSpan / 2 }
        return lo...hi
    }

    func render() -> String {
        let left = 80.0, right = 30.0, top = 56.0, gap = 60.0, bottom = 56.0
        let plotWidth = width - left - right
        let height = top + Double(panels.count) * panelHeight + Double(panels.count - 1) * gap + bottom
        func x(_ f: Double) -> Double { left + plotWidth * log10(f / xRange.lowerBound) / log10(xRange.upperBound / xRange.lowerBound) }
        func esc(_ s: String) -> String { s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;") }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(width / 2)" y="30" text-anchor="middle" font-size="18" font-weight="bold">\(esc(title))</text>

        """
        let majors: [Double] = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]
        let minors: [Double] = [30, 40, 60, 70, 80, 90, 300, 400, 600, 700, 800, 900, 3000, 4000, 6000, 7000, 8000, 9000]
        for (index, panel) in panels.enumerated() {
            let y0 = top + Double(index) * (panelHeight + gap)
            func y(_ v: Double) -> Double {
                let t = (min(panel.yRange.upperBound, max(panel.yRange.lowerBound, v)) - panel.yRange.lowerBound) / (panel.yRange.upperBound - panel.yRange.lowerBound)
                return y0 + panelHeight * (1 - t)
            }
            svg += "<g class=\"panel\" id=\"panel-\(index)\">\n"
            for f in minors where xRange.contains(f) {
                svg += "<line x1=\"\(x(f))\" y1=\"\(y0)\" x2=\"\(x(f))\" y2=\"\(y0 + panelHeight)\" stroke=\"#eeeeee\"/>\n"
            }
            for f in majors where xRange.contains(f) {
                svg += "<line x1=\"\(x(f))\" y1=\"\(y0)\" x2=\"\(x(f))\" y2=\"\(y0 + panelHeight)\" stroke=\"#cccccc\"/>\n"
                let label = f >= 1000 ? "\(Int(f / 1000))k" : "\(Int(f))"
                svg += "<text x=\"\(x(f))\" y=\"\(y0 + panelHeight + 18)\" text-anchor=\"middle\" font-size=\"12\">\(label)</text>\n"
            }
            var v = panel.yRange.lowerBound
            while v <= panel.yRange.upperBound + 1e-9 {
                svg += "<line x1=\"\(left)\" y1=\"\(y(v))\" x2=\"\(left + plotWidth)\" y2=\"\(y(v))\" stroke=\"\(v == 0 ? "#888888" : "#cccccc")\"/>\n"
                svg += "<text x=\"\(left - 8)\" y=\"\(y(v) + 4)\" text-anchor=\"end\" font-size=\"12\">\(v == v.rounded() ? String(Int(v)) : String(v))</text>\n"
                v += panel.yStep
            }
            svg += "<rect x=\"\(left)\" y=\"\(y0)\" width=\"\(plotWidth)\" height=\"\(panelHeight)\" fill=\"none\" stroke=\"#333333\"/>\n"
            svg += "<text x=\"\(left + plotWidth / 2)\" y=\"\(y0 + panelHeight + 40)\" text-anchor=\"middle\" font-size=\"13\">Frequency (Hz)</text>\n"
            svg += "<text x=\"24\" y=\"\(y0 + panelHeight / 2)\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 24 \(y0 + panelHeight / 2))\">\(esc(panel.yLabel))</text>\n"
            for m in panel.markers where xRange.contains(m.x) {
                svg += "<line class=\"marker\" x1=\"\(x(m.x))\" y1=\"\(y0)\" x2=\"\(x(m.x))\" y2=\"\(y0 + panelHeight)\" stroke=\"#999999\" stroke-dasharray=\"4 4\"/>\n"
                svg += "<text x=\"\(x(m.x) + 3)\" y=\"\(y0 + 14)\" font-size=\"11\" fill=\"#555555\">\(esc(m.label))</text>\n"
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
                svg += "<path class=\"series\" data-name=\"\(esc(s.name))\" d=\"\(d)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"\(s.width)\"\(s.dashed ? " stroke-dasharray=\"6 3\"" : "")/>\n"
            }
            // Legend, top right of the panel.
            let named = panel.series.filter { !$0.name.isEmpty }
            if !named.isEmpty {
                let boxWidth = 16 + 7.5 * Double(named.map(\.name.count).max() ?? 0) + 30
                let bx = left + plotWidth - boxWidth - 8
                svg += "<rect x=\"\(bx)\" y=\"\(y0 + 8)\" width=\"\(boxWidth)\" height=\"\(Double(named.count) * 18 + 8)\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999999\"/>\n"
                for (k, s) in named.enumerated() {
                    let ly = y0 + 22 + Double(k) * 18
                    svg += "<line x1=\"\(bx + 8)\" y1=\"\(ly - 4)\" x2=\"\(bx + 30)\" y2=\"\(ly - 4)\" stroke=\"\(s.color)\" stroke-width=\"2.5\"\(s.dashed ? " stroke-dasharray=\"6 3\"" : "")/>\n"
                    svg += "<text x=\"\(bx + 36)\" y=\"\(ly)\" font-size=\"12\">\(esc(s.name))</text>\n"
                }
            }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    /// Writes the SVG (atomically) and, when `png` is given, converts it with rsvg-convert.
    func write(svg svgPath: String?, png pngPath: String?) throws(CLIError) {
        let text = render()
        var temporary: String?
        let target = svgPath ?? {
            let t = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-plot-\(UUID().uuidString).svg").path
            temporary = t
            return t
        }()
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: target), options: .atomic) } catch {
            throw .io("\(target): cannot write: \(error.localizedDescription)")
        }
        guard let pngPath else { return }
        guard let converter = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .io("\(pngPath): PNG needs rsvg-convert (Debian: apt-get install librsvg2-bin)")
        }
        let staging = (pngPath as NSString).deletingLastPathComponent.isEmpty ? "." : (pngPath as NSString).deletingLastPathComponent
        let partial = staging + "/." + (pngPath as NSString).lastPathComponent + ".timbre-\(getpid()).tmp"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: converter)
        p.arguments = ["-f", "png", "-o", partial, target]
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw .io("\(pngPath): cannot run rsvg-convert: \(error.localizedDescription)") }
        p.waitUntilExit()
        guard p.terminationStatus == 0, rename(partial, pngPath) == 0 else {
            unlink(partial)
            throw .io("\(pngPath): rsvg-convert failed (exit \(p.terminationStatus))")
        }
    }
}
