import Foundation
import TimbreEngine

// `timbre response`'s three outputs of one ``PresetResponse``: a table, JSON, and a plot.
extension PresetResponse {
    /// The JSON `timbre response --json` prints (values rounded to 0.001).
    public func json(presetName: String) -> JSONValue {
        func arr(_ v: [Double]) -> JSONValue { .array(v.map { .number(($0 * 1000).rounded() / 1000) }) }
        func curve(_ c: Curve) -> JSONValue { .object(["name": .string(c.name), "magnitudeDB": arr(c.magnitudeDB), "phaseDegrees": arr(c.phaseDegrees)]) }
        return .object([
            "preset": .string(presetName), "sampleRate": .number(sampleRate), "frequencyHz": arr(frequenciesHz),
            "magnitudeDB": arr(totals[0].magnitudeDB), "phaseDegrees": arr(totals[0].phaseDegrees),
            "totals": .array(totals.map(curve)), "nodes": .array(nodes.map(curve)),
            "staticCurves": .array(staticCurves.map { .object(["name": .string($0.name), "inputDB": arr(StaticCurve.inputDB), "outputDB": arr($0.outputDB)]) }),
        ])
    }

    /// The table `timbre response` prints: each node and total at ten frequencies, then the
    /// static curves at seven input levels.
    public func table(title: String) -> String {
        func pad(_ s: String, _ w: Int) -> String { String(s.prefix(w - 1)).padding(toLength: w, withPad: " ", startingAt: 0) }
        func left(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        let top = frequenciesHz.last ?? 20000
        let probes: [Double] = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000].filter { $0 <= top }
        var lines = [title, "  " + pad("node", 22) + probes.map { f in left(f >= 1000 ? "\(Int(f / 1000))k" : "\(Int(f))", 8) }.joined()]
        for c in nodes + totals {
            let db = c.magnitudeDB
            let row = probes.map { f -> String in
                let i = frequenciesHz.indices.min { abs(frequenciesHz[$0] - f) < abs(frequenciesHz[$1] - f) } ?? 0
                return String(format: "%8.2f", db[i])
            }.joined()
            lines.append("  " + pad(c.name, 22) + row)
        }
        if !staticCurves.isEmpty {
            let levels = [-80.0, -60, -40, -30, -20, -10, 0]
            lines.append("  static curves, output dBFS at an input of")
            lines.append("  " + pad("node", 22) + levels.map { String(format: "%8.0f", $0) }.joined())
            for d in staticCurves { lines.append("  " + pad(d.name, 22) + levels.map { String(format: "%8.2f", d.outputDB[Int($0 + 80)]) }.joined()) }
        }
        return lines.joined(separator: "\n")
    }

    /// Magnitude and phase panels (nodes dashed, totals bold, markers at band centres), and a
    /// static-curve panel when the preset has dynamics nodes.
    package func plot(title: String) -> SVGPlot {
        var magnitude: [SVGPlot.Series] = [], phase: [SVGPlot.Series] = []
        func points(_ v: [Double]) -> [(x: Double, y: Double)] { zip(frequenciesHz, v).map { ($0, $1) } }
        for (k, c) in nodes.enumerated() {
            let color = SVGPlot.palette[(k + 1) % SVGPlot.palette.count]
            magnitude.append(.init(name: c.name, color: color, points: points(c.magnitudeDB), dashed: true, width: 1.2))
            phase.append(.init(name: "", color: color, points: points(c.phaseDegrees), dashed: true, width: 1.2))
        }
        for (k, c) in totals.enumerated() {
            let color = k == 0 ? "#000000" : SVGPlot.palette[(k + 5) % SVGPlot.palette.count]
            magnitude.append(.init(name: c.name, color: color, points: points(c.magnitudeDB), width: 2.6))
            phase.append(.init(name: c.name, color: color, points: points(c.phaseDegrees), width: 2.2))
        }
        func label(_ f: Double) -> String { f >= 1000 ? String(format: "%.3gk", f / 1000) : String(format: "%.0f", f) }
        let allDB = (nodes + totals).flatMap(\.magnitudeDB)
        var panels: [SVGPlot.Panel] = [
            .init(yLabel: "Magnitude (dB)", yRange: SVGPlot.range(of: allDB, step: 6, minimumSpan: 24, hard: -60...30), yStep: 6, series: magnitude,
                  markers: markersHz.map { .init(x: $0, label: label($0)) }),
            .init(yLabel: "Phase (degrees)", yRange: -180...180, yStep: 45, series: phase),
        ]
        if !staticCurves.isEmpty {
            let levels = StaticCurve.inputDB
            var curves = [SVGPlot.Series(name: "unity", color: "#999999", points: levels.map { ($0, $0) }, dashed: true, width: 1)]
            for (k, d) in staticCurves.enumerated() {
                curves.append(.init(name: d.name, color: SVGPlot.palette[(k + 1) % SVGPlot.palette.count], points: zip(levels, d.outputDB).map { ($0, $1) }, width: 2.2))
            }
            panels.append(.init(yLabel: "Output level (dBFS)", yRange: SVGPlot.range(of: staticCurves.flatMap(\.outputDB) + [-80, 0], step: 10, minimumSpan: 80, hard: -140...40),
                                yStep: 10, series: curves, xAxis: .linear(label: "Input level (dBFS)", step: 10), xRange: -80...0))
        }
        return SVGPlot(title: title, panels: panels)
    }
}
