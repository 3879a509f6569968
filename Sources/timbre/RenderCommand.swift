import ArgumentParser
import Foundation
import TimbreDSP
import TimbreEngine
import TimbrePlugins
import TimbreFile

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render audio files through a preset (any format libsndfile reads).",
        discussion: """
        Several inputs are joined with --concat (one after another; later files are converted
        to the first one's rate and mono files upmixed) or summed with --mix (each file a
        channel of a graph whose master bus runs the preset's chain). --start/--end trim the
        input timeline (seconds, or frames:N for an exact frame) before any rate change.
        Without --preset the audio passes unchanged (a transcode).
        With --output-dir every input is rendered alone into that folder, --jobs at once.
        The output is written to a temporary file beside OUTPUT and renamed on success:
        after a failure no output file exists and an existing OUTPUT is untouched.
        Integer output of 16 bits or fewer gets TPDF dither when the audio was processed
        (--dither auto, the default; tpdf always, none never).
        Without --encoding the output keeps the input's encoding when its container can hold
        it (float WAV in, float WAV out; 16-bit FLAC in, 16-bit FLAC out), as sox does;
        otherwise it is the container's default (24-bit PCM for WAV, AIFF, FLAC…).
        Samples that do not fit an integer encoding are clipped, counted and reported with
        the peak and true peak before clipping and the gain that would have avoided it.
        """)

    @Argument(help: "Input audio file(s); several need --concat, --mix or --output-dir; none when the preset's players are the sources.") var inputs: [String] = []
    @Option(name: .shortAndLong, help: "Output file; the format follows the extension unless --format is given.") var output: String?
    @Option(name: .long, help: "Render every input through the preset into this folder (same file names; --format changes the extension), in parallel.") var outputDir: String?
    @Option(name: .long, help: "With --output-dir: files rendered at once (default: one per core).") var jobs: Int?
    @Option(name: .long, help: "Preset JSON file or shipped preset name (see 'timbre presets list'); none: audio passes unchanged.") var preset: String?
    @Flag(name: .long, help: "Join the inputs one after another (rates converted to the first file's, mono upmixed).") var concat = false
    @Flag(name: .long, help: "Sum the inputs, each a channel of a graph whose master bus runs the preset (a chain).") var mix = false
    @Option(name: .long, help: "Start of the input timeline to render: seconds, or frames:N.") var start: String?
    @Option(name: .long, help: "End of the input timeline (exclusive): seconds, or frames:N.") var end: String?
    @Option(name: .long, help: "Frames per processing block (1…65536); the output does not depend on it.") var blockSize: Int = 1024
    @Option(name: .long, help: "Output container: \(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String?
    @Option(name: .long, help: "Sample encoding: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")).") var encoding: String?
    @Option(name: .long, help: "Dither for ≤16-bit output: auto (when the audio was processed), tpdf or none.") var dither: String = "auto"
    @Option(name: [.customShort("r"), .long], help: "Output sample rate in Hz (8000…384000), converted with the band-limited resampler before the preset runs.") var sampleRate: Int?
    @Option(name: .long, help: "Playback speed 0.25…4: the output lasts input duration / speed.") var speed: Double = 1
    @Option(name: .long, help: "With --speed: varispeed (pitch follows the speed, as tape does) or timestretch (pitch kept).") var rateMode: String = "timestretch"
    @Option(name: .long, parsing: .unconditional, help: "Pitch shift in semitones (-24…24, fractions are cents: 0.5 = 50 cents) at unchanged duration.") var pitch: Double = 0
    @Option(name: .long, help: "Resampler quality: high (145 dB, passband to 0.9 of Nyquist, FFT blocks) or fast (100 dB, 0.8, 32 frames of lookahead: the low-latency mode).") var quality: String = "high"
    @Flag(name: .shortAndLong, help: "No progress bar and no summary (warnings still go to stderr).") var quiet = false
    @Flag(name: .long, help: "Print the summary as JSON (the fields of 'timbre info --json' plus peaks, clipping, speed).") var json = false
    @Flag(name: .long, help: "Measure the output's loudness (R 128) and print it after rendering.") var meter = false
    @Option(name: .long, parsing: .unconditional, help: "Render to this integrated loudness (LUFS, e.g. -16 for podcasts, -23 for EBU R 128) in two passes.") var normalize: Double?
    @Option(name: .long, parsing: .unconditional, help: "With --normalize: the true-peak ceiling (dBTP) the gain may not push the output above.") var truePeakCeiling: Double = -1

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
        guard ["auto", "tpdf", "none"].contains(dither) else { throw CLIError.usage("--dither \(dither) is not known (allowed: auto, tpdf, none)") }
        if let normalize, !(-70...0).contains(normalize) { throw CLIError.usage("--normalize \(normalize) is out of range (allowed -70…0 LUFS)") }
        guard (-20...0).contains(truePeakCeiling) else { throw CLIError.usage("--true-peak-ceiling \(truePeakCeiling) is out of range (allowed -20…0 dBTP)") }
        guard let mode = RateMode(rawValue: rateMode) else { throw CLIError.usage("--rate-mode \(rateMode) is not known (allowed: timestretch, varispeed)") }
        guard let resamplerQuality = ResamplerQuality(rawValue: quality) else { throw CLIError.usage("--quality \(quality) is not known (allowed: high, fast)") }
        guard speed.isFinite, ParameterRanges.varispeed.contains(speed) else {
            throw CLIError.usage("--speed \(speed) is out of range (allowed 0.25…4)")
        }
        if let sampleRate, !ParameterRanges.sampleRate.contains(Double(sampleRate)) {
            throw CLIError.usage("--sample-rate \(sampleRate) is out of range (allowed 8000…384000 Hz)")
        }
        guard pitch.isFinite, (-24...24).contains(pitch) else { throw CLIError.usage("--pitch \(pitch) is out of range (allowed -24…24 semitones)") }
        guard !(concat && mix) else { throw CLIError.usage("--concat and --mix exclude each other") }
        if let outputDir { return try runBatch(outputDir: outputDir) }
        guard jobs == nil else { throw CLIError.usage("--jobs goes with --output-dir") }
        guard let output else { throw CLIError.usage("missing -o/--output (or --output-dir for several files)") }
        if inputs.count > 1 && !concat && !mix {
            throw CLIError.usage("\(inputs.count) input files: add --concat (one after another) or --mix (summed)")
        }
        var trim: [TimePosition?] = []
        for (name, text) in [("--start", start), ("--end", end)] {
            guard let text else { trim.append(nil); continue }
            guard let t = TimePosition(text) else { throw CLIError.usage("\(name) \(text) is not a time (seconds ≥ 0, e.g. 12.5, or frames:N)") }
            trim.append(t)
        }
        let (p, label) = try preset.map { try PresetLoader.load($0) } ?? (Preset.none, "no preset")
        var request = RenderRequest(inputPath: inputs.first ?? "", outputPath: output, preset: p, blockFrames: blockSize,
                                    format: fmt, encoding: enc, dither: dither != "none", meter: meter || normalize != nil)
        request.ditherOnlyWhenProcessed = dither == "auto"
        request.pluginLoader = PluginHost.loader
        request.inputPaths = inputs
        if let preset, FileManager.default.fileExists(atPath: preset) {
            request.presetDirectory = URL(fileURLWithPath: preset).deletingLastPathComponent().path
        }
        request.combination = concat ? .concat : mix ? .mix : nil
        request.start = trim[0]; request.end = trim[1]
        request.sampleRate = sampleRate; request.speed = speed; request.rateMode = mode; request.pitchSemitones = pitch; request.quality = resamplerQuality
        var bar = ProgressBar(enabled: !quiet)
        var normalization: (gainDB: Double, limited: Bool)?
        if let target = normalize {
            // Pass 1: render and measure without writing; then append the gain to the preset.
            let first: RenderSummary
            do {
                first = try OfflineRenderer.render(request, presetName: label, measureOnly: true) { progress in
                    bar.update(fraction: progress.fraction / 2, elapsed: progress.elapsedSeconds, speed: progress.speed)
                }
            } catch { bar.finish(); throw CLIError(error) }
            guard let measured = first.loudness, measured.integratedLUFS.isFinite else {
                bar.finish()
                throw CLIError.io("\(inputs.first ?? output): cannot normalise: the rendered audio has no gated loudness (silent, or shorter than 400 ms)")
            }
            var gain = target - measured.integratedLUFS
            let limited = measured.truePeakDBTP + gain > truePeakCeiling
            if limited { gain = truePeakCeiling - measured.truePeakDBTP }
            guard ParameterRanges.gainNodeDB.contains(gain) else {
                bar.finish()
                throw CLIError.io("\(inputs.first ?? output): normalising needs \(String(format: "%+.2f", gain)) dB, outside -96…24 dB")
            }
            request.preset = Self.appendingGain(gain, to: p)
            normalization = (gain, limited)
        }
        let summary: RenderSummary
        do {
            summary = try OfflineRenderer.render(request, presetName: label) { progress in
                let fraction = normalization == nil ? progress.fraction : 0.5 + progress.fraction / 2
                bar.update(fraction: fraction, elapsed: progress.elapsedSeconds, speed: progress.speed)
            }
        } catch {
            bar.finish()
            throw CLIError(error)
        }
        bar.finish()
        if let (gain, limited) = normalization, let target = normalize, let l = summary.loudness {
            let how = limited ? String(format: "limited by the %.1f dBTP true-peak ceiling: %.2f LUFS instead of %.1f", truePeakCeiling, l.integratedLUFS, target)
                              : String(format: "%.2f LUFS (target %.1f)", l.integratedLUFS, target)
            if limited { FileHandle.standardError.write(Data("timbre: warning: \(output): \(how) (a limiter would be needed to reach the target)\n".utf8)) }
            if !quiet && !json { print(String(format: "normalised: gain %+.2f dB, %@", gain, how)) }
        }
        if let gain = summary.gainToAvoidClippingDB {
            FileHandle.standardError.write(Data(String(
                format: "timbre: warning: %@: %lld samples clipped to fit %@ (peak %+.2f dBFS, true peak %+.2f dBTP before clipping); a gain of %.1f dB (a gain node {\"type\": \"gain\", \"gain\": %.1f}) or --encoding float would avoid it\n",
                output, summary.clippedSamples, summary.encoding.rawValue, summary.peakDBFS, summary.truePeakDBTP, gain, gain).utf8))
        }
        if json {
            var o = Self.summaryJSON(summary, output: output)
            if case .object(var fields) = o {
                if let l = summary.loudness { fields["loudness"] = l.json }
                if let (gain, limited) = normalization {
                    fields["normalization"] = .object(["gainDB": .number((gain * 100).rounded() / 100), "limitedByTruePeak": .bool(limited),
                                                       "targetLUFS": .number(normalize ?? 0), "truePeakCeilingDBTP": .number(truePeakCeiling)])
                }
                o = .object(fields)
            }
            print(o.jsonText)
        } else if !quiet {
            print(Self.summaryLine(summary, output: output))
            if let l = summary.loudness { print("output loudness:\n" + l.text) }
        }
    }

    /// `preset` with a gain node at the very end (the chain, or the master bus of a graph).
    static func appendingGain(_ db: Double, to preset: Preset) -> Preset {
        var p = preset
        let node = NodeSpec(id: "normalize", kind: .gain(linear: pow(10, db / 20)), path: "normalize")
        switch p.form {
        case .chain(let chain): p.form = .chain(chain + [node])
        case .graph(var g): g.master.chain.append(node); p.form = .graph(g)
        }
        return p
    }

    /// `--output-dir`: each input rendered alone through the preset by its own process (``BatchRender``).
    func runBatch(outputDir: String) throws {
        guard output == nil else { throw CLIError.usage("-o/--output and --output-dir exclude each other (--output-dir names each output after its input)") }
        guard !concat && !mix else { throw CLIError.usage("--output-dir renders each input alone: it excludes --concat and --mix") }
        guard !inputs.isEmpty else { throw CLIError.usage("--output-dir needs input files") }
        let parallel = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        guard (1...256).contains(parallel) else { throw CLIError.usage("--jobs \(parallel) is out of range (allowed 1…256)") }
        if let preset { _ = try PresetLoader.load(preset) }  // a preset error stops the batch before any file (exit 1)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDir, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError.usage("--output-dir \(outputDir) is a file, not a folder") }
        } else {
            do { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) } catch {
                throw CLIError.io("\(outputDir): cannot create the folder: \(error.localizedDescription)")
            }
        }
        let batch = BatchRender(jobs: try BatchRender.plan(inputs: inputs, directory: outputDir, format: format),
                                options: childOptions(), parallel: parallel, quiet: quiet, json: json)
        let status = batch.run()
        if status != 0 { throw ExitCode(status) }
    }

    /// This command's options as a child `timbre render` takes them (everything but the
    /// inputs, the output and the batch's own options; presets given as paths made absolute).
    func childOptions() -> [String] {
        var o: [String] = []
        if let preset {
            o += ["--preset", FileManager.default.fileExists(atPath: preset) ? URL(fileURLWithPath: preset).standardizedFileURL.path : preset]
        }
        if let start { o += ["--start", start] }
        if let end { o += ["--end", end] }
        o += ["--block-size", String(blockSize)]
        if let format { o += ["--format", format] }
        if let encoding { o += ["--encoding", encoding] }
        o += ["--dither", dither]
        if let sampleRate { o += ["--sample-rate", String(sampleRate)] }
        o += ["--speed", String(speed), "--rate-mode", rateMode, "--pitch", String(pitch), "--quality", quality]
        if meter { o.append("--meter") }
        if let normalize { o += ["--normalize", String(normalize), "--true-peak-ceiling", String(truePeakCeiling)] }
        return o
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
