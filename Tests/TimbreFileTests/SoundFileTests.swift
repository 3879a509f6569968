import CSndFile
import Foundation
import Testing
import TimbreTestSupport
import TimbreEngine
import TimbreFile

/// Real libsndfile I/O: formats, clipping, dither, atomic output.
@Suite(.serialized) struct SoundFileTests {
    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-file-tests-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static func write(_ path: String, _ channels: [[Float]], format: SoundFileFormat, encoding: SampleEncoding, rate: Int = 48000, dither: Bool = false) throws {
        let w = try SoundFileWriter(path: path, format: format, encoding: encoding, sampleRate: rate, channelCount: channels.count, dither: dither)
        try w.write(PlanarBuffer(channels: channels))
        try w.commit()
    }

    static func read(_ path: String) throws -> (channels: [[Float]], rate: Double) {
        let r = try SoundFileReader(path: path)
        return (try r.readAll(), r.sampleRate)
    }

    static func sine(_ n: Int, hz: Double = 440, amplitude: Double = 0.5, rate: Double = 48000) -> [Float] { Signals.sine(n, hz: hz, amplitude: amplitude, rate: rate) }

    struct FormatCase: Sendable, CustomStringConvertible {
        var format: SoundFileFormat, encoding: SampleEncoding, lossless: Bool, tolerance: Float
        var description: String { "\(format.rawValue)/\(encoding.rawValue)" }
    }

    static let formats: [FormatCase] = [
        .init(format: .wav, encoding: .pcm16, lossless: true, tolerance: 1.0 / 32768),
        .init(format: .wav, encoding: .pcm24, lossless: true, tolerance: 1.0 / 8_388_608),
        .init(format: .wav, encoding: .float, lossless: true, tolerance: 0),
        .init(format: .aiff, encoding: .pcm24, lossless: true, tolerance: 1.0 / 8_388_608),
        .init(format: .flac, encoding: .pcm24, lossless: true, tolerance: 1.0 / 8_388_608),
        .init(format: .caf, encoding: .double, lossless: true, tolerance: 0),
        .init(format: .w64, encoding: .pcm32, lossless: true, tolerance: 1e-7),
        .init(format: .rf64, encoding: .float, lossless: true, tolerance: 0),
        .init(format: .ogg, encoding: .vorbis, lossless: false, tolerance: 0),
        .init(format: .opus, encoding: .opus, lossless: false, tolerance: 0),
        .init(format: .mp3, encoding: .mp3, lossless: false, tolerance: 0),
    ]

    /// Every container/encoding round-trips through libsndfile: lossless ones within one LSB,
    /// lossy ones with the same channels and a strongly correlated signal.
    @Test(arguments: formats)
    func roundTrip(_ c: FormatCase) throws {
        let dir = Self.tempDir()
        let path = dir + "/t.\(c.format.rawValue)"
        let input = [Self.sine(48000), Self.sine(48000, hz: 1000, amplitude: 0.3)]
        try Self.write(path, input, format: c.format, encoding: c.encoding)
        let (out, rate) = try Self.read(path)
        #expect(rate == 48000 && out.count == 2)
        if c.lossless {
            #expect(out[0].count == 48000)
            for ch in 0..<2 {
                let worst = zip(out[ch], input[ch]).map { abs($0 - $1) }.max()!
                #expect(worst <= c.tolerance * 1.01, "\(c) channel \(ch): \(worst)")
            }
        } else {
            #expect(abs(out[0].count - 48000) < 5000, "\(c): \(out[0].count) frames")
            let rms = (out[0].reduce(0) { $0 + Double($1 * $1) } / Double(out[0].count)).squareRoot()
            #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.05, "\(c): rms \(rms)")
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Files written by another program (sox) are read correctly.
    @Test(arguments: ["wav", "flac", "aiff", "ogg"])
    func readsFilesWrittenBySox(ext: String) throws {
        let dir = Self.tempDir()
        let path = dir + "/sox.\(ext)"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", path, "synth", "1", "sine", "440", "vol", "0.5"]
        if ext == "ogg" { p.arguments!.removeAll { $0 == "-b" || $0 == "16" } }
        try p.run(); p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let (out, rate) = try Self.read(path)
        #expect(rate == 44100 && out.count == 2)
        #expect(abs(out[0].count - 44100) <= (ext == "ogg" ? 2000 : 0))
        let peak = out[0].map { abs($0) }.max()!
        #expect(abs(peak - 0.5) < 0.02, "peak \(peak)")
    }

    /// Out-of-range floats are clipped, not wrapped (integer) and not dropped (FLAC).
    @Test(arguments: [(SoundFileFormat.wav, SampleEncoding.pcm16), (.wav, .pcm24), (.flac, .pcm16)])
    func clipsInsteadOfWrapping(format: SoundFileFormat, encoding: SampleEncoding) throws {
        let dir = Self.tempDir()
        let path = dir + "/clip.\(format.rawValue)"
        let input: [Float] = [0, 1.5, 3, -1.5, -4, 0.5]
        try Self.write(path, [input], format: format, encoding: encoding)
        let (out, _) = try Self.read(path)
        #expect(out[0].count == input.count)
        #expect(out[0][1] > 0.999 && out[0][2] > 0.999, "positive overs clip to full scale: \(out[0])")
        #expect(out[0][3] <= -0.999 && out[0][4] <= -0.999, "negative overs clip to full scale: \(out[0])")
        #expect(abs(out[0][5] - 0.5) < 1e-4)
    }

    /// TPDF dither at 16 bits: silence becomes ±1 LSB noise with zero mean; triangular noise
    /// on (−1, 1) LSB rounds to 0 with probability 3/4 and to ±1 with 1/8 each. Without dither
    /// silence stays exactly silent.
    @Test func tpdfDitherOnSixteenBits() throws {
        let dir = Self.tempDir()
        let silence = [Float](repeating: 0, count: 100_000)
        try Self.write(dir + "/d.wav", [silence], format: .wav, encoding: .pcm16, dither: true)
        try Self.write(dir + "/n.wav", [silence], format: .wav, encoding: .pcm16, dither: false)
        let d = try Self.read(dir + "/d.wav").channels[0].map { Int(($0 * 32768).rounded()) }
        let n = try Self.read(dir + "/n.wav").channels[0]
        #expect(n.allSatisfy { $0 == 0 })
        #expect(d.allSatisfy { abs($0) <= 1 })
        let zeros = Double(d.filter { $0 == 0 }.count) / Double(d.count)
        let mean = Double(d.reduce(0, +)) / Double(d.count)
        #expect(abs(zeros - 0.75) < 0.01, "P(0) = \(zeros)")
        #expect(abs(Double(d.filter { $0 == 1 }.count) / Double(d.count) - 0.125) < 0.01)
        #expect(abs(mean) < 0.01)
    }

    /// Atomic output: nothing until commit; abort removes the temporary file and leaves an
    /// existing target untouched.
    @Test func atomicWrites() throws {
        let dir = Self.tempDir()
        let target = dir + "/out.wav"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        let w = try SoundFileWriter(path: target, format: .wav, encoding: .pcm16, sampleRate: 48000, channelCount: 1, dither: false)
        try w.write(PlanarBuffer(channels: [Self.sine(1000)]))
        #expect(FileManager.default.fileExists(atPath: w.temporaryPath))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        w.abort()
        #expect(!FileManager.default.fileExists(atPath: w.temporaryPath))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.wav"])
    }

    /// Blocks reserved for the expected audio (``SoundFileWriter/reserve(frames:)``): the file
    /// holds them while it is written; a file that ends shorter than reserved keeps none past
    /// its end once committed (disk usage within one 4 KiB block of its size), and its bytes
    /// are those of a file written without a reservation.
    @Test func reservedBlocksPastTheEndGoBack() throws {
        let dir = Self.tempDir()
        func write(_ name: String, reserving frames: Int64?) throws -> (usage: Int, size: Int, usageBeforeCommit: Int) {
            let w = try SoundFileWriter(path: dir + "/" + name, format: .wav, encoding: .pcm24, sampleRate: 48000, channelCount: 2, dither: false)
            if let frames { w.reserve(frames: frames) }
            try w.write(PlanarBuffer(channels: [Self.sine(48000), Self.sine(48000)]))
            var st = stat()
            _ = stat(w.temporaryPath, &st)
            let before = Int(st.st_blocks) * 512
            try w.commit()
            _ = stat(dir + "/" + name, &st)
            return (Int(st.st_blocks) * 512, Int(st.st_size), before)
        }
        let plain = try write("plain.wav", reserving: nil)
        // Ten times the frames written: 2.88 MB reserved, 288 kB used.
        let reserved = try write("reserved.wav", reserving: 480_000)
        print("reservation: \(reserved.usageBeforeCommit) bytes on disk while written, \(reserved.usage) after (size \(reserved.size)); without: \(plain.usage)")
        #expect(reserved.usageBeforeCommit >= 2_880_000, "the blocks were reserved")
        #expect(reserved.usage <= reserved.size + 4096 && reserved.usage <= plain.usage + 4096)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/reserved.wav")) == Data(contentsOf: URL(fileURLWithPath: dir + "/plain.wav")))
    }

    /// The offline renderer keeps rate and channel count (mono → stereo through pan), and a
    /// preset error leaves no output and an existing output untouched.
    @Test func offlineRender() throws {
        let dir = Self.tempDir()
        try Self.write(dir + "/in.flac", [Self.sine(44100, rate: 44100)], format: .flac, encoding: .pcm16, rate: 44100)
        let preset = try PresetDecoder.decode(Data(#"{"version":1,"name":"p","chain":[{"type":"peak","frequency":440,"gain":6,"q":1},{"type":"pan"}]}"#.utf8))
        let summary = try OfflineRenderer.render(RenderRequest(inputPath: dir + "/in.flac", outputPath: dir + "/out.wav", preset: preset, encoding: .float))
        #expect(summary.frames == 44100 && summary.outputChannels == 2 && summary.sampleRate == 44100)
        let (out, rate) = try Self.read(dir + "/out.wav")
        #expect(rate == 44100 && out.count == 2)
        // 440 Hz sine at 0.5 → +6 dB bell → −3 dB pan law each side: 0.5 · 2 · 0.7071.
        let peak = out[0][22050...].map { abs($0) }.max()!
        #expect(abs(Double(peak) - 0.5 * 1.99526 * 0.70711) < 0.002, "peak \(peak)")

        try Data("keep me".utf8).write(to: URL(fileURLWithPath: dir + "/keep.wav"))
        // A 16 kHz high-pass is above 0.49 × 32 kHz: a preset error, after the input was opened.
        try Self.write(dir + "/in32.wav", [Self.sine(3200, rate: 32000)], format: .wav, encoding: .pcm16, rate: 32000)
        let high = try PresetDecoder.decode(Data(#"{"version":1,"name":"h","chain":[{"type":"highpass","frequency":16000}]}"#.utf8))
        #expect(throws: RenderError.self) {
            try OfflineRenderer.render(RenderRequest(inputPath: dir + "/in32.wav", outputPath: dir + "/keep.wav", preset: high))
        }
        #expect(try String(contentsOfFile: dir + "/keep.wav", encoding: .utf8) == "keep me")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["in.flac", "in32.wav", "out.wav", "keep.wav"])
    }

    /// A measuring render with a capture keeps exactly what it rendered (what `--normalize`'s
    /// trials run over): the same samples a written float render holds, every frame; past its
    /// budget it keeps nothing and says so.
    @Test func renderCaptureKeepsTheOutput() throws {
        let dir = Self.tempDir()
        try Self.write(dir + "/in.wav", [Self.sine(48000, rate: 48000)], format: .wav, encoding: .float, rate: 48000)
        let preset = try PresetDecoder.decode(Data(#"{"version":1,"name":"p","chain":[{"type":"peak","frequency":440,"gain":6,"q":1},{"type":"pan"}]}"#.utf8))
        let request = RenderRequest(inputPath: dir + "/in.wav", outputPath: dir + "/out.wav", preset: preset, blockFrames: 333, encoding: .float)
        let capture = RenderCapture()
        let measured = try OfflineRenderer.render(request, measureOnly: true, capture: capture)
        _ = try OfflineRenderer.render(request)
        let (written, _) = try Self.read(dir + "/out.wav")
        #expect(!capture.overflowed && capture.frameCount == 48000 && measured.frames == 48000 && capture.channels.count == 2)
        #expect(capture.channels == written, "the capture holds the rendered samples bit for bit")
        let small = RenderCapture(byteBudget: 100_000)
        _ = try OfflineRenderer.render(request, measureOnly: true, capture: small)
        #expect(small.overflowed && small.channels.isEmpty && small.frameCount == 0)
    }

    /// Writing audio held in memory (`--normalize`'s written pass) gives the file a render
    /// gives: the capture of a measuring render times a gain, written through
    /// `OfflineRenderer.write`, equals the render of the preset with that gain node appended,
    /// bit for bit at 16 bits with TPDF dither (its noise is the same wherever the blocks fall:
    /// the reference writes blocks of 5000 frames, the memory 4096), with the input's tags and
    /// the first pass's input channel count.
    @Test func writingTheCaptureIsTheRender() throws {
        let dir = Self.tempDir()
        try Self.write(dir + "/in.wav", [Self.sine(30011, rate: 48000)], format: .wav, encoding: .pcm24, rate: 48000)
        let preset = try PresetDecoder.decode(Data(#"{"version":1,"name":"p","chain":[{"type":"peak","frequency":440,"gain":6,"q":1},{"type":"pan"}]}"#.utf8))
        var request = RenderRequest(inputPath: dir + "/in.wav", outputPath: dir + "/memory.wav", preset: preset, blockFrames: 333, encoding: .pcm16, meter: true)
        request.tagEdits = [("title", "Kept")]
        let capture = RenderCapture()
        let first = try OfflineRenderer.render(request, measureOnly: true, capture: capture)
        let gain = Float(pow(10, -4.5 / 20))
        let written = try OfflineRenderer.write((0..<capture.channelCount).map { capture.channel($0) }, frameCount: capture.frameCount,
                                                sampleRate: first.sampleRate, gain: gain, request: request, renderedBy: first)
        var rendered = request
        rendered.outputPath = dir + "/rendered.wav"; rendered.blockFrames = 5000
        rendered.preset = try PresetDecoder.decode(Data(#"{"version":1,"name":"p","chain":[{"type":"peak","frequency":440,"gain":6,"q":1},{"type":"pan"},{"type":"gain","gain":-4.5}]}"#.utf8))
        let reference = try OfflineRenderer.render(rendered)
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/memory.wav")), b = try Data(contentsOf: URL(fileURLWithPath: dir + "/rendered.wav"))
        #expect(a == b, "the written file is the render, byte for byte")
        #expect(written.frames == reference.frames && written.inputChannels == 1 && written.outputChannels == 2)
        #expect(written.loudness?.integratedLUFS == reference.loudness?.integratedLUFS && written.truePeak == reference.truePeak)
        #expect(written.tags.fields.contains { $0.value == "Kept" })
    }

    @Test func formatFromExtension() throws {
        #expect(SoundFileFormat(extension: "WAV") == .wav && SoundFileFormat(extension: "aif") == .aiff && SoundFileFormat(extension: "xyz") == nil)
        let p = Preset(name: "x", form: .chain([]))
        #expect(throws: RenderError.self) { try OfflineRenderer.resolveFormat(RenderRequest(inputPath: "a", outputPath: "b.xyz", preset: p)) }
        #expect(throws: RenderError.self) { try OfflineRenderer.resolveFormat(RenderRequest(inputPath: "a", outputPath: "b.flac", preset: p, encoding: .float)) }
        let (f, e) = try OfflineRenderer.resolveFormat(RenderRequest(inputPath: "a", outputPath: "b.flac", preset: p))
        #expect(f == .flac && e == .pcm24)
    }
}

extension SoundFileTests {
    /// Integer output rounds to the nearest step (libsndfile alone floors here).
    @Test func integerOutputRoundsToNearest() throws {
        let dir = Self.tempDir()
        let lsb: [Float] = [-0.9, -0.6, -0.4, -0.1, 0, 0.1, 0.4, 0.6, 0.9]
        try Self.write(dir + "/r.wav", [lsb.map { $0 / 32768 }], format: .wav, encoding: .pcm16)
        let back = try Self.read(dir + "/r.wav").channels[0].map { Int(($0 * 32768).rounded()) }
        #expect(back == [-1, -1, 0, 0, 0, 0, 0, 1, 1])
    }
}
