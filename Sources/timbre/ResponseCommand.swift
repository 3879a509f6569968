import TimbreHost
import ArgumentParser
import Foundation
import TimbreDSP
import TimbreEngine
import TimbrePlugins

struct ResponseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "response",
        abstract: "Magnitude and phase response of a preset, per node and in total, as text, JSON or a plot.",
        usage: "timbre response --preset <preset> [<options>]",
        discussion: """
        Computed from the designed coefficients (what the render runs). For a graph preset the \
        total is given per channel, along its path: channel chain, group chain, master chain \
        and volumes (pans ignored). Dynamics nodes (compressor, deesser, gate, expander, \
        limiter) add their static curve: output level against a steady input level, from \
        -80 to 0 dBFS (their frequency response is the small-signal one: makeup only).
        """)

    @Option(name: .long, help: "Preset JSON file or shipped preset name.") var preset: String
    @Option(name: .long, help: "Sample rate to design for (Hz).") var sampleRate: Double = 48000
    @Option(name: .long, help: "Number of log-spaced frequencies from 20 Hz.") var points: Int = 400
    @Flag(name: .long, help: "Print JSON.") var json = false
    @Option(name: .long, help: "Write the plot as SVG.") var svg: String?
    @Option(name: .long, help: "Write the plot as PNG (needs rsvg-convert).") var png: String?
    @Option(name: .long, help: "Plot size in pixels, WIDTHxHEIGHT (default 960 wide, 360 per panel).") var size: String?

    struct Curve { var name: String; var response: [(re: Double, im: Double)] }

    func run() throws {
        let plotSize = try size.map(SVGPlot.size(parsing:))
        guard (8000...384000).contains(sampleRate) else { throw HostError.usage("--sample-rate \(sampleRate) is out of range (allowed 8000…384000)") }
        guard (16...10000).contains(points) else { throw HostError.usage("--points \(points) is out of range (allowed 16…10000)") }
        let (p, label) = try PresetLoader.load(preset)
        do { _ = try RenderPlan(preset: p, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: 2, maxBlockFrames: 64), registry: PluginHost.registry()) }
        catch { throw HostError.usage("\(label): \(error)") }
        let top = min(20000, 0.49 * sampleRate)
        let freqs = (0..<points).map { 20 * pow(top / 20, Double($0) / Double(points - 1)) }
        // Each node's linear response (filters, EQs, gains); pan, meters and plugins have none.
        func response(_ node: NodeSpec) -> [(re: Double, im: Double)] {
            let term = node.responseTerm(sampleRate: sampleRate)
            return freqs.map { f in
                var re = GainUnits.linear(fromDB: term?.gainDB ?? 0), im = 0.0
                for s in term?.sections ?? [] {
                    let r = s.response(omega: 2 * Double.pi * f / sampleRate)
                    (re, im) = (re * r.re - im * r.im, re * r.im + im * r.re)
                }
                return (re, im)
            }
        }
        func product(_ curves: [[(re: Double, im: Double)]], scale: Double = 1) -> [(re: Double, im: Double)] {
            freqs.indices.map { i in
                curves.reduce((scale, 0.0)) { acc, c in (acc.0 * c[i].re - acc.1 * c[i].im, acc.0 * c[i].im + acc.1 * c[i].re) }
            }
        }
        // Measuring nodes pass audio unchanged: no curve of their own.
        let active = p.allNodes.filter { !$0.bypass && $0.responseTerm(sampleRate: sampleRate) != nil }
        if p.allNodes.contains(where: { !$0.bypass && !$0.hasKnownResponse }) {
            FileHandle.standardError.write(Data("timbre: note: plugin nodes are left out of the computed response (render a sweep through them to measure it)\n".utf8))
        }
        let nodeCurves = active.map { Curve(name: $0.id ?? $0.path, response: response($0)) }
        var totals: [Curve] = []
        switch p.form {
        case .chain: totals = [Curve(name: "total", response: product(nodeCurves.map(\.response)))]
        case .graph(let g):
            for ch in g.channels {
                let group = ch.group.flatMap { id in g.groups.first { $0.id == id } }
                let path = ch.chain + (group?.chain ?? []) + g.master.chain
                let scale = ch.volume * (group?.volume ?? 1) * g.master.volume
                totals.append(Curve(name: "total via \(ch.id)", response: product(path.filter { !$0.bypass }.map(response), scale: scale)))
            }
        }
        func db(_ c: (re: Double, im: Double)) -> Double { 10 * log10(max(c.re * c.re + c.im * c.im, 1e-30)) }
        func degrees(_ c: (re: Double, im: Double)) -> Double { atan2(c.im, c.re) * 180 / Double.pi }
        // Dynamics nodes: static curves over −80…0 dBFS in 1 dB steps.
        let levels = (0...80).map { Double($0) - 80 }
        let dynamics = p.allNodes.filter { !$0.bypass }.compactMap { node in
            node.staticCurve.map { curve in (name: node.id ?? node.path, output: levels.map(curve)) }
        }
        if json {
            func arr(_ v: [Double]) -> JSONValue { .array(v.map { .number(($0 * 1000).rounded() / 1000) }) }
            let total = totals[0].response
            print(JSONValue.object([
                "preset": .string(p.name), "sampleRate": .number(sampleRate), "frequencyHz": arr(freqs),
                "magnitudeDB": arr(total.map(db)), "phaseDegrees": arr(total.map(degrees)),
                "totals": .array(totals.map { .object(["name": .string($0.name), "magnitudeDB": arr($0.response.map(db)), "phaseDegrees": arr($0.response.map(degrees))]) }),
                "nodes": .array(nodeCurves.map { .object(["name": .string($0.name), "magnitudeDB": arr($0.response.map(db)), "phaseDegrees": arr($0.response.map(degrees))]) }),
                "staticCurves": .array(dynamics.map { .object(["name": .string($0.name), "inputDB": arr(levels), "outputDB": arr($0.output)]) }),
            ]).jsonText)
        } else {
            print("\(p.name) at \(Int(sampleRate)) Hz (\(label))")
            let probes: [Double] = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000].filter { $0 <= top }
            print("  " + "node".padding(toLength: 22, withPad: " ", startingAt: 0) + probes.map { f in (f >= 1000 ? "\(Int(f / 1000))k" : "\(Int(f))").leftPad(8) }.joined())
            for c in nodeCurves + totals {
                let row = probes.map { f -> String in
                    let i = freqs.indices.min { abs(freqs[$0] - f) < abs(freqs[$1] - f) } ?? 0
                    return String(format: "%8.2f", db(c.response[i]))
                }.joined()
                print("  " + String(c.name.prefix(21)).padding(toLength: 22, withPad: " ", startingAt: 0) + row)
            }
            if !dynamics.isEmpty {
                let probes = [-80.0, -60, -40, -30, -20, -10, 0]
                print("  static curves, output dBFS at an input of" )
                print("  " + "node".padding(toLength: 22, withPad: " ", startingAt: 0) + probes.map { String(format: "%8.0f", $0) }.joined())
                for d in dynamics {
                    let row = probes.map { String(format: "%8.2f", d.output[Int($0 + 80)]) }.joined()
                    print("  " + String(d.name.prefix(21)).padding(toLength: 22, withPad: " ", startingAt: 0) + row)
                }
            }
        }
        if svg != nil || png != nil {
            var magnitude: [SVGPlot.Series] = [], phase: [SVGPlot.Series] = []
            for (k, c) in nodeCurves.enumerated() {
                let color = SVGPlot.palette[(k + 1) % SVGPlot.palette.count]
                magnitude.append(.init(name: c.name, color: color, points: zip(freqs, c.response.map(db)).map { ($0, $1) }, dashed: true, width: 1.2))
                phase.append(.init(name: "", color: color, points: zip(freqs, c.response.map(degrees)).map { ($0, $1) }, dashed: true, width: 1.2))
            }
            for (k, c) in totals.enumerated() {
                let color = k == 0 ? "#000000" : SVGPlot.palette[(k + 5) % SVGPlot.palette.count]
                magnitude.append(.init(name: c.name, color: color, points: zip(freqs, c.response.map(db)).map { ($0, $1) }, width: 2.6))
                phase.append(.init(name: c.name, color: color, points: zip(freqs, c.response.map(degrees)).map { ($0, $1) }, width: 2.2))
            }
            var markers: [SVGPlot.Marker] = []
            func label(_ f: Double) -> String { f >= 1000 ? String(format: "%.3gk", f / 1000) : String(format: "%.0f", f) }
            for term in active.compactMap({ $0.responseTerm(sampleRate: sampleRate) }) {
                markers += term.markersHz.map { .init(x: $0, label: label($0)) }
            }
            let allDB = (nodeCurves + totals).flatMap { $0.response.map(db) }
            var panels: [SVGPlot.Panel] = [
                .init(yLabel: "Magnitude (dB)", yRange: SVGPlot.range(of: allDB, step: 6, minimumSpan: 24, hard: -60...30), yStep: 6, series: magnitude, markers: markers),
                .init(yLabel: "Phase (degrees)", yRange: -180...180, yStep: 45, series: phase),
            ]
            if !dynamics.isEmpty {
                var curves = [SVGPlot.Series(name: "unity", color: "#999999", points: levels.map { ($0, $0) }, dashed: true, width: 1)]
                for (k, d) in dynamics.enumerated() {
                    curves.append(.init(name: d.name, color: SVGPlot.palette[(k + 1) % SVGPlot.palette.count], points: zip(levels, d.output).map { ($0, $1) }, width: 2.2))
                }
                panels.append(.init(yLabel: "Output level (dBFS)", yRange: SVGPlot.range(of: dynamics.flatMap(\.output) + [-80, 0], step: 10, minimumSpan: 80, hard: -140...40),
                                    yStep: 10, series: curves, xAxis: .linear(label: "Input level (dBFS)", step: 10), xRange: -80...0))
            }
            var plot = SVGPlot(title: "Response of \(p.name) at \(Int(sampleRate)) Hz", panels: panels)
            if let plotSize { (plot.width, plot.height) = plotSize }
            try plot.write(svg: svg, png: png)
        }
    }
}

extension String {
    func leftPad(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
