import TimbreHost
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
        Without --preset the audio passes unchanged (a transcode). `-` as input reads \
        standard input; `-o -` writes standard output (name the container with --format).

        Several inputs are joined with --concat (one after another; later files are \
        converted to the first one's rate, mono files upmixed) or summed with --mix (each \
        file a channel of a graph whose master bus runs the preset's chain). --start and
        --end trim the input timeline before any rate change: 90, 1:30, 00:01:30.250, 90s, \
        250ms, or frames:N for an exact frame.

        With --output-dir every input (or every line of --files-from) is rendered alone into \
        that folder, --jobs at once; --shard K/N renders the Kth of N parts (K from 0),
        --skip-existing keeps complete outputs, --report writes one JSON line per file.

        The output is written to a temporary file beside OUTPUT (beside a link's target: \
        the link stays) and renamed on success; a FIFO, a device or standard output is \
        written through, never replaced. After a failure or a signal no output file exists \
        and an existing OUTPUT is untouched. An output that is one of the inputs is refused \
        unless --overwrite-input.

        Tags (title, artist, album… and WAV's broadcast extension) are carried from the first \
        input; --tag KEY=VALUE sets one, --no-tags drops them. Integer output of 16 bits or \
        fewer gets TPDF dither once the audio is off the output's grid (--dither auto; \
        tpdf always, none never), so a 16-bit copy stays bit-exact; lipshitz, wannamaker \
        and shibata shape its noise away from where the ear is most sensitive (any integer \
        output; 44.1 and 48 kHz). --bits 20 writes 20-bit words in 24-bit PCM. Without --encoding the \
        output keeps the input's encoding when its container can hold it, as sox does; \
        otherwise the container's default (24-bit PCM for WAV, AIFF, FLAC…). Samples that \
        do not fit an integer encoding are clipped, counted and reported.
        """)

    @Argument(help: "Input audio files (- for standard input); several need --concat, --mix or --output-dir.") var inputs: [String] = []
    @Option(name: .shortAndLong, help: "Output file (- for standard output); the format follows the extension unless --format is given.") var output: String?
    @Option(name: .long, help: "Render every input alone into this folder (same names; --format changes the extension).") var outputDir: String?
    @Option(name: .long, help: "With --output-dir: files rendered at once (default: one per core).") var jobs: Int?
    @Option(name: .long, help: "With --output-dir: read input paths from this file, one per line (- for standard input).") var filesFrom: String?
    @Option(name: .long, help: "With --output-dir: render only part K of N (K = 0…N-1), a split by path that is the same on every machine.") var shard: String?
    @Flag(name: .long, help: "With --output-dir: keep outputs that exist and are complete (resume a batch).") var skipExisting = false
    @Option(name: .long, help: "With --output-dir: write one JSON line per file to this file.") var report: String?
    @Flag(name: .long, help: "With --output-dir: folders given as inputs are searched for sound files, their subfolders kept.") var recursive = false
    @Option(name: .long, help: "Preset JSON file or shipped preset name (see 'timbre presets list').") var preset: String?
    @Flag(name: .long, help: "Join the inputs one after another.") var concat = false
    @Flag(name: .long, help: "Sum the inputs, each a channel of a graph whose master bus runs the preset.") var mix = false
    @Option(name: .long, help: "Start of the input timeline: 90, 1:30, 00:01:30.250, 90s, 250ms or frames:N.") var start: String?
    @Option(name: .long, help: "End of the input timeline (exclusive), written as --start.") var end: String?
    @Option(name: .long, help: "Frames per processing block (1…65536); the output does not depend on it.") var blockSize: Int = 1024
    @Option(name: .long, help: "Output container: \(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String?
    @Option(name: .long, help: "Sample encoding: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")).") var encoding: String?
    @Option(name: .long, help: "Codec quality 0 (smallest) … 10 (best) for MP3, Opus and Vorbis.") var quality: Double?
    @Option(name: .long, help: "Constant bitrate in kb/s for MP3 and Opus.") var bitrate: Double?
    @Option(name: .long, help: "Dither for integer output: auto (≤16-bit, once the audio is off the grid), tpdf, none, or TPDF with the noise shaped: lipshitz, wannamaker, shibata.") var dither: String = "auto"
    @Option(name: .long, help: "Bits per integer sample, 8 up to the encoding's (e.g. 20 in 24-bit PCM): dithered to that, zero-padded.") var bits: Int?
    @Option(name: .long, help: "Set a tag: KEY=VALUE (title, artist, album, date, comment, genre, tracknumber, copyright, software, license; description, originator, time-reference for WAV). Repeatable.") var tag: [String] = []
    @Flag(name: .long, help: "Write no tags (by default the first input's are kept).") var noTags = false
    @Option(name: .long, help: "Input container: auto (from the file) or raw (needs --input-rate, --input-channels, --input-encoding).") var inputFormat: String = "auto"
    @Option(name: .long, help: "Raw input: sample rate in Hz.") var inputRate: Int?
    @Option(name: .long, help: "Raw input: channels.") var inputChannels: Int?
    @Option(name: .long, help: "Raw input: pcm16, pcm24, pcm32, float or double (little-endian).") var inputEncoding: String?
    @Flag(name: .long, help: "Allow the output to replace one of the inputs (still atomic).") var overwriteInput = false
    @Flag(name: .long, help: "A truncated input, or a --normalize target missed by more than 0.1 LU, is an error (exit 2), not a warning.") var strict = false
    @Option(name: [.customShort("r"), .long], help: "Output sample rate in Hz (8000…384000), converted before the preset runs.") var sampleRate: Int?
    @Option(name: .long, help: "Output channels, converted before the preset runs: 2 or 1 from surround (the ITU downmix, LFE left out), or more from mono or stereo (no channel invented).") var channels: Int?
    @Option(name: .long, help: "Write only these outputs of the graph, in this order: names ('tweeter L,tweeter R', 'mon L,mon R') or numbers from 1 ('3,4').") var outputs: String?
    @Option(name: .long, help: "Playback speed 0.25…4: the output lasts input duration / speed.") var speed: Double = 1
    @Option(name: .long, help: "With --speed: varispeed (pitch follows) or timestretch (pitch kept).") var rateMode: String = "timestretch"
    @Option(name: .long, parsing: .unconditional, help: "Pitch shift in semitones (-24…24; 0.5 = 50 cents) at unchanged duration.") var pitch: Double = 0
    @Option(name: .long, help: "Resampler: high (145 dB, flat to 0.9 of Nyquist) or fast (100 dB, 0.8; low latency).") var resampler: String = "high"
    @Flag(name: .shortAndLong, help: "No progress bar and no summary (warnings still go to stderr).") var quiet = false
    @Flag(name: .long, help: "Print the summary as JSON.") var json = false
    @Flag(name: .long, help: "Measure the output's loudness (R 128) and print it.") var meter = false
    @Option(name: .long, parsing: .unconditional, help: "Render to this integrated loudness (LUFS, e.g. -16 or -23) in two passes.") var normalize: Double?
    @Option(name: .long, parsing: .unconditional, help: "With --normalize: the true-peak ceiling in dBTP.") var truePeakCeiling: Double = -1
    @Option(name: .long, help: "With --normalize: auto (a true-peak limiter where the gain alone would cross the ceiling) or linear (a gain only; a shortfall is reported).") var normalizeMode: String = "auto"

    func run() throws {
        // A signal removes the temporary files and exits 128 + signal; a closed pipe is an
        // error to report (EPIPE), not a silent death.
        TemporaryFiles.installSignalHandlers()
        signal(SIGPIPE, SIG_IGN)
        let template = try requestTemplate()
        if let outputDir { return try runBatch(outputDir: outputDir, template: template) }
        for option in [("--jobs", jobs != nil), ("--files-from", filesFrom != nil), ("--shard", shard != nil),
                       ("--skip-existing", skipExisting), ("--report", report != nil), ("--recursive", recursive)] where option.1 {
            throw HostError.usage("\(option.0) goes with --output-dir")
        }
        guard let output else { throw HostError.usage("missing -o/--output (or --output-dir for several files)") }
        if inputs.count > 1 && !concat && !mix {
            throw HostError.usage("\(inputs.count) input files: add --concat (one after another) or --mix (summed)")
        }
        for input in inputs where input != "-" {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDir), isDir.boolValue {
                throw HostError.usage("\(input) is a folder: render its files with --output-dir DIR --recursive")
            }
        }
        var request = template.request
        request.inputPaths = inputs
        request.outputPath = output
        // Standard output carries the audio: every message goes to stderr then.
        let toStdout = (try? OutputDestination.resolve(output))?.isStandardOutput == true
        var bar = ProgressBar(enabled: !quiet)
        let result: RenderRun.Result
        do {
            result = try RenderRun.perform(request, label: template.label, normalize: template.normalize) { fraction, progress in
                bar.update(fraction: fraction, elapsed: progress.elapsedSeconds, speed: progress.speed)
            }
        } catch {
            bar.finish()
            throw error
        }
        bar.finish()
        let summary = result.summary
        for w in result.warnings { Console.warning(w) }
        func say(_ text: String) {
            if toStdout { FileHandle.standardError.write(Data((text + "\n").utf8)) } else { print(text) }
        }
        if json {
            say(result.json(output: output).jsonText)
        } else if !quiet {
            if let n = result.normalizationText { say(n) }
            say(Self.summaryLine(summary, output: output))
            if !summary.maximumGainReductionDB.isEmpty {
                say("most gain reduction: " + summary.maximumGainReductionDB.sorted { $0.key < $1.key }
                    .map { String(format: "%@ %.2f dB", $0.key, $0.value) }.joined(separator: ", "))
            }
            if let l = summary.loudness { say("output loudness:\n" + l.text) }
        }
    }

    /// The options as a request (without inputs and output), checked: every usage error
    /// before any file is touched.
    func requestTemplate() throws(HostError) -> RenderRun.Template {
        guard (1...65536).contains(blockSize) else { throw .usage("--block-size \(blockSize) is out of range (allowed 1…65536)") }
        let fmt = try format.map { f throws(HostError) in
            guard let v = SoundFileFormat(rawValue: f.lowercased()) else {
                throw .usage("--format \(f) is not known (allowed: \(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return v
        }
        let enc = try encoding.map { e throws(HostError) in try Self.encoding(e, option: "--encoding") }
        let ditherNames = ["auto", "none"] + NoiseShape.allCases.map(\.rawValue)
        guard ditherNames.contains(dither) else { throw .usage("--dither \(dither) is not known (allowed: \(ditherNames.joined(separator: ", ")))") }
        if let channels, !(1...64).contains(channels) { throw .usage("--channels \(channels) is out of range (allowed 1…64)") }
        if let bits, !(8...24).contains(bits) { throw .usage("--bits \(bits) is out of range (allowed 8…24)") }
        if let normalize, !(-70...0).contains(normalize) { throw .usage("--normalize \(normalize) is out of range (allowed -70…0 LUFS)") }
        guard (-20...0).contains(truePeakCeiling) else { throw .usage("--true-peak-ceiling \(truePeakCeiling) is out of range (allowed -20…0 dBTP)") }
        guard let mode = RateMode(rawValue: rateMode) else { throw .usage("--rate-mode \(rateMode) is not known (allowed: timestretch, varispeed)") }
        guard let resamplerQuality = ResamplerQuality(rawValue: resampler) else { throw .usage("--resampler \(resampler) is not known (allowed: high, fast)") }
        if let m = ParameterRanges.outOfRange("--speed", speed, ParameterRanges.varispeed) { throw .usage(m) }
        if let sampleRate, let m = ParameterRanges.outOfRange("--sample-rate", Double(sampleRate), shown: "\(sampleRate)", ParameterRanges.sampleRate, unit: "Hz") { throw .usage(m) }
        if let m = ParameterRanges.outOfRange("--pitch", pitch, ParameterRanges.pitchSemitones, unit: "semitones") { throw .usage(m) }
        guard !(concat && mix) else { throw .usage("--concat and --mix exclude each other") }
        let trim = try trimPositions(), raw = try rawInput(), edits = try tagEdits()
        guard quality == nil || bitrate == nil else { throw .usage("--quality and --bitrate exclude each other (a bitrate is constant; a quality varies it)") }
        if let quality, !(quality.isFinite && (0...10).contains(quality)) { throw .usage("--quality \(quality) is out of range (allowed 0…10)") }
        let (p, label) = try preset.map { a throws(HostError) in try PresetLoader.load(a) } ?? (Preset.none, "no preset")
        var request = RenderRequest(inputPaths: [], outputPath: "", preset: p, blockFrames: blockSize,
                                    format: fmt, encoding: enc, dither: dither != "none", meter: meter || normalize != nil || report != nil)
        request.ditherOnlyOffGrid = dither == "auto"
        request.ditherShape = NoiseShape(rawValue: dither) ?? .tpdf
        request.channelCount = channels
        request.outputs = outputs.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        request.wordLength = bits
        request.pluginLoader = PluginHost.loader
        if let preset, FileManager.default.fileExists(atPath: preset) {
            request.presetDirectory = URL(fileURLWithPath: preset).deletingLastPathComponent().path
        }
        request.combination = concat ? .concat : mix ? .mix : nil
        request.start = trim[0]; request.end = trim[1]
        request.sampleRate = sampleRate; request.speed = speed; request.rateMode = mode; request.pitchSemitones = pitch; request.quality = resamplerQuality
        request.rawInput = raw
        request.overwriteInput = overwriteInput
        request.strict = strict
        request.keepTags = !noTags
        request.tagEdits = edits
        if let quality { request.encoderSettings = EncoderSettings(quality: quality) }
        request.bitrateKbps = bitrate
        guard ["auto", "linear"].contains(normalizeMode) else { throw .usage("--normalize-mode \(normalizeMode) is not allowed (allowed auto, linear)") }
        return RenderRun.Template(request: request, label: label,
                                  normalize: normalize.map { .init(targetLUFS: $0, ceilingDBTP: truePeakCeiling, linear: normalizeMode == "linear") })
    }

    /// `--start` and `--end` as positions (nil where not given).
    func trimPositions() throws(HostError) -> [TimePosition?] {
        var trim: [TimePosition?] = []
        for (name, text) in [("--start", start), ("--end", end)] {
            guard let text else { trim.append(nil); continue }
            guard let t = TimePosition(text) else {
                throw .usage("\(name) \(text) is not a time (allowed: seconds ≥ 0 such as 90, 12.5, 90s or 250ms; 1:30; 00:01:30.250; frames:N)")
            }
            trim.append(t)
        }
        return trim
    }

    /// `--input-format raw` with its rate, channels and encoding; nil for files with a header.
    func rawInput() throws(HostError) -> RawAudioFormat? {
        var raw: RawAudioFormat?
        switch inputFormat.lowercased() {
        case "auto":
            for (name, given) in [("--input-rate", inputRate != nil), ("--input-channels", inputChannels != nil), ("--input-encoding", inputEncoding != nil)] where given {
                throw .usage("\(name) describes headerless audio: it goes with --input-format raw")
            }
        case "raw":
            guard let inputRate, let inputChannels, let inputEncoding else {
                throw .usage("--input-format raw needs --input-rate, --input-channels and --input-encoding (a raw file has no header to say them)")
            }
            guard (1...768_000).contains(inputRate) else { throw .usage("--input-rate \(inputRate) is out of range (allowed 1…768000 Hz)") }
            guard (1...64).contains(inputChannels) else { throw .usage("--input-channels \(inputChannels) is out of range (allowed 1…64)") }
            let e = try Self.encoding(inputEncoding, option: "--input-encoding")
            guard e.integerBits != nil || e == .float || e == .double else {
                throw .usage("--input-encoding \(inputEncoding) is not a raw encoding (allowed: pcm16, pcm24, pcm32, float, double)")
            }
            raw = RawAudioFormat(sampleRate: inputRate, channelCount: inputChannels, encoding: e)
        default:
            throw .usage("--input-format \(inputFormat) is not known (allowed: auto, raw)")
        }
        return raw
    }

    /// `--tag KEY=VALUE` edits, each checked against what the tags can hold.
    func tagEdits() throws(HostError) -> [(key: String, value: String)] {
        var edits: [(key: String, value: String)] = []
        var probe = AudioTags()
        for t in tag {
            guard let eq = t.firstIndex(of: "="), eq != t.startIndex else { throw .usage("--tag \(t) is not KEY=VALUE (e.g. --tag title=\"Episode 12\")") }
            let key = String(t[..<eq]), value = String(t[t.index(after: eq)...])
            do { try probe.set(key, to: value) } catch { throw .usage("--tag \(t): \(error)") }
            edits.append((key, value))
        }
        return edits
    }

    static func encoding(_ name: String, option: String) throws(HostError) -> SampleEncoding {
        guard let e = SampleEncoding(rawValue: name.lowercased()) else {
            throw .usage("\(option) \(name) is not known (allowed: \(SampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return e
    }

    /// `--output-dir`: each input rendered alone through the preset (``BatchRender``).
    func runBatch(outputDir: String, template: RenderRun.Template) throws {
        guard output == nil else { throw HostError.usage("-o/--output and --output-dir exclude each other (--output-dir names each output after its input)") }
        guard !concat && !mix else { throw HostError.usage("--output-dir renders each input alone: it excludes --concat and --mix") }
        let parallel = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        guard (1...256).contains(parallel) else { throw HostError.usage("--jobs \(parallel) is out of range (allowed 1…256)") }
        let part = try shard.map { s throws(HostError) in try BatchRender.Shard(s) }
        var list = inputs
        if let filesFrom { list += try BatchRender.readList(filesFrom) }
        guard !list.isEmpty else { throw HostError.usage("--output-dir needs input files (arguments or --files-from)") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDir, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw HostError.usage("--output-dir \(outputDir) is a file, not a folder") }
        } else {
            do { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) } catch {
                throw HostError.io("\(outputDir): cannot create the folder: \(error.localizedDescription)")
            }
        }
        var jobs = try BatchRender.plan(inputs: list, directory: outputDir, format: format, recursive: recursive)
        if let part { jobs = jobs.filter { part.contains($0.input) } }
        let batch = BatchRender(jobs: jobs, template: template, parallel: parallel, skipExisting: skipExisting, report: report)
        let progress = BatchProgress(total: jobs.count, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        let started = Date()
        progress.draw(outcomes: [], elapsed: 0)
        let summary = try batch.run { outcome, soFar in
            progress.clear()
            if let e = outcome.error { Console.error(e) }
            for w in outcome.result?.warnings ?? [] { Console.warning(w) }
            progress.draw(outcomes: soFar, elapsed: Date().timeIntervalSince(started))
        }
        progress.clear()
        if json { print(summary.json.jsonText) } else if !quiet { print(summary.text) }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }

    static func summaryLine(_ s: RenderSummary, output: String) -> String {
        String(format: "%@: %lld frames (%.3f s) at %d Hz, %d→%d ch%@, %@ %@%@, peak %.2f dBFS, true peak %.2f dBTP%@, %.1f× real time",
               output, s.frames, s.durationSeconds, Int(s.sampleRate), s.inputChannels, s.outputChannels,
               s.channelNames.map { " (" + $0.joined(separator: ", ") + ")" } ?? "",
               s.format.rawValue, s.encoding.rawValue, s.encodingSource == "input" ? " (as the input)" : "",
               s.peakDBFS, s.truePeakDBTP, s.clippedSamples > 0 ? ", \(s.clippedSamples) samples clipped" : "", s.speed)
    }
}
