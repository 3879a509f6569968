import Foundation
import Testing
import TimbreTestSupport

/// Every `timbre` command shown in the README and `docs/` names a real subcommand and only
/// flags that subcommand's `--help` lists, so a renamed flag breaks this test, not a reader.
/// (The outputs shown are real runs; what they say is tested by the suites of each command.)
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
}
