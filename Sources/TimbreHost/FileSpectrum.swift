import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

/// `timbre spectrum` as a library: a whole file through the ``SpectrumAnalyzer`` (FFTW),
/// then its averaged and peak-held levels, strongest peak and fractional-octave bands as
/// text, JSON or a plot.
package struct FileSpectrum {
    package let path: String
    package let sampleRate: Double
    package let fftSize: Int
    package let window: SpectrumWindow
    package let analyzer: SpectrumAnalyzer
    /// Bands per octave (1, 3, 6), nil for bins.
    package let bandsPerOctave: Int?

    /// Reads `path` and analyses it; `progress(fraction, elapsedSeconds, speed)` after each block.
    package init(path: String, fftSize: Int, window: SpectrumWindow, overlap: Double, averagingSeconds: Double, bandsPerOctave: Int?,
                 progress: (Double, Double, Double) -> Void = { _, _, _ in }) throws(HostError) {
        let reader: SoundFileReader
        do { reader = try SoundFileReader(path: path) } catch { throw .io(error.description) }
        let analyzer = SpectrumAnalyzer(size: fftSize, sampleRate: reader.sampleRate, channelCount: reader.channelCount, window: window,
                                        overlap: overlap, averagingSeconds: averagingSeconds)
        let block = 8192
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: block * reader.channelCount)
        let ptrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: reader.channelCount)
        defer { storage.deallocate(); ptrs.deallocate() }
        for c in 0..<reader.channelCount { ptrs[c] = storage + c * block }
        let start = Date()
        var done: Int64 = 0
        while true {
            let n: Int
            do { n = try reader.read(into: ptrs, maxFrames: block) } catch { throw .io(error.description) }
            if n == 0 { break }
            analyzer.process(ptrs, frameCount: n)
            done += Int64(n)
            let elapsed = Date().timeIntervalSince(start)
            if reader.frameCount > 0 { progress(Double(done) / Double(reader.frameCount), elapsed, elapsed > 0 ? Double(done) / reader.sampleRate / elapsed : 0) }
        }
        guard analyzer.frames > 0 else { throw .io("\(path): shorter than one FFT frame (\(fftSize) samples); use a smaller --fft-size") }
        self.path = path; sampleRate = reader.sampleRate; self.fftSize = fftSize; self.window = window; self.analyzer = analyzer
        self.bandsPerOctave = bandsPerOctave
    }

    var bands: [SpectrumKernel.Band]? { bandsPerOctave.map { analyzer.bands(fraction: $0) } }

    package var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .number((v * 100).rounded() / 100) }
        let peak = analyzer.peak, levels = analyzer.levelsDB(), held = analyzer.levelsDB(peakHold: true)
        var o: [String: JSONValue] = [
            "path": .string(path), "sampleRate": .number(sampleRate), "fftSize": .number(Double(fftSize)), "window": .string(window.rawValue),
            "frames": .number(Double(analyzer.frames)), "peakFrequencyHz": r(peak.frequencyHz), "peakLevelDBFS": r(peak.levelDB),
        ]
        if let bands {
            o["bands"] = .array(bands.map { .object(["frequencyHz": r($0.centerHz), "lowerHz": r($0.lowerHz), "upperHz": r($0.upperHz), "levelDB": r($0.levelDB)]) })
        } else {
            o["bins"] = .array((0..<analyzer.binCount).map { .object(["frequencyHz": r(analyzer.frequency(ofBin: $0)), "levelDB": r(levels[$0]), "peakHoldDB": r(held[$0])]) })
        }
        return .object(o)
    }

    package var text: String {
        let peak = analyzer.peak
        return ([String(format: "%@: %d frames of %d (%@), peak %.2f Hz at %.2f dBFS", path, analyzer.frames, fftSize, window.rawValue, peak.frequencyHz, peak.levelDB)]
            + (bands ?? []).map { String(format: "  %8.1f Hz  %7.2f dB", $0.centerHz, $0.levelDB) }).joined(separator: "\n")
    }

    /// Bands as steps, or the average and peak-hold curves, with the peak marked.
    package func plot(bandsName: String) -> SVGPlot {
        let peak = analyzer.peak, levels = analyzer.levelsDB(), held = analyzer.levelsDB(peakHold: true)
        let series: [SVGPlot.Series], values: [Double]
        if let bands {
            series = [SVGPlot.Series(name: "band level (\(bandsName))", color: SVGPlot.palette[0], points: bands.flatMap { [($0.lowerHz, $0.levelDB), ($0.upperHz, $0.levelDB)] })]
            values = bands.map(\.levelDB)
        } else {
            let pts = (1..<analyzer.binCount).map { (analyzer.frequency(ofBin: $0), levels[$0]) }
            let heldPts = (1..<analyzer.binCount).map { (analyzer.frequency(ofBin: $0), held[$0]) }
            series = [SVGPlot.Series(name: "peak hold", color: "#f4a3a3", points: heldPts, width: 1.2), SVGPlot.Series(name: "average", color: SVGPlot.palette[0], points: pts)]
            // The axis holds what is drawn: the peak-hold curve sits above the average.
            values = (levels.dropFirst() + held.dropFirst()).filter { $0 > -200 } + [peak.levelDB]
        }
        let range = SVGPlot.range(of: values, step: 10, minimumSpan: 40, hard: -160...20)
        return SVGPlot(title: "Spectrum of \((path as NSString).lastPathComponent) (\(fftSize)-point \(window.rawValue), \(analyzer.frames) frames)",
                       panels: [SVGPlot.Panel(yLabel: "Level (dBFS)", yRange: max(range.lowerBound, range.upperBound - 120)...range.upperBound, yStep: 10, series: series,
                                              markers: [SVGPlot.Marker(x: peak.frequencyHz, label: String(format: "peak %.1f Hz", peak.frequencyHz))])])
    }
}
