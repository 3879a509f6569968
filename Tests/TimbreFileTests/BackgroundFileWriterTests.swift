import Foundation
import Testing
import TimbreTestSupport
import TimbreDSP
import TimbreFile

/// The writer thread of offline renders: same bytes as writing on the caller's thread, every
/// frame analysed once and in order, atomic output kept. (Also run under ThreadSanitizer by
/// `make tsan`.)
@Suite struct BackgroundFileWriterTests {
    /// Three channels of noise written in blocks of random sizes (1 … 4096 frames, across the
    /// 16,384-frame slots) through the thread, against the same blocks written directly: the
    /// files are byte-identical (16-bit with dither too: the dither runs in the same order),
    /// and the analysis saw every frame exactly once, in order (a running checksum).
    @Test(arguments: [SampleEncoding.float, .pcm16])
    func sameBytesAsDirectWrites(encoding: SampleEncoding) throws {
        let dir = SoundFileTests.tempDir()
        var rng = SeededRandom(seed: 21)
        let frames = 100_000
        let channels = PlanarBuffer(channels: (0..<3).map { _ in (0..<frames).map { _ in Float.random(in: -0.9...0.9, using: &rng) } })
        var sizes: [Int] = [], total = 0
        while total < frames { let n = min(Int.random(in: 1...4096, using: &rng), frames - total); sizes.append(n); total += n }

        func writeAll(_ write: (UnsafePointer<UnsafeMutablePointer<Float>>, Int) throws -> Void) throws {
            var at = 0
            for n in sizes {
                try channels.withChannelPointers(from: at) { try write($0, n) }
                at += n
            }
        }
        let direct = try SoundFileWriter(path: dir + "/direct.wav", format: .wav, encoding: encoding, sampleRate: 48000, channelCount: 3, dither: true)
        try writeAll { try direct.write($0, frameCount: $1) }
        try direct.commit()

        nonisolated(unsafe) var seen = 0
        nonisolated(unsafe) var checksum = 0.0
        let threaded = BackgroundFileWriter(
            writer: try SoundFileWriter(path: dir + "/threaded.wav", format: .wav, encoding: encoding, sampleRate: 48000, channelCount: 3, dither: true),
            blockFrames: 4096) { view, n in
                for i in 0..<n { checksum += Double(view[0][i]) * Double(seen + i + 1) + Double(view[2][i]) }
                seen += n
            }
        try writeAll { try threaded.write($0, frameCount: $1) }
        try threaded.commit()

        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/direct.wav"))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/threaded.wav"))
        #expect(a == b, "\(encoding): files differ (\(a.count) vs \(b.count) bytes)")
        var expected = 0.0
        for i in 0..<frames { expected += Double(channels[0][i]) * Double(i + 1) + Double(channels[2][i]) }
        #expect(seen == frames)
        #expect(checksum == expected, "analysis saw the frames in another order or twice")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["direct.wav", "threaded.wav"], "no temporary file left")
    }

    /// Abort with blocks still queued: the thread stops, the temporary file is deleted and an
    /// existing target is untouched.
    @Test func abortLeavesTheTargetAlone() throws {
        let dir = SoundFileTests.tempDir()
        let target = dir + "/out.wav"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        let writer = try SoundFileWriter(path: target, format: .wav, encoding: .float, sampleRate: 48000, channelCount: 1, dither: false)
        let threaded = BackgroundFileWriter(writer: writer, blockFrames: 512)
        let buffer = PlanarBuffer(channels: [[Float](repeating: 0.25, count: 512)])
        for _ in 0..<200 { try buffer.withChannelPointers { try threaded.write($0, frameCount: 512) } }
        threaded.abort()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.wav"])
    }
}
