import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

/// `timbre shorten-pauses` as a library: a file's long pauses shortened and its leading and
/// trailing silence trimmed (``PauseFinder``), written through a temporary file with the
/// input's encoding and tags, and a report of every cut.
package struct PauseShorteningRun {
    package let input: String
    package let output: String
    package let sampleRate: Double
    package let finder: PauseFinder
    package let inputFrames: Int
    package let outputFrames: Int

    package init(input: String, output: String, settings: PauseFinder.Settings) throws(HostError) {
        let reader: SoundFileReader
        do { reader = try SoundFileReader(path: input) } catch { throw .io(error.description) }
        guard let format = SoundFileFormat(extension: (output as NSString).pathExtension) else {
            throw .usage("\(output): the extension names no format Timbre writes (\(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let channels = try reader.frames(from: 0, count: Int(reader.frameCount))
        let rate = reader.sampleRate
        let finder = PauseFinder(channels: channels, sampleRate: rate, settings: settings)
        let shortened = finder.apply(to: channels, crossfadeFrames: Int((settings.crossfade * rate).rounded()))
        let encoding = SampleEncoding(libsndfileFormat: reader.formatCode) ?? .pcm24
        do {
            let writer = try SoundFileWriter(path: output, format: format, encoding: encoding, sampleRate: Int(rate), channelCount: reader.channelCount,
                                             dither: false, tags: reader.tags)
            let n = shortened.first?.count ?? 0
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: reader.channelCount)
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(n, 1) * reader.channelCount)
            defer { pointers.deallocate(); storage.deallocate() }
            for c in 0..<reader.channelCount {
                pointers[c] = storage + c * n
                shortened[c].withUnsafeBufferPointer { pointers[c].update(from: $0.baseAddress!, count: n) }
            }
            try writer.write(pointers, frameCount: n)
            try writer.commit()
        } catch { throw .io(error.description) }
        self.input = input; self.output = output; sampleRate = rate; self.finder = finder
        inputFrames = channels.first?.count ?? 0; outputFrames = shortened.first?.count ?? 0
    }

    func seconds(_ frames: Int) -> Double { Double(frames) / sampleRate }

    /// One line per cut and a summary.
    package var text: String {
        var lines = finder.cuts.map { String(format: "cut %9.3f – %9.3f s (%.3f s)", seconds($0.start), seconds($0.end), seconds($0.end - $0.start)) }
        lines.append(String(format: "%@: %.3f s → %.3f s, %d cuts; noise floor %.1f dBFS, speech %.1f dBFS, silence below %.1f dBFS",
                            output, seconds(inputFrames), seconds(outputFrames), finder.cuts.count, finder.noiseFloorDB, finder.speechLevelDB, finder.thresholdDB))
        return lines.joined(separator: "\n")
    }

    /// The report as JSON: the cuts (input seconds), the durations and the levels.
    package var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .number((v * 1000).rounded() / 1000) }
        return .object([
            "input": .string(input), "output": .string(output),
            "inputSeconds": r(seconds(inputFrames)), "outputSeconds": r(seconds(outputFrames)),
            "noiseFloorDB": r(finder.noiseFloorDB), "speechLevelDB": r(finder.speechLevelDB), "thresholdDB": r(finder.thresholdDB),
            "cuts": .array(finder.cuts.map { .object(["start": r(seconds($0.start)), "end": r(seconds($0.end))]) }),
        ])
    }
}
