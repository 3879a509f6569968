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
        Without --encoding the output keeps the input's encoding when its container can hold
        it (float WAV in, float WAV out; 16-bit FLAC in, 16-bit FLAC out), as sox does;
        otherwise it is the container's default (24-bit PCM for WAV, AIFF, FLAC…).
        Samples that do not fit an integer encoding are clipped, counted and reported with
        the peak and true peak before clipping and the gain that would have avoided it.
        """)

    @Argument(help: "Input audio file.") var input: String
    @Option(name: .shortAndLong, help: "Output file; the format follows the extension unless --format is given.") var output: String
    @Option(name: .long, help: "Preset JSON file or shipped preset name (see 'timbre presets list').") var preset: String
    @Option(name: .long, help: "Frames per processing block (1…65536); the output does not depend on it.") var blockSize: Int = 1024
    @Option(name: .long, help: "Output container: \(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String?
    @Option(name: .long, help: "Sample encoding: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")).") var encoding: String?
    @Option(name: .long, help: "Dither for ≤16-bit output: tpdf or none.") var dither: String = "tpdf"
    @Flag(name: .shortAndLong, help: "No progress bar and no summary (warnings still go to stderr).") var quiet = false
    @Flag(name: .long, help: "Print the summary as JSON (the fields of 'timbre info --json' plus peaks, clipping, speed).") var json = false

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
        if let gain = summary.gainToAvoidClippingDB {
            FileHandle.standardError.write(Data(String(
                format: "timbre: warning: %@: %lld samples clipped to fit %@ (peak %+.2f dBFS, true peak %+.2f dBTP before clipping); a gain of %.1f dB (a gain node {\"type\": \"gain\", \"gain\": %.1f}) or --encoding float would avoid it\n",
                output, summary.clippedSamples, summary.encoding.rawValue, summary.peakDBFS, summary.truePeakDBTP, gain, gain).utf8))
        }
        if json {
            print(Self.summaryJSON(summary, output: output).jsonText)
        } else if !quiet {
            print(Self.summaryLine(summary, output: output))
        }
    }

    /// The summary as JSON, in `timbre info --json`'s field names where they overlap.
    static func summaryJSON(_ s: RenderSummary, output: String) -> JSONValue {
        func round(_ v: Double, _ digits: Double = 100) -> JSONValue { v.isFinite ? .number((v * digits).rounded() / digits) : .null }
        return .object([
            "path": .string(output),
            "format": .string(s.format.rawValue),
            "encoding": .string(s.encoding.rawValue),
            "encodingSource": .string(s.encodingSource),
            "sampleRate": .number(s.sampleRate),
            "channels": .number(Double(s.outputChannels)),
            "inputChannels": .number(Double(s.inputChannels)),
            "frames": .number(Double(s.frames)),
            "durationSeconds": round(s.durationSeconds, 1000),
            "peakDBFS": round(s.peakDBFS),
            "truePeakDBTP": round(s.truePeakDBTP),
            "clippedSamples": .number(Double(s.clippedSamples)),
            "gainToAvoidClippingDB": s.gainToAvoidClippingDB.map { .number($0) } ?? .null,
            "speed": round(s.speed, 10),
        ])
    }

    static func summaryLine(_ s: RenderSummary, output: String) -> String {
        String(format: "%@: %lld frames (%.3f s) at %d Hz, %d→%d ch, %@ %@%@, peak %.2f dBFS, true peak %.2f dBTP%@, %.1f× real time",
               output, s.frames, s.durationSeconds, Int(s.sampleRate), s.inputChannels, s.outputChannels,
               s.format.rawValue, s.encoding.rawValue, s.encodingSource == "input" ? " (as the input)" : "",
               s.peakDBFS, s.truePeakDBTP, s.clippedSamples > 0 ? ", \(s.clippedSamples) samples clipped" : "", s.speed)
    }
}
