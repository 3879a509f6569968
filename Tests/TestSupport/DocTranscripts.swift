import Foundation
import TimbreDSP
import TimbreFile

/// The console sessions of the README and `docs/`: each `$ ` command with the lines shown
/// after it, so a test can run them as a reader would and compare what they print.
public struct DocTranscript: Sendable {
    public struct Step: Sendable {
        /// The shell command (continuation lines joined).
        public var command: String
        /// The lines the page shows after it, up to the next command or blank line.
        public var shown: [String]
        /// True when the page shows an error (`timbre: error: …`), so the command must fail.
        public var showsError: Bool { shown.contains { $0.hasPrefix("timbre: error:") } }
        /// A `timbre live` or `timbre record` session (run under a JACK server, not by the plain CLI test).
        public var isLive: Bool { command.hasPrefix("timbre live") || command.hasPrefix("timbre record") }
    }

    public var page: String
    public var steps: [Step]

    /// The pages: README.md and every Markdown file in docs/.
    public static var pages: [URL] {
        let docs = ProcessRunner.repoRoot.appendingPathComponent("docs")
        let files = ((try? FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return [ProcessRunner.repoRoot.appendingPathComponent("README.md")] + files
    }

    /// Every ```` ```console ```` block of every page, in page order.
    public static func all() -> [DocTranscript] {
        pages.map { url in
            let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            var steps: [Step] = [], inConsole = false, continuing = false, open = false
            for raw in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if raw.hasPrefix("```") { inConsole = !inConsole && raw.hasPrefix("```console"); open = false; continue }
                guard inConsole else { continue }
                if continuing, !steps.isEmpty {
                    let piece = raw.trimmingCharacters(in: .whitespaces)
                    continuing = piece.hasSuffix("\\")
                    steps[steps.count - 1].command += " " + (continuing ? String(piece.dropLast()) : piece)
                    continue
                }
                if raw.hasPrefix("$ ") {
                    var command = String(raw.dropFirst(2))
                    continuing = command.hasSuffix("\\")
                    if continuing { command = String(command.dropLast()).trimmingCharacters(in: .whitespaces) }
                    steps.append(Step(command: command, shown: []))
                    open = true
                } else if raw.trimmingCharacters(in: .whitespaces).isEmpty {
                    open = false
                } else if open {
                    steps[steps.count - 1].shown.append(raw)
                }
            }
            return DocTranscript(page: url.lastPathComponent, steps: steps)
        }
    }

    /// Whether `actual` (one printed line) is what `shown` shows: numbers may differ (timings,
    /// levels of the test's own fixtures), `…` stands for anything, runs of spaces for any
    /// run of spaces; every word must be there.
    public static func matches(_ shown: String, _ actual: String) -> Bool {
        var pattern = "^", chars = Array(shown), i = 0
        while i < chars.count {
            let c = chars[i]
            let signed = (c == "-" || c == "+") && i + 1 < chars.count && chars[i + 1].isASCII && chars[i + 1].isNumber
            if (c.isASCII && c.isNumber) || signed {
                i += 1
                var point = false
                while i < chars.count, (chars[i].isASCII && chars[i].isNumber) || (!point && chars[i] == "." && i + 1 < chars.count && chars[i + 1].isNumber) {
                    point = point || chars[i] == "."
                    i += 1
                }
                pattern += "[-+]?[0-9]+(\\.[0-9]+)?"
                continue
            }
            if c == "…" { pattern += ".*" }
            else if c == " " { while i + 1 < chars.count, chars[i + 1] == " " { i += 1 }; pattern += " +" }
            else { pattern += NSRegularExpression.escapedPattern(for: String(c)) }
            i += 1
        }
        pattern += " *$"
        return actual.range(of: pattern, options: .regularExpression) != nil
    }

    /// The shown lines with no printed line that matches them.
    public static func unmatched(_ shown: [String], in printed: String) -> [String] {
        let lines = printed.split(separator: "\n").map(String.init)
        return shown.filter { s in !lines.contains { matches(s, $0) } }
    }
}

/// The files the documentation's examples read, made here from sox, ffmpeg and libsndfile so
/// the examples run as written (`voice.flac`, `raw.wav`, `takes/*.wav`, a preset with an
/// out-of-range gain named `vocal.json`, …).
public enum DocFixtures {
    public static func make(in d: String) throws {
        func sox(_ args: String) throws { _ = try ProcessRunner.tool("sox", args.split(separator: " ").map(String.init)) }
        func write(_ name: String, _ text: String) { _ = FileManager.default.createFile(atPath: d + "/" + name, contents: Data(text.utf8)) }
        try sox("-n -r 44100 -c 1 -b 16 \(d)/voice.flac synth 5 pinknoise gain -16")
        try sox("-n -r 48000 -c 1 -b 24 \(d)/voice.wav synth 8 pinknoise gain -18")
        try sox("-n -r 48000 -c 2 -b 24 \(d)/raw.wav synth 10 pinknoise tremolo 1.5 40 gain -22")
        try sox("-n -r 48000 -c 2 -b 24 \(d)/in.wav synth 2 pinknoise gain -18")
        try sox("-n -r 48000 -c 2 -b 24 \(d)/in2.wav synth 2 brownnoise gain -18")
        try sox("-n -r 32000 -c 2 -b 16 \(d)/in32k.wav synth 1 pinknoise gain -18")
        try sox("-n -r 48000 -c 2 -b 24 \(d)/mix.wav synth 5 pinknoise gain -16")
        try sox("-n -r 48000 -c 2 -b 24 \(d)/music.wav synth 10 pinknoise tremolo 3 40 gain -20")
        try sox("-n -r 48000 -c 1 -b 24 \(d)/tone.wav synth 3 sine 997 gain -6")
        try sox("-n -r 44100 -c 2 -b 16 \(d)/intro.flac synth 3 pinknoise gain -14")
        try sox("-n -r 48000 -c 2 -b 16 -t raw \(d)/in.raw synth 1 pinknoise gain -18")
        _ = try ProcessRunner.tool("espeak-ng", ["-w", d + "/speech22.wav", "This is a test of the podcast voice chain. We want minus sixteen L U F S, without a single sample over the ceiling. Peter Piper picked a peck of pickled peppers."])
        try sox("\(d)/speech22.wav -r 48000 -b 24 \(d)/speech.wav")
        _ = try ProcessRunner.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "aac", d + "/talk.m4a"])
        _ = try ProcessRunner.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "anoisesrc=d=3:c=pink:a=0.2", "-ac", "2", "-c:a", "libmp3lame", d + "/in.mp3"])
        // +6 dBFS float, and a float file with a NaN at frame 5000.
        let hot = Signals.sine(96000, hz: 997, amplitude: 2)
        try writeFloat(d + "/hot-float.wav", [hot, hot])
        var nan = Signals.sine(24000, hz: 440, amplitude: 0.25)
        nan[5000] = .nan
        try writeFloat(d + "/nan.wav", [nan, nan])
        // A batch folder: four good takes and one WAV cut before its data chunk.
        try FileManager.default.createDirectory(atPath: d + "/takes", withIntermediateDirectories: true)
        for k in 1...4 { try sox("-n -r 48000 -c 2 -b 24 \(d)/takes/take\(k).wav synth 30 pinknoise gain -20") }
        let take = FileManager.default.contents(atPath: d + "/takes/take1.wav") ?? Data()
        let header = take.range(of: Data("data".utf8)).map { take[..<$0.lowerBound] } ?? take.prefix(36)
        _ = FileManager.default.createFile(atPath: d + "/takes/broken.wav", contents: header)
        // What a recorder killed mid-write leaves: sox's header announces ~2 GiB.
        try ProcessRunner.killMidWrite("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", "crashed.wav", "synth", "600", "sine", "440"], in: d, file: "crashed.wav")
        write("notes.wav", "These are my notes, not audio.\n")
        write("vocal.json", #"{"version": 1, "name": "vocal", "chain": [{"type": "eq", "bands": [{}, {}, {}, {"frequency": 3000, "gain": 25}]}]}"#)
        write("my.json", #"{"version": 1, "name": "mine", "chain": [{"type": "highpass", "frequency": 80}, {"type": "peak", "frequency": 3000, "gain": 2}]}"#)
        write("ultrasonic.json", #"{"version": 1, "name": "ultrasonic", "chain": [{"type": "highpass", "frequency": 18000}]}"#)
        write("fifth.json", #"{"version": 1, "name": "up a fifth", "chain": [{"type": "pitch", "id": "shift", "semitones": 7}, {"type": "gain", "gain": -1}]}"#)
        try FileManager.default.copyItem(atPath: ProcessRunner.repoRoot.appendingPathComponent("Tests/Fixtures/autoeq-ParametricEQ.txt").path,
                                         toPath: d + "/Sennheiser HD 600 ParametricEQ.txt")
        try FileManager.default.copyItem(atPath: ProcessRunner.repoRoot.appendingPathComponent("Tests/Fixtures/rew-minidsp-biquads.txt").path,
                                         toPath: d + "/minidsp-biquads.txt")
        try FileManager.default.createDirectory(atPath: d + "/Presets", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ProcessRunner.repoRoot.appendingPathComponent("Presets/vocal-presence.json").path,
                                         toPath: d + "/Presets/vocal-presence.json")
        _ = try ProcessRunner.tool(ProcessRunner.timbreBinary, ["demo", "--output-dir", d, "--seconds", "10"])
        try? FileManager.default.removeItem(atPath: d + "/demo-output.wav")
    }

    static func writeFloat(_ path: String, _ channels: [[Float]]) throws {
        let w = try SoundFileWriter(path: path, format: .wav, encoding: .float, sampleRate: 48000, channelCount: channels.count, dither: false)
        try w.write(PlanarBuffer(channels: channels))
        try w.commit()
    }
}
