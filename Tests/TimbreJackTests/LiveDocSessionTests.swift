import Foundation
import Testing
import TimbreTestSupport

extension LiveJackTests {
    /// Every `timbre live` session in the README and docs/ (LIVE.md's three), run under jackd in
    /// a folder holding the presets and files it names: the lines typed on stdin are sent, and
    /// every line the page shows the host printing must appear (numbers may differ), in time.
    @Test func documentedLiveSessionsRun() throws {
        let server = try JackServer()
        defer { server.stop() }
        let commands: Set<String> = ["set", "bypass", "load", "insert", "remove", "play", "pause", "stop", "seek", "status", "meters", "quit",
                                     "record", "marker", "resume", "discard"]
        let sessions = DocTranscript.all().flatMap { t in t.steps.filter(\.isLive).map { (t.page, $0) } }
        #expect(sessions.count >= 4, "found \(sessions.count) live sessions")
        for (page, step) in sessions {
            let d = try ProcessRunner.temporaryDirectory("timbre-live-docs")
            try DocFixtures.make(in: d)
            _ = try ProcessRunner.tool("sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", d + "/backing.wav", "synth", "2", "pinknoise", "gain", "-20"])
            _ = try ProcessRunner.tool("sox", ["-n", "-r", "48000", "-c", "1", "-b", "24", d + "/voice-take.wav", "synth", "6", "pinknoise", "gain", "-20"])
            _ = FileManager.default.createFile(atPath: d + "/players.json", contents: Data(#"""
                {"version": 1, "name": "two players", "graph": {"channels": [
                  {"id": "backing", "player": {"file": "backing.wav", "loops": 2}},
                  {"id": "voice", "player": {"file": "voice-take.wav"}}], "master": {"chain": []}}}
                """#.utf8))
            let shell = step.command.split(separator: "#", maxSplits: 1).first.map(String.init) ?? step.command
            let words = shell.split(separator: " ").map(String.init)
            let what = "\(page): $ \(step.command)"
            var live = try LiveProcess(Array(words.dropFirst(2)), command: words[1], cwd: d)
            if words[1] == "live" && live.waitForLine(timeout: 15, { $0.hasPrefix("ready:") }) == nil {
                // Seen once in CI under load (not reproduced here): the host ended before it was
                // ready. Its errors are printed, and it gets one more start; a second failure fails.
                print("\(what): not ready on the first start (exit \(live.process.isRunning ? "none yet" : "\(live.process.terminationStatus)")): \(live.errors)")
                if live.process.isRunning { live.process.terminate() }
                live = try LiveProcess(Array(words.dropFirst(2)), command: words[1], cwd: d)
                #expect(live.waitForLine(timeout: 15) { $0.hasPrefix("ready:") } != nil, "\(what): not ready: \(live.errors)")
            }
            var sentQuit = false
            for line in step.shown {
                let typed = line.components(separatedBy: "←").first!.trimmingCharacters(in: .whitespaces)
                if let verb = typed.split(separator: " ").first, commands.contains(String(verb)) {
                    live.send(typed)
                    sentQuit = sentQuit || typed == "quit" || (words[1] == "record" && typed == "stop")
                    continue
                }
                let deadline = Date().addingTimeInterval(15)
                var seen = false
                while !seen && Date() < deadline {
                    let printed = live.output + live.errors.split(separator: "\n").map(String.init)
                    seen = printed.contains { DocTranscript.matches(line, $0) }
                    if !seen { usleep(20_000) }
                }
                #expect(seen, "\(what): the page shows \"\(line)\"; printed:\n\(live.output.joined(separator: "\n"))\n\(live.errors)")
            }
            if !sentQuit && live.process.isRunning { live.send("quit") }
            #expect(live.waitForExit(timeout: 10) == 0, "\(what): \(live.errors)")
        }
    }
}
