import Foundation
import TimbreDSP
import TimbreEngine

/// A preset's frequency response from the designed coefficients (what the render runs): each
/// node's, and the total along every path — the chain, or per graph channel its chain, group
/// chain, master chain and volumes (pans ignored) — with the dynamics nodes' static curves.
/// The one computation behind `timbre response` (text, JSON, plots) and the web page's curves.
public struct PresetResponse: Sendable {
    /// A complex response per frequency, with its name (a node's id or JSON path, or a total).
    public struct Curve: Sendable {
        public var name: String
        public var response: [(re: Double, im: Double)]
        public var magnitudeDB: [Double] { response.map { 10 * log10(max($0.re * $0.re + $0.im * $0.im, 1e-30)) } }
        public var phaseDegrees: [Double] { response.map { atan2($0.im, $0.re) * 180 / Double.pi } }
    }

    /// A dynamics node's output level against input levels −80…0 dBFS in 1 dB steps.
    public struct StaticCurve: Sendable {
        public var name: String
        public var outputDB: [Double]
        public static let inputDB = (0...80).map { Double($0) - 80 }
    }

    public let sampleRate: Double
    public let frequenciesHz: [Double]
    /// Every active node with a response of its own (meters, pans and plugins have none).
    public let nodes: [Curve]
    /// The nodes' JSON addresses or paths, as `nodes`.
    public let nodePaths: [String]
    /// One total for a chain; one per channel for a graph.
    public let totals: [Curve]
    public let staticCurves: [StaticCurve]
    /// The nodes' marked frequencies (band centres, corners).
    public let markersHz: [Double]
    /// Plugin nodes are left out (their response is not known without running them).
    public let leavesOutPlugins: Bool

    /// `count` log-spaced frequencies from 20 Hz to 20 kHz or 0.49 × the rate, whichever is lower.
    public static func logFrequencies(count: Int, sampleRate: Double) -> [Double] {
        let top = min(20000, ParameterRanges.nyquistFraction * sampleRate)
        return (0..<count).map { 20 * pow(top / 20, Double($0) / Double(max(count - 1, 1))) }
    }

    public init(preset p: Preset, sampleRate: Double, frequenciesHz freqs: [Double]) {
        self.sampleRate = sampleRate; frequenciesHz = freqs
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
            freqs.indices.map { i in curves.reduce((scale, 0.0)) { acc, c in (acc.0 * c[i].re - acc.1 * c[i].im, acc.0 * c[i].im + acc.1 * c[i].re) } }
        }
        let active = p.allNodes.filter { !$0.bypass && $0.responseTerm(sampleRate: sampleRate) != nil }
        leavesOutPlugins = p.allNodes.contains { !$0.bypass && !$0.hasKnownResponse }
        nodes = active.map { Curve(name: $0.id ?? $0.path, response: response($0)) }
        nodePaths = active.map(\.path)
        switch p.form {
        case .chain: totals = [Curve(name: "total", response: product(nodes.map(\.response)))]
        case .graph(let g):
            totals = g.channels.map { ch in
                let group = ch.group.flatMap { id in g.groups.first { $0.id == id } }
                let path = ch.chain + (group?.chain ?? []) + g.master.chain
                return Curve(name: "total via \(ch.id)", response: product(path.filter { !$0.bypass }.map(response), scale: ch.volume * (group?.volume ?? 1) * g.master.volume))
            }
        }
        staticCurves = p.allNodes.filter { !$0.bypass }.compactMap { node in
            node.staticCurve.map { curve in StaticCurve(name: node.id ?? node.path, outputDB: StaticCurve.inputDB.map(curve)) }
        }
        markersHz = active.compactMap { $0.responseTerm(sampleRate: sampleRate) }.flatMap(\.markersHz)
    }
}
