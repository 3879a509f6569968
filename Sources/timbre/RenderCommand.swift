import ArgumentParser
import Foundation
import TimbreEngine
import TimbreFile

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render an audio file through a preset (any format libsndfile reads).",
        discussion: """
        The output is written to a temporary file beside OUTPUT and renamed on success:
        after a failure no output file exists and an existing OUTPUT is untouched.
        Integer output of 16 bits or fewer gets TPDF dither unless --dither none.
        """)

    @Argument(help: "Input audio file.") var input: String
    @Option(name: .shortAndLong, help: "Output file; the format follows the extension unless --format is given.") var output: String
    @Option(name: .long, help: "Preset JSON file or shipped preset name (see 'timbre presets list').") var preset: String
    @Option(name: .long, help: "Frames per processing block (1…65536); the output does not depend on it.") var blockSize: Int = 1024
    @Option(name: .long, help: "Output container: \(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String?
    @Option(name: .long, help: "Sample encoding: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")).") var encoding: String?
    @Option(name: .long, help: "Dither for ≤16-bit output: tpdf or none.") var dither: String = "tpdf"
    @Flag(name: .shortAndLong, help: "No progress bar and no summary.") var quiet = false

    func run() throws {
        guard (1...65536).contains(blockSize) else { throw CLIError.usage("--block-size \(blockSize) is out of range (allowed 1…65536)") }
        var fmt: SoundFileFormat?
        if let format {
            guard let f = SoundFileFormat(rawValue: format.lowercased()) else {
                throw CLIError.usage("--format \(format) is not known (allowed: \(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            fmt = f
        }
        var enc: SampleEncoding?
        if let encoding {
            guard let e = SampleEncoding(rawValue: encoding.lowercased()) else {
                throw CLIError.usage("--encoding \(encoding) is not known (allowed: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            enc = e
        }
        guard dither == "tpdf" || dither == "none" else { throw CLIError.usage("--dither \(dither) is not known (allowed: tpdf, none)") }
        let (p, label) = try PresetLoader.load(preset)
        let request = RenderRequest(inputPath: input, outputPath: output, preset: p, blockFrames: blockSize,
                                    format: fmt, encoding: enc, dither: dither == "tpdf")
        var bar = ProgressBar(enabled: !quiet)
        let summary: RenderSummary
        do {
            summary = try OfflineRenderer.render(request, presetName: label) { progress in
                bar.update(fraction: progress.fraction, elapsed: progress.elapsedSeconds, speed: progress.speed)
            }
        } catch {
            bar.finish()
            throw CLIError(error)
        }
        bar.finish()
        if !quiet {
            print(Self.summaryLine(summary, output: output))
        }
    }

    static func summaryLine(_ s: RenderSummary, output: String) -> String {
        String(format: "%@: %lld frames (%.3f s) at %d Hz, %d→%d ch, %@ %@, peak %.2f dBFS, %.1f× real time",
               output, s.frames, s.durationSeconds, Int(s.sampleRate), s.inputChannels, s.outputChannels,
               s.format.rawValue, s.encoding.rawValue, s.peakDBFS, s.speed)
    }
}
