import Foundation
import Testing

/// The bad inputs the issue lists: each exits with the right code, says what is wrong on
/// stderr with the `timbre: error:` prefix, and leaves no output file behind.
@Suite(.serialized) struct BadInputTests {
    static let dir: String = {
        let d = try! CLI.tempDir()
        try! CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", d + "/good.wav", "synth", "0.5", "sine", "440", "vol", "0.3"])
        try! CLI.tool(["sox", "-n", "-r", "32000", "-c", "1", "-b", "16", d + "/rate32k.wav", "synth", "0.2", "sine", "440"])
        CLI.write(d + "/empty.wav", "")
        CLI.write(d + "/text.wav", "This is not audio, just text renamed to .wav\n")
        let good = FileManager.default.contents(atPath: d + "/good.wav")!
        _ = FileManager.default.createFile(atPath: d + "/truncated.wav", contents: good.prefix(30))
        CLI.write(d + "/invalid.json", #"{"version": 1, "name": "x", "chain": [ {"type": "gain" ]}"#)
        CLI.write(d + "/unknown-node.json", #"{"version": 1, "name": "x", "chain": [{"type": "kazoo"}]}"#)
        CLI.write(d + "/eq25.json", #"{"version": 1, "name": "x", "chain": [{"type": "eq", "bands": [{"frequency": 1000, "gain": 25}]}]}"#)
        CLI.write(d + "/nyquist.json", #"{"version": 1, "name": "x", "chain": [{"type": "highpass", "frequency": 18000}]}"#)
        CLI.write(d + "/ok.json", #"{"version": 1, "name": "x", "chain": [{"type": "gain", "gain": -1}]}"#)
        return d
    }()

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var input: String
        var output: String
        var preset: String
        var status: Int32
        var mentions: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "missing input", input: "nope.wav", output: "out.wav", preset: "ok.json", status: 2, mentions: ["nope.wav", "no such file"]),
        Case(name: "empty file", input: "empty.wav", output: "out.wav", preset: "ok.json", status: 2, mentions: ["empty.wav", "empty"]),
        Case(name: "truncated WAV header", input: "truncated.wav", output: "out.wav", preset: "ok.json", status: 2, mentions: ["truncated.wav"]),
        Case(name: "text file renamed .wav", input: "text.wav", output: "out.wav", preset: "ok.json", status: 2, mentions: ["text.wav", "cannot read as audio"]),
        Case(name: "invalid JSON", input: "good.wav", output: "out.wav", preset: "invalid.json", status: 1, mentions: ["invalid.json", "invalid JSON", "line 1, column"]),
        Case(name: "unknown node type", input: "good.wav", output: "out.wav", preset: "unknown-node.json", status: 1, mentions: ["unknown-node.json", "chain[0].type", "kazoo"]),
        Case(name: "EQ gain 25 dB", input: "good.wav", output: "out.wav", preset: "eq25.json", status: 1, mentions: ["eq25.json", "chain[0].bands[0].gain", "25", "-20…20 dB"]),
        Case(name: "high-pass above Nyquist", input: "rate32k.wav", output: "out.wav", preset: "nyquist.json", status: 1, mentions: ["chain[0].frequency", "18000", "32000 Hz"]),
        Case(name: "output directory missing", input: "good.wav", output: "no/such/dir/out.wav", preset: "ok.json", status: 2, mentions: ["does not exist"]),
        Case(name: "unknown output extension", input: "good.wav", output: "out.xyz", preset: "ok.json", status: 1, mentions: ["--format"]),
    ]

    @Test(arguments: cases)
    func rejects(_ c: Case) throws {
        let before = CLI.listing(Self.dir)
        let r = try CLI.run(["render", c.input, "-o", c.output, "--preset", c.preset], cwd: Self.dir)
        #expect(r.status == c.status, "\(c.name): exit \(r.status), stderr: \(r.stderr)")
        #expect(r.stderr.hasPrefix("timbre: error: "), "\(c.name): \(r.stderr)")
        for m in c.mentions { #expect(r.stderr.contains(m), "\(c.name): stderr lacks \"\(m)\": \(r.stderr)") }
        #expect(r.stdout.isEmpty)
        #expect(CLI.listing(Self.dir) == before, "\(c.name): files left behind")
    }

    /// A read-only output directory: exit 2, nothing written. (As root, permission bits do not
    /// stop writes, so root uses /sys/kernel, which refuses file creation to everyone.)
    @Test func readOnlyOutputDirectory() throws {
        var target = Self.dir + "/ro"
        if geteuid() == 0 {
            target = "/sys/kernel"
        } else {
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            chmod(target, 0o555)
        }
        let r = try CLI.run(["render", "good.wav", "-o", target + "/out.wav", "--preset", "ok.json"], cwd: Self.dir)
        #expect(r.status == 2, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("out.wav") && r.stderr.contains("cannot create output file"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target + "/out.wav"))
    }

    /// A failing render never touches an existing output file.
    @Test func existingOutputIsKeptOnFailure() throws {
        CLI.write(Self.dir + "/precious.wav", "my only copy")
        let r = try CLI.run(["render", "good.wav", "-o", "precious.wav", "--preset", "eq25.json"], cwd: Self.dir)
        #expect(r.status == 1)
        #expect(try String(contentsOfFile: Self.dir + "/precious.wav", encoding: .utf8) == "my only copy")
        let r2 = try CLI.run(["render", "text.wav", "-o", "precious.wav", "--preset", "ok.json"], cwd: Self.dir)
        #expect(r2.status == 2)
        #expect(try String(contentsOfFile: Self.dir + "/precious.wav", encoding: .utf8) == "my only copy")
        try FileManager.default.removeItem(atPath: Self.dir + "/precious.wav")
    }

    @Test func usageErrorsExitOne() throws {
        for args in [["render"], ["render", "good.wav", "--preset", "ok.json"], ["frobnicate"],
                     ["render", "good.wav", "-o", "x.wav", "--preset", "ok.json", "--block-size", "0"],
                     ["render", "good.wav", "-o", "x.wav", "--preset", "ok.json", "--encoding", "pcm12"],
                     ["render", "good.wav", "-o", "x.wav", "--preset", "ok.json", "--dither", "shaped"]] {
            let r = try CLI.run(args, cwd: Self.dir)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix("timbre: error: "), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: Self.dir + "/x.wav"))
    }

    @Test func helpAndVersionExitZero() throws {
        #expect(try CLI.run(["--help"]).status == 0)
        #expect(try CLI.run(["render", "--help"]).stdout.contains("--block-size"))
        #expect(try CLI.run(["--version"]).status == 0)
    }
}
