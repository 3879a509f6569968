import Foundation
import Testing
import TimbreTestSupport

/// `timbre render` with several inputs (`--concat`, `--mix`), trims (`--start`/`--end`) and no
/// preset, as a user runs it. Samples are read back through sox (not libsndfile) and compared
/// with what the frames must be, computed here from the inputs as sox reads them (sox holds
/// samples as 32-bit integers, so it rounds float samples below 2⁻³¹ — the same for both sides).
@Suite(.serialized) struct MultiInputCLITests {
    /// Planar channels of a file (read through sox).
    static func read(_ path: String, channels: Int) throws -> [[Float]] {
        let x = try RenderCLITests.readFloats(path)
        return (0..<channels).map { c in stride(from: c, to: x.count, by: channels).map { x[$0] } }
    }

    static func noise(_ n: Int, seed: UInt64) -> [Float] { Signals.noise(n, amplitude: 0.25, seed: seed) }

    /// Writes `channels` as a float WAV and returns them as sox reads them back.
    static func write(_ path: String, _ channels: [[Float]], rate: Int = 48000) throws -> [[Float]] {
        try OutputEncodingTests.writeFloatWAV(path, channels, rate: rate)
        return try read(path, channels: channels.count)
    }

    /// Same rate and channels: the output is A's frames then B's, bit for bit (float in, float out, no preset).
    @Test func concatIsSampleExact() throws {
        let d = try CLI.tempDir()
        let a = try Self.write(d + "/a.wav", [Self.noise(30_001, seed: 1), Self.noise(30_001, seed: 2)])
        let b = try Self.write(d + "/b.wav", [Self.noise(17_000, seed: 3), Self.noise(17_000, seed: 4)])
        let r = try CLI.run(["render", d + "/a.wav", d + "/b.wav", "-o", d + "/ab.wav", "--concat", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try Self.read(d + "/ab.wav", channels: 2)
        #expect(out[0] == a[0] + b[0] && out[1] == a[1] + b[1], "frames \(out[0].count), expected \(a[0].count + b[0].count)")
    }

    /// A mono 44.1 kHz file, then a stereo 48 kHz one: the first on both channels unchanged,
    /// the second converted to 44.1 kHz exactly as `render -r 44100` converts it alone
    /// (identical samples), ⌈N·147/160⌉ frames.
    @Test func concatConvertsRatesAndUpmixes() throws {
        let d = try CLI.tempDir()
        let a = try Self.write(d + "/a.wav", [Self.noise(22_050, seed: 5)], rate: 44_100)[0]
        let b = [Signals.sine(48_000, hz: 440, amplitude: 0.4, rate: 48_000), Signals.sine(48_000, hz: 660, amplitude: 0.4, rate: 48_000)]
        try OutputEncodingTests.writeFloatWAV(d + "/b.wav", b, rate: 48_000)
        let r = try CLI.run(["render", d + "/a.wav", d + "/b.wav", "-o", d + "/ab.wav", "--concat", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let alone = try CLI.run(["render", d + "/b.wav", "-o", d + "/b44.wav", "-r", "44100", "--quiet"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let out = try Self.read(d + "/ab.wav", channels: 2), converted = try Self.read(d + "/b44.wav", channels: 2)
        #expect(converted[0].count == (48_000 * 147 + 159) / 160)
        #expect(out[0].count == a.count + converted[0].count)
        #expect(Array(out[0].prefix(a.count)) == a && Array(out[1].prefix(a.count)) == a, "the mono file on both channels")
        #expect(Array(out[0].dropFirst(a.count)) == converted[0] && Array(out[1].dropFirst(a.count)) == converted[1])
    }

    /// `--start`/`--end` in seconds or frames cut exactly those frames (no preset: unchanged).
    @Test(arguments: [("0.25", "frames:30000", 12_000, 30_000), ("frames:7", "0.5", 7, 24_000), ("frames:0", nil, 0, 48_000), ("0.9", nil, 43_200, 48_000)])
    func trimIsSampleExact(start: String, end: String?, first: Int, last: Int) throws {
        let d = try CLI.tempDir()
        let x = try Self.write(d + "/x.wav", [Self.noise(48_000, seed: 6), Self.noise(48_000, seed: 7)])
        let r = try CLI.run(["render", d + "/x.wav", "-o", d + "/t.wav", "--start", start, "--quiet"] + (end.map { ["--end", $0] } ?? []))
        #expect(r.status == 0, "\(r.stderr)")
        let out = try Self.read(d + "/t.wav", channels: 2)
        #expect(out[0] == Array(x[0][first..<last]) && out[1] == Array(x[1][first..<last]), "got \(out[0].count) frames, expected \(last - first)")
    }

    /// Trimming a concatenation cuts the joined timeline: frames 10,000 ..< 40,000 of A+B.
    @Test func trimAcrossAConcatenation() throws {
        let d = try CLI.tempDir()
        let a = try Self.write(d + "/a.wav", [Self.noise(25_000, seed: 8)])[0], b = try Self.write(d + "/b.wav", [Self.noise(25_000, seed: 9)])[0]
        let r = try CLI.run(["render", d + "/a.wav", d + "/b.wav", "-o", d + "/t.wav", "--concat", "--start", "frames:10000", "--end", "frames:40000", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.read(d + "/t.wav", channels: 1)[0] == Array((a + b)[10_000..<40_000]))
    }

    /// `--mix`: a stereo file and a mono file summed on the master bus: stereo at unity, the mono
    /// one centred at −3.01 dB (constant power, cos π/4) on both sides, through the preset's chain
    /// (here a −6.02 dB gain: ×0.5). The longer file sets the length; the shorter is silent after its end.
    @Test func mixSumsThroughTheChain() throws {
        let d = try CLI.tempDir()
        let s = [Self.noise(20_000, seed: 10), Self.noise(20_000, seed: 11)], m = Self.noise(30_000, seed: 12)
        try OutputEncodingTests.writeFloatWAV(d + "/s.wav", s)
        try OutputEncodingTests.writeFloatWAV(d + "/m.wav", [m])
        try Data(#"{"version": 1, "name": "half", "chain": [{"type": "gain", "volume": 0.5}]}"#.utf8).write(to: URL(fileURLWithPath: d + "/half.json"))
        let r = try CLI.run(["render", d + "/s.wav", d + "/m.wav", "-o", d + "/mix.wav", "--mix", "--preset", d + "/half.json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try Self.read(d + "/mix.wav", channels: 2)
        #expect(out[0].count == 30_000)
        let centre = Float(cos(Double.pi / 4))
        var worst: Float = 0
        for c in 0..<2 {
            for i in 0..<30_000 {
                let expected = 0.5 * ((i < 20_000 ? s[c][i] : 0) + centre * m[i])
                worst = max(worst, abs(out[c][i] - expected))
            }
        }
        print("render --mix: worst deviation from 0.5·(stereo + cos(π/4)·mono) \(worst)")
        #expect(worst < 1e-6)
    }

    /// No preset: a transcode keeps the samples (16-bit FLAC in → 16-bit FLAC out, identical).
    @Test func withoutAPresetTheAudioPassesUnchanged() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", d + "/in.flac", "synth", "1", "pinknoise", "vol", "0.3"])
        let r = try CLI.run(["render", d + "/in.flac", "-o", d + "/out.flac", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try RenderCLITests.readFloats(d + "/out.flac") == RenderCLITests.readFloats(d + "/in.flac"))
    }

    @Test func badCombinationsAreUsageErrors() throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/a.wav", [Self.noise(4800, seed: 13)])
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "4", d + "/quad.wav", "synth", "0.1", "sine", "440"])
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", d + "/stereo.wav", "synth", "0.1", "sine", "440"])
        let cases: [([String], String)] = [
            ([d + "/a.wav", d + "/a.wav"], "--concat (one after another) or --mix"),
            ([d + "/a.wav", d + "/a.wav", "--concat", "--mix"], "exclude each other"),
            ([d + "/a.wav", "--start", "1"], "at or past the end of the input (4800 frames"),
            ([d + "/a.wav", "--start=-1"], "is not a time"),
            ([d + "/a.wav", "--start", "0.05", "--end", "0.01"], "is not after"),
            ([d + "/stereo.wav", d + "/quad.wav", "--concat"], "has 2 channels and another file 4"),
            ([d + "/a.wav", d + "/quad.wav", "--mix"], "mono or stereo files"),
            ([d + "/a.wav", d + "/a.wav", "--mix", "--preset", "studio-graph"], "chain preset"),
        ]
        for (args, mention) in cases {
            let r = try CLI.run(["render"] + args + ["-o", d + "/out.wav"])
            #expect(r.status == 1, "\(args): exit \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(mention), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: d + "/out.wav"))
        }
        let missing = try CLI.run(["render", d + "/a.wav", d + "/missing.wav", "--concat", "-o", d + "/out.wav"])
        #expect(missing.status == 2 && missing.stderr.contains("missing.wav"), "\(missing.stderr)")
    }
}
