import Foundation
import TimbreDSP
import TimbreEngine

/// What an offline render should produce.
public struct RenderRequest: Sendable {
    /// The input files: one, or several with a ``combination``.
    public var inputPaths: [String]
    /// The first input (the one errors about processing name).
    public var inputPath: String { inputPaths[0] }
    /// How several inputs combine (nil for one input).
    public var combination: InputCombination?
    /// Trim: the first frame of the input timeline rendered, and the frame after the last.
    public var start: TimePosition?
    public var end: TimePosition?
    public var outputPath: String
    public var preset: Preset
    public var blockFrames: Int
    /// Frames read, converted and written at a time: at least 4096 whatever `blockFrames` is
    /// (the plan splits them into its blocks), so a small `--block-size` does not call
    /// libsndfile and the rate stages per 32 frames. Output does not depend on it.
    public var ioFrames: Int { max(blockFrames, 4096) }
    /// nil: from the output extension.
    public var format: SoundFileFormat?
    /// nil: the input's encoding when the output container holds it (float WAV in, float WAV
    /// out; 16-bit FLAC in, 16-bit FLAC out), as sox does; otherwise the container's default
    /// (24-bit PCM for WAV/AIFF/FLAC…).
    public var encoding: SampleEncoding?
    public var dither: Bool
    /// With `dither`: leave it off while the audio is already on the output's integer grid —
    /// when nothing changed the samples (a transcode, a trim, a flat preset), so 16-bit in,
    /// 16-bit out stays bit-identical, as sox does; from the first sample off the grid on, dither.
    public var ditherOnlyOffGrid = false
    /// With `dither`: the requantisation noise's shape (`.tpdf`: flat, the default).
    public var ditherShape: NoiseShape = .tpdf
    /// Bits of the integer words written (8 up to the encoding's, 24 at most), nil: the
    /// encoding's. A shorter word is dithered (with `dither`) and padded with zero bits.
    public var wordLength: Int?
    /// Measure the output's loudness (``RenderSummary/loudness``).
    public var meter: Bool
    /// Output sample rate (nil: the input's). The file is converted before the preset, which
    /// runs at this rate.
    public var sampleRate: Int?
    /// Channels to convert the input to before the preset (nil: as it is), through a
    /// `ChannelConversion`: the ITU downmix to stereo or mono, or a plain upmix.
    public var channelCount: Int?
    /// The graph outputs to write, in order, by name (a crossover's `"tweeter L"`, an aux's
    /// `"mon L"`) or by number from 1; nil writes every output.
    public var outputs: [String]?
    /// The names of the channels a second pass writes from a capture (`--normalize`): the first
    /// pass's outputs, discrete when named.
    var capturedOutputNames: [String]?
    /// Playback speed (0.25…4 varispeed): the output lasts input duration / speed.
    public var speed: Double
    public var rateMode: RateMode
    /// Pitch shift in semitones (−24…24) at unchanged duration.
    public var pitchSemitones: Double
    public var quality: ResamplerQuality
    /// The folder relative `player` file names are found in (the preset file's).
    public var presetDirectory: String?
    /// How `plugin` nodes load (TimbrePlugins' `PluginHost.loader`); nil: a preset with one is an error.
    public var pluginLoader: PluginLoader?
    /// Headerless input: what the header would have said (every input path is read so).
    public var rawInput: RawAudioFormat?
    /// Allow the output to be one of the inputs (still atomic: the input is read whole from the
    /// old file and replaced at the end). Without it such a request is refused.
    public var overwriteInput = false
    /// A truncated input (fewer frames than its header announced) is an error, not a warning.
    public var strict = false
    /// Carry the first input's tags to the output (where the container holds them).
    public var keepTags = true
    /// Tags set on the output after the input's (key, value); an empty value removes a tag.
    /// Keys as ``AudioTags/set(_:to:)`` takes them.
    public var tagEdits: [(key: String, value: String)] = []
    /// Quality of a lossy output codec.
    public var encoderSettings = EncoderSettings()
    /// A constant bitrate for MP3 or Opus output (kb/s), checked against the codec's range at
    /// the output rate and channel count; overrides ``encoderSettings``.
    public var bitrateKbps: Double?

    /// The ``RenderRequest`` properties a ``RenderError/request(_:_:)`` can be about.
    public enum Parameter: String, Sendable {
        case combination, start, end, format, encoding, blockFrames, speed, pitchSemitones, sampleRate, channelCount, outputs, outputPath, tagEdits, bitrate, encoderSettings
    }

    /// A render of one input file.
    public init(inputPath: String, outputPath: String, preset: Preset, blockFrames: Int = 1024,
                format: SoundFileFormat? = nil, encoding: SampleEncoding? = nil, dither: Bool = true, meter: Bool = false) {
        self.init(inputPaths: [inputPath], outputPath: outputPath, preset: preset, blockFrames: blockFrames,
                  format: format, encoding: encoding, dither: dither, meter: meter)
    }

    /// A render of several input files (set ``combination``), or of none: `[]` renders the
    /// preset's players alone.
    public init(inputPaths: [String], outputPath: String, preset: Preset, blockFrames: Int = 1024,
                format: SoundFileFormat? = nil, encoding: SampleEncoding? = nil, dither: Bool = true, meter: Bool = false) {
        self.inputPaths = inputPaths; self.outputPath = outputPath; self.preset = preset
        self.blockFrames = blockFrames; self.format = format; self.encoding = encoding; self.dither = dither; self.meter = meter
        sampleRate = nil; speed = 1; rateMode = .timestretch; pitchSemitones = 0; quality = .high
    }

    /// The stages between the file and the preset, in order: a time-stretch (rate: input frames
    /// per output frame), a resampling at the input's rate for varispeed and pitch (output
    /// frames per input frame), and the sample-rate conversion. Speeds and pitch factors are
    /// taken as the nearest fractions with terms ≤ 1000 (exact for decimal speeds such as 1.25;
    /// within 1e-6 for pitch factors, 0.002 cent).
    public func rateStages(inputRate: Int) -> (stretch: Double?, varispeed: RationalRatio?, conversion: RationalRatio?) {
        let pitch = pitchSemitones == 0 ? RationalRatio(1, 1) : RationalRatio(approximating: pow(2, pitchSemitones / 12), limit: 1000)
        let speedFraction = RationalRatio(approximating: speed, limit: 1000)
        // Pitch P: stretch by P (rate 1/P) then play P× faster. Varispeed S: play S× faster.
        let stretchRate = (rateMode == .timestretch ? speedFraction.value : 1) / pitch.value
        var varispeed = RationalRatio(pitch.downsampling, pitch.upsampling)
        if rateMode == .varispeed {
            varispeed = RationalRatio(varispeed.upsampling * speedFraction.downsampling, varispeed.downsampling * speedFraction.upsampling)
        }
        let outputRate = sampleRate ?? inputRate
        return (abs(stretchRate - 1) < 1e-12 ? nil : stretchRate,
                varispeed.upsampling == varispeed.downsampling ? nil : varispeed,
                outputRate == inputRate ? nil : RationalRatio(inputRate: inputRate, outputRate: outputRate))
    }

    /// The chain of sources that feeds the preset: the input timeline, then the stages of
    /// ``rateStages(inputRate:)``, held to the exact length.
    func sourceChain(timeline: TimelineSource, inputRate: Int, layout: ChannelLayout? = nil) throws(RenderError) -> FrameSource {
        let stages = rateStages(inputRate: inputRate)
        var source: FrameSource = timeline
        if let count = channelCount, count != timeline.channelCount {
            let from = layout.flatMap { $0.channelCount == timeline.channelCount ? $0 : nil } ?? .standard(channelCount: timeline.channelCount)
            guard let conversion = ChannelConversion(from: from, toChannelCount: count) else {
                throw .request(.channelCount, "\(inputPath): no conversion from \(timeline.channelCount) channels (\(from)) to \(count) (downmixes go to 2 or 1 channel; upmixes from 1 or 2)")
            }
            source = ChannelConversionStage(upstream: source, conversion: conversion, maximumFrames: ioFrames)
        }
        if let rate = stages.stretch {
            guard TimeStretcher.rateRange.contains(rate) else {
                throw .request(.speed, "speed \(speed) with a pitch shift of \(pitchSemitones) semitones needs a stretch by \(1 / rate), beyond what the stretcher does (0.25…4)")
            }
            source = StretchingStage(upstream: source, sampleRate: Double(inputRate), rate: rate, maximumFrames: ioFrames)
        }
        for ratio in [stages.varispeed, stages.conversion].compactMap({ $0 }) {
            guard let stage = ResamplingStage(upstream: source, ratio: ratio, quality: quality, maximumFrames: ioFrames) else {
                throw .request(.sampleRate, "\(inputPath): converting by \(ratio) (output/input frames) needs a filter table larger than \(PolyphaseFilterBank.maximumCoefficients) coefficients; choose a rate with a simpler ratio to \(inputRate) Hz")
            }
            source = stage
        }
        if stages.stretch != nil || stages.varispeed != nil || stages.conversion != nil {
            let outputRate = Double(sampleRate ?? inputRate)
            // A conversion alone has a rational length, ⌈N·L/M⌉; speed and pitch stages round.
            let pureConversion = stages.stretch == nil && stages.varispeed == nil ? stages.conversion : nil
            source = ExactLengthStage(upstream: source, timeline: timeline, framesPerTimelineFrame: outputRate / Double(inputRate) / speed,
                                      exactRatio: pureConversion)
        }
        return source
    }
}

/// Progress of a render, reported after every block.
public struct RenderProgress: Sendable {
    public var framesDone: Int64
    /// Expected total (libsndfile's count; 0 if unknown).
    public var framesTotal: Int64
    public var sampleRate: Double
    public var elapsedSeconds: Double
    public var fraction: Double { framesTotal > 0 ? min(1, Double(framesDone) / Double(framesTotal)) : 0 }
    /// Audio seconds rendered per wall-clock second.
    public var speed: Double { elapsedSeconds > 0 ? Double(framesDone) / sampleRate / elapsedSeconds : 0 }
}

/// The result of a finished render.
public struct RenderSummary: Sendable {
    public var frames: Int64
    public var sampleRate: Double
    public var inputChannels: Int
    public var outputChannels: Int
    /// Largest absolute output sample (before dither and clipping), linear.
    public var peak: Float
    /// Largest inter-sample peak of the output before clipping (BS.1770-4 oversampling), linear.
    public var truePeak: Float
    /// Output samples that did not fit an integer encoding and were clipped.
    public var clippedSamples: Int64
    /// Where the encoding came from: `"given"`, `"input"` (kept from the input) or `"default"`.
    public var encodingSource: String
    /// The output's loudness before clipping and quantisation, when the request asked to meter.
    public var loudness: LoudnessReport?
    public var elapsedSeconds: Double
    public var format: SoundFileFormat
    public var encoding: SampleEncoding
    /// What the user should know though the render succeeded: a truncated input, tags the
    /// output container could not hold.
    public var warnings: [String] = []
    /// The tags written to the output.
    public var tags = AudioTags()
    /// The output's channel layout (the input's for as many channels, else the usual one),
    /// whose BS.1770 weights the loudness used.
    public var channelLayout = ChannelLayout.standard(channelCount: 2)
    /// The layout declared in the output file (nil: none written).
    public var declaredLayout: ChannelLayout?
    /// The output channels' names when the preset made discrete channels (a crossover's
    /// bands, the `drivers` node's labels), in file order.
    public var channelNames: [String]?
    /// The deepest gain reduction of each dynamics node (`compressor`, `deesser`, `limiter`)
    /// over the render, dB (positive), by node key.
    public var maximumGainReductionDB: [String: Double] = [:]
    public var durationSeconds: Double { Double(frames) / sampleRate }
    public var peakDBFS: Double { 20 * log10(Double(max(peak, 1e-10))) }
    public var truePeakDBTP: Double { 20 * log10(Double(max(truePeak, 1e-10))) }
    /// The gain (dB, rounded down to 0.1 dB) that would have kept every sample within full
    /// scale, or nil when nothing clipped.
    public var gainToAvoidClippingDB: Double? {
        guard clippedSamples > 0 else { return nil }
        return ((-peakDBFS - 0.05) * 10).rounded(.down) / 10
    }
    public var speed: Double { elapsedSeconds > 0 ? durationSeconds / elapsedSeconds : 0 }
}

/// Errors of an offline render: the preset (exit 1) or the files (exit 2).
public enum RenderError: Error, CustomStringConvertible {
    case preset(file: String, PresetError)
    case file(AudioFileError)
    /// A request that cannot be rendered as asked; `parameter` is the ``RenderRequest`` property
    /// at fault (nil when it is the inputs themselves), so a front end can name its own option.
    case request(RenderRequest.Parameter?, String)

    public var description: String {
        switch self {
        case .preset(let file, let e): "\(file): \(e)"
        case .file(let e): e.description
        case .request(_, let m): m
        }
    }
}

/// The file pump: reads blocks with libsndfile, renders them through a `RenderPlan` and
/// writes them atomically. Memory is constant in the file length (one block per channel).
public enum OfflineRenderer {
    /// Chooses the output format (explicit, else from the extension) and encoding (explicit,
    /// else the input's when the container takes it, else the container's default).
    public static func resolveFormat(_ request: RenderRequest, inputEncoding: SampleEncoding? = nil) throws(RenderError) -> (SoundFileFormat, SampleEncoding) {
        let ext = URL(fileURLWithPath: request.outputPath).pathExtension
        guard let format = request.format ?? SoundFileFormat(extension: ext) else {
            let why = ext.isEmpty ? "has no extension to tell the output format by" : "cannot tell the output format from the extension \".\(ext)\""
            throw .request(.format, "\(request.outputPath == "-" ? "standard output" : request.outputPath): \(why); name the format (\(SoundFileFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let encoding = request.encoding ?? inputEncoding.flatMap { format.encodings.contains($0) ? $0 : nil } ?? format.encodings[0]
        guard format.encodings.contains(encoding) else {
            throw .request(.encoding, "encoding \(encoding.rawValue) is not available for \(format.rawValue) (allowed: \(format.encodings.map(\.rawValue).joined(separator: ", ")))")
        }
        return (format, encoding)
    }

    /// Renders the request. `progress` is called on the calling thread after each block.
    /// `measureOnly`: render and meter the output without writing a file (the first pass of
    /// loudness normalisation). `capture`: keep the output in memory too (up to its budget).
    public static func render(_ request: RenderRequest, presetName: String = "preset", measureOnly: Bool = false, capture: RenderCapture? = nil,
                              progress: ((RenderProgress) -> Void)? = nil) throws(RenderError) -> RenderSummary {
        _ = try resolveFormat(request)  // usage errors before touching any file
        guard request.blockFrames >= 1 else { throw .request(.blockFrames, "block size \(request.blockFrames) frames is out of range (allowed at least 1)") }
        if let m = ParameterRanges.outOfRange("speed", request.speed, ParameterRanges.varispeed) { throw .request(.speed, m) }
        if let rate = request.sampleRate, let m = ParameterRanges.outOfRange("sample rate", Double(rate), shown: "\(rate)", ParameterRanges.sampleRate, unit: "Hz") {
            throw .request(.sampleRate, m)
        }
        if let m = ParameterRanges.outOfRange("pitch", request.pitchSemitones, ParameterRanges.pitchSemitones, unit: "semitones") { throw .request(.pitchSemitones, m) }
        let playerSpecs = request.preset.playerSpecs
        guard !request.inputPaths.isEmpty || !playerSpecs.isEmpty else { throw .request(nil, "no input file (and the preset has no players)") }
        if request.inputPaths.isEmpty {
            return try renderPlayers(request, presetName: presetName, measureOnly: measureOnly, capture: capture, progress: progress)
        }
        guard request.inputPaths.count == 1 || request.combination != nil else {
            throw .request(.combination, "\(request.inputPaths.count) input files: say how to combine them (concatenate or mix)")
        }
        guard request.inputPaths.filter({ $0 == "-" }).count <= 1 else {
            throw .request(nil, "standard input (-) can be read once only")
        }
        if !request.overwriteInput, let out = OutputDestination.identity(of: request.outputPath),
           let clash = request.inputPaths.first(where: { OutputDestination.identity(of: $0) == out }) {
            throw .request(.outputPath, "\(request.outputPath) is the input \(clash): the output would replace it (allow that explicitly, or write elsewhere)")
        }
        var readers: [SoundFileReader] = []
        for path in request.inputPaths {
            do { readers.append(try SoundFileReader(path: path, raw: request.rawInput)) } catch { throw .file(error) }
        }
        let reader = readers[0]
        let timeline = try request.timeline(readers)
        let outputRate = Double(request.sampleRate ?? Int(reader.sampleRate))
        let source = try request.sourceChain(timeline: timeline, inputRate: Int(reader.sampleRate), layout: reader.channelLayout)
        return try render(request, presetName: presetName, measureOnly: measureOnly, capture: capture, progress: progress,
                          readers: readers, timeline: timeline, source: source, outputRate: outputRate)
    }

    /// A render of a preset's players alone: the graph runs at `--sample-rate` or the first
    /// player's file rate, for as long as the longest player plays.
    static func renderPlayers(_ request: RenderRequest, presetName: String, measureOnly: Bool, capture: RenderCapture?,
                              progress: ((RenderProgress) -> Void)?) throws(RenderError) -> RenderSummary {
        guard request.speed == 1 && request.pitchSemitones == 0 else {
            throw .request(request.speed != 1 ? .speed : .pitchSemitones, "speed and pitch change input files; a player's speed is its \"rate\" in the preset")
        }
        let specs = request.preset.playerSpecs
        if let forever = specs.first(where: { $0.spec.loops < 0 }), request.end == nil {
            throw .request(.end, "\(forever.path) loops forever: give an end to say how long to render")
        }
        let first = specs[0]
        let rate: Double
        if let r = request.sampleRate { rate = Double(r) } else {
            do { rate = try SoundFileReader(path: PlayerFeeder.resolve(first.spec.file, directory: request.presetDirectory)).sampleRate }
            catch { throw .preset(file: presetName, PresetError(path: first.path + ".file", "\(error)")) }
        }
        return try render(request, presetName: presetName, measureOnly: measureOnly, capture: capture, progress: progress,
                          readers: [], timeline: nil, source: nil, outputRate: rate)
    }

    /// Writes audio rendered already and held in memory as `request`'s output: the file, tags,
    /// encoding, analysis and summary that ``render(_:presetName:measureOnly:capture:progress:)``
    /// gives, without reading the inputs again or running the preset. `--normalize` writes so:
    /// its gain times the first pass's ``RenderCapture``, or the trial (gain and limiter) that
    /// reached the target.
    ///
    /// `samples`: planar channels of `frameCount` frames at `sampleRate` (the render's output
    /// rate), each read times `gain`. `first`: the summary of the render that produced them
    /// (a measuring pass of the same request): its input channels, its warnings about the
    /// inputs and its nodes' gain reduction carry over.
    public static func write(_ samples: [UnsafePointer<Float>], frameCount: Int, sampleRate: Double, gain: Float = 1,
                             request: RenderRequest, presetName: String = "preset", renderedBy first: RenderSummary,
                             progress: ((RenderProgress) -> Void)? = nil) throws(RenderError) -> RenderSummary {
        precondition(!samples.isEmpty && frameCount >= 0)
        return try write(from: MemoryFrameSource(samples, frameCount: frameCount, gain: gain), sampleRate: sampleRate, request: request,
                         presetName: presetName, renderedBy: first, progress: progress)
    }

    /// ``write(_:frameCount:sampleRate:gain:request:presetName:renderedBy:progress:)`` of the
    /// frames `source` delivers (the output's, at `sampleRate`).
    /// `measured`: a loudness meter that has measured exactly these frames (taken over).
    package static func write(from source: TimelineSource, sampleRate: Double, request: RenderRequest, presetName: String = "preset",
                              renderedBy first: RenderSummary, measured: consuming LoudnessMeter? = nil,
                              progress: ((RenderProgress) -> Void)? = nil) throws(RenderError) -> RenderSummary {
        var r = request
        r.preset = .none; r.combination = nil
        // The capture holds the outputs the first pass wrote, named as it named them.
        r.outputs = nil; r.capturedOutputNames = first.channelNames
        // The inputs' headers only: their tags, encoding and time reference.
        var readers: [SoundFileReader] = []
        for path in request.inputPaths.prefix(1) where path != "-" {
            do { readers.append(try SoundFileReader(path: path, raw: request.rawInput)) } catch { throw .file(error) }
        }
        var summary = try render(r, presetName: presetName, measureOnly: false, capture: nil, progress: progress,
                                 readers: readers, timeline: source, source: source, outputRate: sampleRate, headersOnly: true, measured: measured)
        summary.inputChannels = first.inputChannels
        summary.warnings = first.warnings + summary.warnings
        summary.maximumGainReductionDB = first.maximumGainReductionDB
        return summary
    }

    /// `headersOnly`: the readers were opened for their headers (tags, encoding), not read.
    /// `measured`: the output's loudness, measured already (see ``LoudnessAnalyzer``).
    static func render(_ request: RenderRequest, presetName: String, measureOnly: Bool, capture: RenderCapture?, progress: ((RenderProgress) -> Void)?,
                       readers: [SoundFileReader], timeline inputTimeline: TimelineSource?, source inputSource: FrameSource?,
                       outputRate: Double, headersOnly: Bool = false, measured: consuming LoudnessMeter? = nil) throws(RenderError) -> RenderSummary {
        let reader = readers.first
        let inputEncoding = reader.flatMap { SampleEncoding(libsndfileFormat: $0.formatCode) }
        var preset = request.preset
        if request.combination == .mix {
            do { preset = try Preset.mixing(request.inputPaths, channelCounts: readers.map(\.channelCount), through: preset) }
            catch { throw .preset(file: presetName, error) }
        }
        let (format, encoding) = try resolveFormat(request, inputEncoding: inputEncoding)
        let encodingSource = request.encoding != nil ? "given" : encoding == inputEncoding ? "input" : "default"
        let plan: RenderPlan
        let registry = NodeStateRegistry(services: .files(in: request.presetDirectory, plugins: request.pluginLoader))
        do {
            plan = try RenderPlan(preset: preset, format: RenderFormat(
                sampleRate: outputRate, inputChannelCount: inputSource?.channelCount ?? inputTimeline?.channelCount ?? 1, maxBlockFrames: request.blockFrames), registry: registry)
        } catch { throw .preset(file: presetName, error) }
        // The outputs written: all, or the ones `outputs` names (`selected[k]`: the plan's output).
        let planNames = request.capturedOutputNames ?? plan.outputChannelNames
        let selected = try Self.selectOutputs(request.outputs, names: planNames, count: plan.outputChannelCount)
        let writtenCount = selected.count, allOutputs = selected == Array(0..<plan.outputChannelCount)
        let writtenNames = planNames.map { names in selected.map { names[$0] } }
        let feeders = plan.playerStates.compactMap { $0.state.feeder as? PlayerFeeder }
        var timeline: TimelineSource
        var source: FrameSource
        // Output frames rendered and dropped before the first one written: a players-only render's
        // `--start` (the players must play through it, so it is rendered, not skipped).
        var leadIn = 0
        if let inputTimeline, let inputSource { timeline = inputTimeline; source = inputSource } else {
            let players = PlayersTimeline(feeders)
            timeline = players
            if let (first, last) = try request.trimFrames(rate: outputRate, total: 0) {
                leadIn = Int(first)
                if let last { do { timeline = try TrimStage(upstream: players, start: 0, end: last, maximumFrames: request.ioFrames) } catch { throw .file(error) } }
            }
            source = timeline
        }
        var tags = request.keepTags ? reader?.tags ?? AudioTags() : AudioTags()
        // BWF's time reference names the first sample: a trim moves it, a rate change rescales it.
        if var b = tags.broadcast, let reader, !request.tagEdits.contains(where: { $0.key.lowercased() == "time-reference" }) {
            let first = request.start?.frame(at: reader.sampleRate) ?? 0
            b.timeReference = UInt64((Double(b.timeReference + UInt64(max(0, first))) * outputRate / reader.sampleRate).rounded())
            tags.broadcast = b
        }
        for (key, value) in request.tagEdits {
            do { try tags.set(key, to: value) } catch { throw .request(.tagEdits, error.description) }
        }
        var encoder = request.encoderSettings
        if let kbps = request.bitrateKbps {
            guard let range = EncoderSettings.bitrateRange(for: encoding, sampleRate: Int(outputRate), channelCount: writtenCount) else {
                throw .request(.bitrate, "\(encoding.rawValue) has no bitrate setting in libsndfile (use a quality 0…10)")
            }
            guard range.contains(kbps) else {
                throw .request(.bitrate, "bitrate \(kbps) kb/s is out of range for \(encoding.rawValue) at \(Int(outputRate)) Hz, \(writtenCount) channels (allowed \(Int(range.lowerBound))…\(Int(range.upperBound)) kb/s)")
            }
            encoder = EncoderSettings(constantBitrate: kbps, in: range)
        } else if encoder.compressionLevel != nil && ![.mp3, .opus, .vorbis].contains(encoding) {
            throw .request(.encoderSettings, "\(encoding.rawValue) has no quality setting (MP3, Opus and Vorbis have)")
        }
        // The input's channel layout carries to an output of as many channels; a layout is
        // declared in the output when the input declared one or there are more than two channels.
        let sameChannels = request.combination != .mix && request.channelCount == nil && reader?.channelCount == plan.outputChannelCount
        // Discrete outputs (a crossover's bands) have no positions: none is declared, and a
        // WAVE_FORMAT_EXTENSIBLE mask says so. Positional outputs keep the positions of the ones written.
        let discrete = planNames != nil
        let planLayout = sameChannels ? reader!.channelLayout : .standard(channelCount: plan.outputChannelCount)
        let outputLayout = discrete ? ChannelLayout(Array(repeating: .unknown, count: writtenCount))
            : allOutputs ? planLayout : ChannelLayout(selected.map { planLayout.positions[$0] })
        let declaredLayout = discrete || (sameChannels && reader?.declaredLayout != nil) || writtenCount > 2 ? outputLayout : nil
        var writer: SoundFileWriter?
        var warnings: [String] = []
        if let notice = preset.bandsLeftOutNotice(sampleRate: outputRate) { warnings.append("\(presetName): \(notice)") }
        if !measureOnly {
            do {
                writer = try SoundFileWriter(path: request.outputPath, format: format, encoding: encoding,
                                             sampleRate: Int(outputRate), channelCount: writtenCount,
                                             dither: request.dither, shape: request.ditherShape, wordLength: request.wordLength,
                                             layout: declaredLayout, tags: tags, encoder: encoder)
            } catch { throw .file(error) }
            writer?.ditherOnlyOffGrid = request.ditherOnlyOffGrid
            // FLAC fixes the order of up to 8 channels itself (WAV's); other containers say nothing.
            // Discrete outputs in a container whose channel count fixes a speaker order (FLAC, and
            // Vorbis and Opus in Ogg): players take them for speakers (quad, 5.1). WAV and RF64
            // say there is no order (mask 0); AIFF, CAF, W64 and AU say nothing.
            if discrete, writtenCount > 2, [.flac, .ogg, .opus].contains(format) {
                warnings.append("\(format.rawValue) fixes a speaker order for \(writtenCount) channels: players will take these discrete outputs (\(writtenNames?.joined(separator: ", ") ?? "")) for speakers (WAV or RF64 mark them as discrete)")
            }
            if let declaredLayout, declaredLayout.channelCount > 2, !discrete, writer?.writtenLayout == nil, format != .flac {
                warnings.append("\(format.rawValue) cannot declare the channel layout \(declaredLayout): players will assume an order")
            }
            writer?.reserve(frames: source.expectedFrames)
        }
        let analyzer: LoudnessAnalyzer?
        if let meter = measured.take() {
            analyzer = LoudnessAnalyzer(sampleRate: outputRate, channelCount: writtenCount, measured: meter)
        } else {
            analyzer = request.meter || measureOnly ? LoudnessAnalyzer(sampleRate: outputRate, channelCount: writtenCount, layout: outputLayout) : nil
        }

        let previousMXCSR = DenormalGuard.enable()
        defer { DenormalGuard.restore(previousMXCSR) }
        // Frames per read and write (the plan renders them in blocks of `request.blockFrames`).
        let block = request.ioFrames
        // (`source` may convert the timeline's channels: `--channels`.)
        // (`outCount`: the outputs written; the plan renders `planCount`.)
        let inCount = source.channelCount, planCount = plan.outputChannelCount, outCount = writtenCount
        let inStorage = UnsafeMutablePointer<Float>.allocate(capacity: inCount * block)
        let outStorage = UnsafeMutablePointer<Float>.allocate(capacity: planCount * block)
        let inPtrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: inCount)
        let inConst = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: inCount)
        let outPtrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: planCount)
        defer {
            inStorage.deallocate(); outStorage.deallocate(); inPtrs.deallocate(); inConst.deallocate(); outPtrs.deallocate()
        }
        for c in 0..<inCount { inPtrs[c] = inStorage + c * block; inConst[c] = UnsafePointer(inPtrs[c]) }
        for c in 0..<planCount { outPtrs[c] = outStorage + c * block }

        let start = Date()
        var frames: Int64 = 0
        var peak: Float = 0
        // The summary's true peak: the loudness analyser's when metering (not measured twice).
        let ownTruePeak = analyzer == nil ? KernelBox(TruePeakMeter(sampleRate: outputRate, channelCount: outCount)) : nil
        // The output's analysis is shared between the two cores: sample peak, loudness, levels
        // and the capture here, after each block; the true-peak meter (the costliest) on a
        // second thread with the encoding and writing (or alone, in a measuring render),
        // overlapping the processing of the next blocks. Writing audio already in memory
        // (`headersOnly`: no decoding, no preset, little to do here) it runs here instead, beside
        // the encoding.
        let truePeakMeter = { (view: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int) in
            if let ownTruePeak { ownTruePeak.withKernel { $0.process(view, frameCount: count) } } else { analyzer?.truePeak.process(view, frameCount: count) }
        }
        let truePeakHere = headersOnly && writer != nil
        let analyseHere = { (view: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int) in
            for c in 0..<outCount { peak = max(peak, LevelMeter.largestMagnitude(view[c], count: count)) }
            analyzer?.processLoudnessAndLevels(view, frameCount: count)
            if truePeakHere { truePeakMeter(view, count) }
            capture?.append(view, channelCount: outCount, frameCount: count)
        }
        let output = BackgroundFileWriter(writer: writer, channelCount: outCount, blockFrames: request.ioFrames) { view, count in
            if !truePeakHere { truePeakMeter(view, count) }
        }
        capture?.expectedFrames = Int(max(0, source.expectedFrames))
        // The plan's latency (its `pitch` nodes) is taken out: the first `latency` output frames
        // are dropped and as many silent frames fed after the input, so the output lines up
        // with the input and has its length.
        let latency = plan.latencyFrames
        var skip = latency + leadIn, flush = latency
        var inputFrames: Int64 = 0
        let outView = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: outCount)
        defer { outView.deallocate() }
        do throws(AudioFileError) {
            while true {
                for f in feeders { try f.fill() }
                var n = try source.read(into: inPtrs, maxFrames: block)
                inputFrames += Int64(n)
                if n == 0 {
                    if flush == 0 || inputFrames == 0 { break }
                    n = min(block, flush); flush -= n
                    for c in 0..<inCount { inPtrs[c].update(repeating: 0, count: n) }
                }
                if plan.render(input: inConst, output: outPtrs, frameCount: n) > 0 {
                    throw AudioFileError(path: request.inputPath, "processing produced non-finite samples in frames \(frames)…\(frames + Int64(n) - 1)")
                }
                let dropped = min(skip, n)
                skip -= dropped
                let kept = n - dropped
                if kept == 0 { continue }
                for c in 0..<outCount { outView[c] = outPtrs[selected[c]] + dropped }
                analyseHere(outView, kept)
                try output.write(outView, frameCount: kept)
                frames += Int64(kept)
                progress?(RenderProgress(framesDone: frames, framesTotal: source.expectedFrames, sampleRate: outputRate,
                                         elapsedSeconds: Date().timeIntervalSince(start)))
            }
            for r in readers where !headersOnly && r.missingFrames > 0 {
                let text = r.decodingStopped.map { "decoding stopped (\($0)) at frame \(r.position) of the \(r.frameCount) its header announced" }
                    ?? "the header announces \(r.promisedFrames ?? 0) frames but the file holds \(r.position)"
                let message = "\(text): \(r.missingFrames) frames (\(String(format: "%.3f", Double(r.missingFrames) / r.sampleRate)) s) missing; the file is truncated or damaged"
                if request.strict { throw AudioFileError(path: r.path, message) }
                warnings.append("\(r.path): \(message); rendered to its last whole frame")
            }
            if frames == 0 {
                throw AudioFileError(path: request.inputPaths.first ?? presetName,
                                     leadIn > 0 ? "the players end before the start \(request.start!)" : "contains no audio frames")
            }
            try output.commit()
            if let dropped = writer?.droppedTags, !dropped.isEmpty {
                warnings.append("\(request.outputPath): \(format.rawValue) cannot hold the tags \(dropped.joined(separator: ", ")); they are not in the output")
            }
        } catch {
            output.abort()
            throw .file(error)
        }
        var summary = RenderSummary(frames: frames, sampleRate: outputRate, inputChannels: timeline.channelCount, outputChannels: outCount,
                                    peak: peak, truePeak: max(peak, ownTruePeak?.withKernel { $0.peak } ?? analyzer?.truePeak.peak ?? 0), clippedSamples: writer?.clippedSamples ?? 0, encodingSource: encodingSource,
                                    loudness: analyzer?.report, elapsedSeconds: Date().timeIntervalSince(start), format: format, encoding: encoding)
        summary.warnings = warnings
        summary.tags = tags
        summary.channelLayout = outputLayout
        summary.channelNames = writtenNames
        summary.declaredLayout = writer?.writtenLayout
        summary.maximumGainReductionDB = Dictionary(plan.gainReductionStates.map { ($0.key, $0.state.maximumDB) }) { a, _ in a }
        return summary
    }
}
