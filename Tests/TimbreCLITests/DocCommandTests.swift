import Foundation
import Testing
import TimbreTestSupport

/// Every `timbre` command shown in the README and `docs/` names a real subcommand and only
/// flags that subcommand's `--help` lists, so a renamed flag breaks this test, not a reader.
/// (``everyDocumentedCommandRuns`` runs them and compares what they print.)
@Suite struct DocCommandTests {
    static var pages: [URL] {
        let docs = ProcessRunner.repoRoot.appendingPathComponent("docs")
        return [ProcessRunner.repoRoot.appendingPathComponent("README.md")]
            + ((try? FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "md" }
    }

    /// `timbre …` commands on `$ ` lines of the pages' code blocks.
    static func commands() -> [(page: String, words: [String])] {
        var found: [(String, [String])] = []
        for page in pages {
            let text = (try? String(contentsOf: page, encoding: .utf8)) ?? ""
            var inCode = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") { inCode.toggle(); continue }
                guard inCode, line.hasPrefix("$ ") else { continue }
                let shell = line.dropFirst(2).split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                for part in shell.components(separatedBy: CharacterSet(charactersIn: ";|&")) {
                    let words = part.split(separator: " ").map(String.init)
                    if words.first == "timbre" { found.append((page.lastPathComponent, Array(words.dropFirst()))) }
                }
            }
        }
        return found
    }

    @Test func commandsUseRealSubcommandsAndFlags() throws {
        let commands = Self.commands()
        #expect(commands.count >= 30, "commands found in the docs")
        var help: [String: String] = [:]
        for (page, words) in commands {
            guard let sub = words.first, !sub.hasPrefix("-") else { continue }
            var path = [sub]
            if ["presets", "plugins"].contains(sub), words.count > 1, !words[1].hasPrefix("-"), !words[1].contains(".") { path.append(words[1]) }
            if path == ["plugins"] { path.append("list") }  // `plugins` runs `list` by default
            let key = path.joined(separator: " ")
            if help[key] == nil {
                let r = try ProcessRunner.run(ProcessRunner.timbreBinary, path + ["--help"])
                #expect(r.status == 0, "\(page): timbre \(key) --help exited \(r.status)")
                help[key] = r.stdout
            }
            for flag in words where flag.hasPrefix("--") {
                let name = String(flag.split(separator: "=").first!)
                #expect(help[key]!.contains(name), "\(page): `timbre \(words.joined(separator: " "))`: \(name) is not in `timbre \(key) --help`")
            }
        }
    }

    /// docs/PLUGINS.md's preset, as written there, renders a stereo file with the real x42
    /// plugins, and `timbre plugins` shows fil4 with the control count the page states.
    @Test func pluginsPageExampleRuns() throws {
        let page = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("docs/PLUGINS.md"), encoding: .utf8)
        let json = try #require(page.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let d = try ProcessRunner.temporaryDirectory("timbre-docs")
        try Data(json.utf8).write(to: URL(fileURLWithPath: d + "/plugins.json"))
        _ = try ProcessRunner.tool("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", d + "/in.wav", "synth", "1", "pinknoise", "gain", "-12"])
        let r = try ProcessRunner.run(ProcessRunner.timbreBinary, ["render", d + "/in.wav", "-o", d + "/out.wav", "--preset", d + "/plugins.json"])
        #expect(r.status == 0, "the PLUGINS.md preset fails: \(r.stderr)")
        let listed = try ProcessRunner.run(ProcessRunner.timbreBinary, ["plugins"])
        let fil4 = listed.stdout.split(separator: "\n").first { $0.contains("fil4#stereo ") || $0.contains("fil4#stereo  ") }
        #expect(fil4.map { page.contains(String($0)) } == true, "PLUGINS.md's fil4 line differs from `timbre plugins`: \(fil4 ?? "none")")
    }

    /// Every command of every console session in the README and docs/, run in order in a
    /// folder holding the files the page names (``DocFixtures``), with `timbre` on PATH, as a
    /// reader would paste them: a command the page shows failing must fail and print the
    /// error shown; every other must succeed; every line the page shows must be printed
    /// (numbers may differ). `timbre live` sessions run under jackd in LiveJackTests.
    @Test func everyDocumentedCommandRuns() throws {
        let transcripts = DocTranscript.all()
        let steps = transcripts.flatMap(\.steps)
        #expect(steps.count >= 50, "only \(steps.count) commands found in the docs")
        let bin = (ProcessRunner.timbreBinary as NSString).deletingLastPathComponent
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for transcript in transcripts where transcript.steps.contains(where: { !$0.isLive }) {
            let d = try ProcessRunner.temporaryDirectory("timbre-docs-\(transcript.page)")
            try DocFixtures.make(in: d)
            var previous: Int32 = 0
            for step in transcript.steps where !step.isLive {
                let what = "\(transcript.page): $ \(step.command)"
                if step.command == "echo $?" {
                    #expect(step.shown == [String(previous)], "\(what): the page shows \(step.shown), the command before exited \(previous)")
                    continue
                }
                let r = try ProcessRunner.run("/bin/bash", ["-c", step.command], cwd: d, environment: ["PATH": path, "COLUMNS": "200"])
                previous = r.status
                if step.showsError {
                    #expect(r.status != 0, "\(what): the page shows an error, but it exited 0")
                } else {
                    #expect(r.status == 0, "\(what): exited \(r.status): \(r.stderr)")
                }
                let missing = DocTranscript.unmatched(step.shown, in: r.stdout + "\n" + r.stderr)
                #expect(missing.isEmpty, "\(what): the page shows lines it did not print: \(missing)\n--- printed:\n\(r.stdout)\(r.stderr)")
            }
        }
    }

    /// The matcher can fail: a changed word or a missing line is seen, a number is not.
    @Test func transcriptMatchingSeesWordsNotNumbers() {
        #expect(DocTranscript.matches("out.wav: 96000 frames (2.000 s) at 48000 Hz, peak -5.97 dBFS, 277.8× real time",
                                      "out.wav: 48000 frames (1.000 s) at 44100 Hz, peak +1.00 dBFS, 12× real time"))
        #expect(!DocTranscript.matches("wav pcm16 (as the input)", "wav pcm24 (default)"))
        #expect(DocTranscript.matches("OSC on 127.0.0.1:9000", "OSC on 127.0.0.1:9001"))
        #expect(DocTranscript.matches("{\"a\":1,…,\"z\":2}", "{\"a\":1,\"m\":5,\"z\":3}"))
        #expect(DocTranscript.unmatched(["  integrated:   -16.00 LUFS", "gone"], in: "x\n  integrated:       -15.90 LUFS\n") == ["gone"])
    }
}
