import TimbreHost
import ArgumentParser
import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

struct SpectrumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spectrum",
        abstract: "Spectrum of an audio file (FFTW): averaged and peak-held levels, the strongest peak, fractional-octave bands, plots.",
        usage: "timbre spectrum <file> [<options>]",
        discussion: """
        Levels are calibrated so a full-scale sine reads 0 dBFS at its peak (window gain \
        corrected); band levels are the power in each band (IEC 61260 base-10 centres). The \
        peak frequency is interpolated between bins. Channels are averaged in power.
        """)

    @Argument(help: "Audio file.") var file: String
    @Option(name: .long, help: "FFT size, 256…32768.") var fftSize: Int = 8192
    @Option(name: .long, help: "Window: hann, hamming, blackman-harris, flattop (flattop reads levels exactly).") var window: String = "hann"
    @Option(name: .long, help: "Frame overlap, 0…0.95.") var overlap: Double = 0.5
    @Option(name: .long, help: "Exponential averaging time constant in seconds; 0 = last frame only; default: mean of all frames.") var averaging: Double?
    @Option(name: .long, help: "Fractional-octave bands: octave, third, sixth.") var bands: String?
    @Flag(name: .long, help: "Print JSON.") var json = false
    @Option(name: .long, help: "Write the plot as SVG.") var svg: String?
    @Option(name: .long, help: "Write the plot as PNG (needs rsvg-convert).") var png: String?
    @Option(name: .long, help: "Plot size in pixels, WIDTHxHEIGHT (default 960 wide, 360 per panel).") var size: String?

    func run() throws {
        let plotSize = try size.map(SVGPlot.size(parsing:))
        guard SpectrumAnalyzer.sizes.contains(fftSize) else { throw HostError.usage("--fft-size \(fftSize) is out of range (allowed 256…32768)") }
        guard let win = SpectrumWindow(rawValue: window) else {
            throw HostError.usage("--window \(window) is not known (allowed: \(SpectrumWindow.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard (0...0.95).contains(overlap) else { throw HostError.usage("--overlap \(overlap) is out of range (allowed 0…0.95)") }
        if let averaging, !(averaging >= 0) { throw HostError.usage("--averaging \(averaging) must be 0 or more seconds") }
        let fraction: Int? = try bands.map { name throws(HostError) in
            switch name { case "octave": 1; case "third": 3; case "sixth": 6
            default: throw HostError.usage("--bands \(name) is not known (allowed: octave, third, sixth)") }
        }
        var bar = ProgressBar(enabled: true)
        let spectrum: FileSpectrum
        do {
            spectrum = try FileSpectrum(path: file, fftSize: fftSize, window: win, overlap: overlap, averagingSeconds: averaging ?? .infinity,
                                        bandsPerOctave: fraction) { bar.update(fraction: $0, elapsed: $1, speed: $2) }
        } catch { bar.finish(); throw error }
        bar.finish()
        print(json ? spectrum.json.jsonText : spectrum.text)
        if svg != nil || png != nil {
            var plot = spectrum.plot(bandsName: bands ?? "")
            if let plotSize { (plot.width, plot.height) = plotSize }
            try plot.write(svg: svg, png: png)
        }
    }
}
