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
        let reader: SoundFileReader
        do { reader = try SoundFileReader(path: file) } catch { throw HostError.io(error.description) }
        let analyzer = SpectrumAnalyzer(size: fftSize, sampleRate: reader.sampleRate, channelCount: reader.channelCount, window: win,
                                        overlap: overlap, averagingSeconds: averaging ?? .infinity)
        let block = 8192
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: block * reader.channelCount)
        let ptrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: reader.channelCount)
        defer { storage.deallocate(); ptrs.deallocate() }
        for c in 0..<reader.channelCount { ptrs[c] = storage + c * block }
        var bar = ProgressBar(enabled: true)
        let start = Date()
        var done: Int64 = 0
        while true {
            let n: Int
            do { n = try reader.read(into: ptrs, maxFrames: block) } catch { bar.finish(); throw HostError.io(error.description) }
            if n == 0 { break }
            analyzer.process(ptrs, frameCount: n)
            done += Int64(n)
            let elapsed = Date().timeIntervalSince(start)
            if reader.frameCount > 0 { bar.update(fraction: Double(done) / Double(reader.frameCount), elapsed: elapsed, speed: elapsed > 0 ? Double(done) / reader.sampleRate / elapsed : 0) }
        }
        bar.finish()
        guard analyzer.frames > 0 else { throw HostError.io("\(file): shorter than one FFT frame (\(fftSize) samples); use a smaller --fft-size") }
        let peak = analyzer.peak
        let levels = analyzer.levelsDB(), held = analyzer.levelsDB(peakHold: true)
        let bandList = fraction.map { analyzer.bands(fraction: $0) }
        if json {
            func r(_ v: Double) -> JSONValue { .number((v * 100).rounded() / 100) }
            var o: [String: JSONValue] = [
                "path": .string(file), "sampleRate": .number(reader.sampleRate), "fftSize": .number(Double(fftSize)), "window": .string(win.rawValue),
                "frames": .number(Double(analyzer.frames)), "peakFrequencyHz": r(peak.frequencyHz), "peakLevelDBFS": r(peak.levelDB),
            ]
            if let bandList {
                o["bands"] = .array(bandList.map { .object(["frequencyHz": r($0.centerHz), "lowerHz": r($0.lowerHz), "upperHz": r($0.upperHz), "levelDB": r($0.levelDB)]) })
            } else {
                o["bins"] = .array((0..<analyzer.binCount).map { .object(["frequencyHz": r(analyzer.frequency(ofBin: $0)), "levelDB": r(levels[$0]), "peakHoldDB": r(held[$0])]) })
            }
            print(JSONValue.object(o).jsonText)
        } else {
            print(String(format: "%@: %d frames of %d (%@), peak %.2f Hz at %.2f dBFS", file, analyzer.frames, fftSize, win.rawValue, peak.frequencyHz, peak.levelDB))
            for b in bandList ?? [] { print(String(format: "  %8.1f Hz  %7.2f dB", b.centerHz, b.levelDB)) }
        }
        if svg != nil || png != nil {
            var series: [SVGPlot.Series]
            let values: [Double]
            if let bandList {
                // Bands as steps: each band's level across its edges.
                let pts = bandList.flatMap { [($0.lowerHz, $0.levelDB), ($0.upperHz, $0.levelDB)] }
                series = [SVGPlot.Series(name: "band level (\(bands ?? ""))", color: SVGPlot.palette[0], points: pts)]
                values = bandList.map(\.levelDB)
            } else {
                let pts = (1..<analyzer.binCount).map { (analyzer.frequency(ofBin: $0), levels[$0]) }
                let heldPts = (1..<analyzer.binCount).map { (analyzer.frequency(ofBin: $0), held[$0]) }
                series = [SVGPlot.Series(name: "peak hold", color: "#f4a3a3", points: heldPts, width: 1.2),
                          SVGPlot.Series(name: "average", color: SVGPlot.palette[0], points: pts)]
                // The axis holds what is drawn: the peak-hold curve sits above the average.
                values = (levels.dropFirst() + held.dropFirst()).filter { $0 > -200 } + [peak.levelDB]
            }
            let range = SVGPlot.range(of: values, step: 10, minimumSpan: 40, hard: -160...20)
            var plot = SVGPlot(title: "Spectrum of \((file as NSString).lastPathComponent) (\(fftSize)-point \(win.rawValue), \(analyzer.frames) frames)",
                               panels: [SVGPlot.Panel(yLabel: "Level (dBFS)", yRange: max(range.lowerBound, range.upperBound - 120)...range.upperBound, yStep: 10, series: series,
                                                      markers: [SVGPlot.Marker(x: peak.frequencyHz, label: String(format: "peak %.1f Hz", peak.frequencyHz))])])
            if let plotSize { (plot.width, plot.height) = plotSize }
            try plot.write(svg: svg, png: png)
        }
    }
}
