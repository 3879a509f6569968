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
        #expect(r.stdout.contains("1 files: 1 rendered, 0 skipped, 0 failed"), "\(r.stdout)")
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

    /// The README's recipes, read from the README and run as written: GNU parallel over four
    /// shards, then the Slurm script submitted with `sbatch --wait` to a real one-node Slurm
    /// (Debian's slurm-wlm and munge, started for the test: ``SlurmCluster``). Together the
    /// shards render every file exactly once; a rerun skips them all; one report line per file.
    @Test(arguments: ["parallel", "slurm"])
    func readmeRecipes(recipe: String) throws {
        if recipe == "slurm", let why = SlurmCluster.unavailableReason {
            print("README's Slurm recipe: skipped, Slurm cannot start here: \(why)")
            return
        }
        let cluster = recipe == "slurm" ? try SlurmCluster() : nil
        defer { cluster?.stop() }
        let d = try CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/episodes/season1", withIntermediateDirectories: true)
        for i in 0..<24 {
            try OutputEncodingTests.writeFloatWAV(d + "/episodes/\(i % 2 == 0 ? "season1/" : "")e\(i).wav", [Signals.noise(24_000, amplitude: 0.2, seed: UInt64(i + 10))], rate: 48000)
        }
        let readme = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "# recipe: \(recipe)\n"
        let markerAt = try #require(readme.range(of: marker))
        // The whole fenced block holding the marker (the Slurm script starts with its #! line).
        let blockStart = readme[..<markerAt.lowerBound].range(of: "```sh\n", options: .backwards)!.upperBound
        let body = readme[blockStart...]
        let script = String(body[..<body.range(of: "```")!.lowerBound])
        let bin = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        let env = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        func runShards() throws {
            if let cluster {
                // `find … > list.txt` comes from the parallel recipe; the array's tasks share it.
                _ = try ProcessRunner.run("/bin/sh", ["-c", "find episodes -name '*.wav' | sort > list.txt"], cwd: d)
                try script.write(toFile: d + "/master.sh", atomically: true, encoding: .utf8)
                let r = try ProcessRunner.run("/usr/bin/sbatch", ["--wait", "--chdir", d, "-o", d + "/slurm-%A_%a.out", "master.sh"], cwd: d,
                                              environment: env.merging(cluster.environment) { $1 })
                #expect(r.status == 0, "sbatch: \(r.stdout) \(r.stderr)")
                print("README's Slurm recipe on a one-node Slurm: \(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
            } else {
                let r = try ProcessRunner.run("/bin/sh", ["-c", script], cwd: d, environment: env)
                #expect(r.status == 0, "\(r.stderr)")
            }
        }
        try runShards()
        var lines: [[String: Any]] = []
        for k in 0..<4 {
            let text = (try? String(contentsOfFile: d + "/report-\(k).jsonl", encoding: .utf8)) ?? ""
            lines += text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        #expect(lines.count == 24, "report lines: \(lines.count)")
        #expect(Set(lines.compactMap { $0["input"] as? String }).count == 24, "a file rendered twice or not at all")
        #expect(lines.allSatisfy { $0["status"] as? String == "rendered" && $0["loudnessLUFS"] is Double })
        #expect(CLI.listing(d + "/mastered").count == 12 + 1 && CLI.listing(d + "/mastered/season1").count == 12 || CLI.listing(d + "/mastered").count == 24,
                "\(CLI.listing(d + "/mastered"))")
        // Resume: nothing left to do.
        try runShards()
        var again: [String] = []
        for k in 0..<4 { again += ((try? String(contentsOfFile: d + "/report-\(k).jsonl", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(again.count == 24 && again.allSatisfy { $0.contains(#""status":"skipped""#) }, "\(again.prefix(2))")
    }

    /// --shard splits by path (the union of the parts is the list, the parts disjoint),
    /// --skip-existing redoes a truncated output and removes a dead run's temporary file, a
    /// folder needs --recursive, and --shard out of range says how shards count.
    @Test func shardsResumeAndFolders() throws {
        let d = try CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/in/sub", withIntermediateDirectories: true)
        for i in 0..<9 { try OutputEncodingTests.writeFloatWAV(d + "/in/\(i < 3 ? "sub/" : "")f\(i).wav", [Signals.noise(2_400, amplitude: 0.2, seed: UInt64(i))], rate: 48000) }
        let folder = try CLI.run(["render", d + "/in", "--output-dir", d + "/out"])
        #expect(folder.status == 1 && folder.stderr.contains("--recursive"), "\(folder.stderr)")
        let single = try CLI.run(["render", d + "/in", "-o", d + "/x.wav"])
        #expect(single.status == 1 && single.stderr.contains("is a folder"), "\(single.stderr)")
        var seen: [String] = []
        for k in 0..<3 {
            let r = try CLI.run(["render", d + "/in", "--recursive", "--output-dir", d + "/out", "--shard", "\(k)/3", "--json", "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
            seen += (o["outputs"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        }
        #expect(seen.count == 9 && Set(seen).count == 9, "\(seen)")
        #expect(CLI.listing(d + "/out/sub") == ["f0.wav", "f1.wav", "f2.wav"])
        // A cut output and a dead process's temporary file, as a crash leaves them.
        let whole = try Data(contentsOf: URL(fileURLWithPath: d + "/out/f5.wav"))
        try whole.prefix(2000).write(to: URL(fileURLWithPath: d + "/out/f5.wav"))
        CLI.write(d + "/out/.f6.wav.timbre-999999-1.tmp", "partial")
        let resume = try CLI.run(["render", d + "/in", "--recursive", "--output-dir", d + "/out", "--skip-existing"])
        #expect(resume.status == 0 && resume.stdout.contains("9 files: 1 rendered, 8 skipped, 0 failed"), "\(resume.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: d + "/out/f5.wav")) == whole)
        #expect(!CLI.listing(d + "/out").contains(".f6.wav.timbre-999999-1.tmp"))
        let bad = try CLI.run(["render", d + "/in", "--recursive", "--output-dir", d + "/out", "--shard", "3/3"])
        #expect(bad.status == 1 && bad.stderr.contains("allowed 0…2"), "\(bad.stderr)")
    }
}
