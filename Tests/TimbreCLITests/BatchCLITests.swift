import Foundation
import Testing
import TimbreTestSupport

/// `timbre render IN… --output-dir DIR [--jobs N]` as a user runs it: every file rendered
/// through the preset exactly as a single render would, a bad file reported while the rest
/// go on, exit codes, and the batch's own usage errors.
@Suite(.serialized) struct BatchCLITests {
    /// Three good files (mono, stereo, another rate) and a corrupt one, two jobs: the good
    /// outputs are byte-identical to single renders, the corrupt file is named on stderr, has
    /// no output and makes the exit code 2; the JSON summary counts them.
    @Test func rendersEveryFileAndReportsTheBadOne() throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/a.wav", [Signals.noise(30_000, amplitude: 0.3, seed: 1)], rate: 48000)
        try OutputEncodingTests.writeFloatWAV(d + "/b.wav", [Signals.noise(20_000, amplitude: 0.3, seed: 2), Signals.noise(20_000, amplitude: 0.3, seed: 3)], rate: 48000)
        try OutputEncodingTests.writeFloatWAV(d + "/c.wav", [Signals.noise(22_050, amplitude: 0.3, seed: 4)], rate: 44100)
        CLI.write(d + "/broken.wav", "RIFF\u{0}\u{0}\u{0}\u{0}WAVEjunk")
        let inputs = ["a", "b", "broken", "c"].map { d + "/\($0).wav" }
        let r = try CLI.run(["render"] + inputs + ["--output-dir", d + "/out", "--preset", "podcast-voice", "--jobs", "2", "--json"])
        #expect(r.status == 2, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("timbre: error: \(d)/broken.wav"), "\(r.stderr)")
        #expect(CLI.listing(d + "/out") == ["a.wav", "b.wav", "c.wav"])
        for name in ["a", "b", "c"] {
            let single = try CLI.run(["render", d + "/\(name).wav", "-o", d + "/single-\(name).wav", "--preset", "podcast-voice", "-q"])
            #expect(single.status == 0)
            let batch = try Data(contentsOf: URL(fileURLWithPath: d + "/out/\(name).wav"))
            #expect(batch == (try Data(contentsOf: URL(fileURLWithPath: d + "/single-\(name).wav"))), "\(name).wav differs from a single render")
        }
        #expect(r.stdout.contains(#""rendered":3"#) || r.stdout.contains(#""rendered" : 3"#), "\(r.stdout)")
        #expect(r.stdout.contains("broken.wav"))
    }

    /// `--format flac` renames the outputs; one job; everything fine → exit 0 and a summary line.
    @Test func formatChangesTheExtension() throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/x.wav", [Signals.noise(9_000, amplitude: 0.3, seed: 5)], rate: 48000)
        let r = try CLI.run(["render", d + "/x.wav", "--output-dir", d + "/o", "--format", "flac", "--jobs", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.listing(d + "/o") == ["x.flac"])
        #expect(r.stdout.contains("1 files: 1 rendered, 0 failed"), "\(r.stdout)")
    }

    /// Usage errors exit 1 before any file is written: -o with --output-dir, --jobs alone, two
    /// inputs with the same name, an output that would replace its input, a bad preset.
    @Test func usageErrors() throws {
        let d = try CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/other", withIntermediateDirectories: true)
        try OutputEncodingTests.writeFloatWAV(d + "/same.wav", [Signals.noise(1_000, amplitude: 0.3, seed: 6)], rate: 48000)
        try OutputEncodingTests.writeFloatWAV(d + "/other/same.wav", [Signals.noise(1_000, amplitude: 0.3, seed: 7)], rate: 48000)
        CLI.write(d + "/bad.json", #"{"version": 1, "name": "bad", "chain": [{"type": "peak", "frequency": 1000, "gain": 99}]}"#)
        let cases: [([String], String)] = [
            (["render", d + "/same.wav", "-o", d + "/x.wav", "--output-dir", d + "/o"], "exclude each other"),
            (["render", d + "/same.wav", "-o", d + "/x.wav", "--jobs", "2"], "--jobs goes with --output-dir"),
            (["render", d + "/same.wav", d + "/other/same.wav", "--output-dir", d + "/o"], "would both be written to"),
            (["render", d + "/same.wav", "--output-dir", d], "replaced by its own output"),
            (["render", d + "/same.wav", "--output-dir", d + "/o", "--preset", d + "/bad.json"], "chain[0].gain"),
            (["render", d + "/same.wav", "--output-dir", d + "/o", "--jobs", "0"], "--jobs 0 is out of range"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(args)
            #expect(r.status == 1, "\(args): exit \(r.status)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/o/same.wav"))
    }
}
