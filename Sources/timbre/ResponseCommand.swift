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

    func run() throws {
        let plotSize = try size.map(SVGPlot.size(parsing:))
        if let m = ParameterRanges.outOfRange("--sample-rate", Double(sampleRate), shown: "\(sampleRate)", ParameterRanges.sampleRate, unit: "Hz") { throw HostError.usage(m) }
        guard (16...10000).contains(points) else { throw HostError.usage("--points \(points) is out of range (allowed 16…10000)") }
        let (p, label) = try PresetLoader.load(preset)
        do { _ = try RenderPlan(preset: p, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: 2, maxBlockFrames: 64), registry: PluginHost.registry()) }
        catch { throw HostError.usage("\(label): \(error)") }
        let response = PresetResponse(preset: p, sampleRate: sampleRate, frequenciesHz: PresetResponse.logFrequencies(count: points, sampleRate: sampleRate))
        if response.leavesOutPlugins { Console.note("plugin nodes are left out of the computed response (render a sweep through them to measure it)") }
        print(json ? response.json(presetName: p.name).jsonText : response.table(title: "\(p.name) at \(Int(sampleRate)) Hz (\(label))"))
        if svg != nil || png != nil {
            var plot = response.plot(title: "Response of \(p.name) at \(Int(sampleRate)) Hz")
            if let plotSize { (plot.width, plot.height) = plotSize }
            try plot.write(svg: svg, png: png)
        }
    }
}
