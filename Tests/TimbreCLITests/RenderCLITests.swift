import Foundation
import Testing
import TimbreTestSupport

/// `timbre render`, `info`, `presets` and `demo` as a user runs them, compared with sox.
@Suite(.serialized) struct RenderCLITests {
    static func readFloats(_ path: String) throws -> [Float] {
        // Raw little-endian float32 samples via sox (independent of libsndfile's reader).
        let raw = path + ".f32"
        try CLI.tool(["sox", path, "-t", "f32", "-e", "floating-point", "-b", "32", raw])
        let data = FileManager.default.contents(atPath: raw)!
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Blocks of 1, 17, 64, 256 and 4096 frames produce byte-identical files.
    @Test func blockSizeDoesNotChangeOutput() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "44100", "-c", "2", "-b", "24", d + "/in.wav", "synth", "1.5", "pinknoise", "vol", "0.4"])
        var files: [Data] = []
        for block in [1, 17, 64, 256, 4096] {
            let out = d + "/out-\(block).wav"
            let r = try CLI.run(["render", d + "/in.wav", "-o", out, "--preset", "podcast-voice", "--block-size", "\(block)", "--encoding", "float", "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            files.append(FileManager.default.contents(atPath: out)!)
            usleep(block == 17 ? 1_100_000 : 0)  // cross a second: nothing time-dependent may reach the file
        }
        #expect(files.allSatisfy { $0 == files[0] }, "outputs differ across block sizes")
        // And with 16-bit TPDF dither, too (the dither generator advances per sample).
        var dithered: [Data] = []
        for block in [1, 4096] {
            let out = d + "/d-\(block).wav"
            #expect(try CLI.run(["render", d + "/in.wav", "-o", out, "--preset", "bass-boost", "--block-size", "\(block)", "--encoding", "pcm16", "--quiet"]).status == 0)
            dithered.append(FileManager.default.contents(atPath: out)!)
        }
        #expect(dithered[0] == dithered[1])
    }

    /// Oracle: the bilinear designs are the RBJ cookbook filters sox implements; rendering
    /// noise through `timbre` and through sox agrees to within Float rounding (1e-4 of full scale).
    @Test(arguments: [
        (#"{"type": "peak", "frequency": 1000, "gain": 6, "q": 2, "design": "bilinear"}"#, ["equalizer", "1000", "2q", "6"]),
        (#"{"type": "highpass", "frequency": 150, "q": 0.7071, "design": "bilinear"}"#, ["highpass", "150", "0.7071q"]),
        (#"{"type": "lowpass", "frequency": 5000, "q": 0.7071, "design": "bilinear"}"#, ["lowpass", "5000", "0.7071q"]),
        (#"{"type": "lowshelf", "frequency": 200, "gain": -4, "q": 0.7071, "design": "bilinear"}"#, ["bass", "-4", "200", "0.7071q"]),
        (#"{"type": "highshelf", "frequency": 6000, "gain": 5, "q": 0.7071, "design": "bilinear"}"#, ["treble", "5", "6000", "0.7071q"]),
    ])
    func bilinearMatchesSox(node: String, soxEffect: [String]) throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "1", "-e", "floating-point", "-b", "32", d + "/in.wav", "synth", "1", "whitenoise", "vol", "0.25"])
        CLI.write(d + "/p.json", #"{"version": 1, "name": "o", "chain": [\#(node)]}"#)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/ours.wav", "--preset", d + "/p.json", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        try CLI.tool(["sox", d + "/in.wav", "-e", "floating-point", "-b", "32", d + "/sox.wav"] + soxEffect)
        let ours = try Self.readFloats(d + "/ours.wav"), theirs = try Self.readFloats(d + "/sox.wav")
        #expect(ours.count == theirs.count)
        let worst = zip(ours, theirs).map { abs($0 - $1) }.max() ?? 1
        print("sox oracle \(soxEffect): worst difference \(worst) (limit \(Tolerance[.soxOracle].limit))")
        #expect(Double(worst) <= Tolerance[.soxOracle].limit, "\(soxEffect): worst difference \(worst)")
    }

    /// The rendered level of a sine matches sox's own measurement of the expected gain.
    @Test func infoReportsFileFacts() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "44100", "-c", "1", "-b", "16", d + "/a.flac", "synth", "2", "sine", "1000", "vol", "0.5"])
        let r = try CLI.run(["info", d + "/a.flac", "--json"])
        #expect(r.status == 0)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: Any]]
        #expect(obj[0]["sampleRate"] as? Int == 44100 && obj[0]["channels"] as? Int == 1 && obj[0]["frames"] as? Int == 88200)
        #expect(obj[0]["encoding"] as? String == "pcm16" && (obj[0]["format"] as? String ?? "").contains("FLAC"))
        #expect(abs((obj[0]["peakDBFS"] as? Double ?? 0) - (-6.02)) < 0.05)
        let text = try CLI.run(["info", d + "/a.flac"])
        #expect(text.stdout.contains("44100 Hz") && text.stdout.contains("2.000 s"))
        #expect(try CLI.run(["info", d + "/missing.wav"]).status == 2)
    }

    @Test func renderSummaryAndNoProgressOffTerminal() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", d + "/m.wav", "synth", "1", "sine", "440", "vol", "0.5"])
        let r = try CLI.run(["render", d + "/m.wav", "-o", d + "/s.flac", "--preset", "default"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("48000 frames") && r.stdout.contains("1→2 ch") && r.stdout.contains("flac pcm16 (as the input)") && r.stdout.contains("real time"))
        #expect(!r.stderr.contains("\r"), "no progress bar when stderr is not a terminal")
        let q = try CLI.run(["render", d + "/m.wav", "-o", d + "/q.wav", "--preset", "flat", "--quiet"])
        #expect(q.status == 0 && q.stdout.isEmpty)
    }

    /// On a terminal (a pseudo-terminal from `script`), render draws a progress bar with
    /// percent, elapsed time and speed on stderr, then clears it for the summary.
    @Test func progressBarOnATerminal() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", d + "/p.wav", "synth", "60", "pinknoise", "vol", "0.3"])
        let command = "\(CLI.binary) render \(d)/p.wav -o \(d)/p.flac --preset podcast-voice"
        let out = try CLI.tool(["script", "-q", "-e", "-c", command, "/dev/null"])
        #expect(out.contains("\r["), "progress bar drawn with carriage returns: \(out.prefix(200))")
        #expect(out.contains("%") && out.contains("× real time"))
        #expect(out.contains("2880000 frames (60.000 s)"))
    }

    @Test func presetsCommands() throws {
        let list = try CLI.run(["presets", "list"])
        for name in ["flat", "rumble-cut", "vocal-presence", "bass-boost", "telephone", "podcast-voice", "taae-10band"] {
            #expect(list.stdout.contains(name))
        }
        let ok = try CLI.run(["presets", "validate", ProcessRunner.repoRoot.appendingPathComponent("Presets/podcast-voice.json").path])
        #expect(ok.status == 0 && ok.stdout.contains("ok"))
        let d = try CLI.tempDir()
        CLI.write(d + "/bad.json", #"{"version": 1, "name": "x", "chain": [{"type": "pan", "pan": 3}]}"#)
        let bad = try CLI.run(["presets", "validate", d + "/bad.json"])
        #expect(bad.status == 1 && bad.stderr.contains("chain[0].pan"))
        // Its 20 kHz band is above 0.49 × 32 kHz: fitted below Nyquist, so it validates.
        let taae = try CLI.run(["presets", "validate", "taae-10band", "--sample-rate", "32000"])
        #expect(taae.status == 0, "\(taae.stderr)")
        CLI.write(d + "/hp.json", #"{"version": 1, "name": "x", "chain": [{"type": "highpass", "frequency": 18000}]}"#)
        let hp = try CLI.run(["presets", "validate", d + "/hp.json", "--sample-rate", "32000"])
        #expect(hp.status == 1 && hp.stderr.contains("chain[0].frequency"), "\(hp.stderr)")
    }

    /// A band above 0.49 × the rate that does less than 0.01 dB below Nyquist is left out with
    /// one notice naming it (render text and JSON, `presets validate`), and the output is the
    /// same as without it, sample for sample; at a rate where it acts there is no notice.
    @Test func bandLeftOutAboveNyquistIsNamed() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "16000", "-c", "1", "-e", "floating-point", "-b", "32", d + "/in.wav", "synth", "2", "pinknoise", "gain", "-20"])
        let bands = #"{"frequency": 100, "gain": 3, "q": 1}"#
        CLI.write(d + "/air.json", #"{"version": 1, "name": "air", "chain": [{"type": "eq", "bands": [\#(bands)]}, {"type": "peak", "frequency": 15000, "gain": 1, "q": 8}, {"type": "gain", "gain": -1}]}"#)
        CLI.write(d + "/without.json", #"{"version": 1, "name": "without", "chain": [{"type": "eq", "bands": [\#(bands)]}, {"type": "gain", "gain": -1}]}"#)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/a.wav", "--preset", d + "/air.json"])
        #expect(r.status == 0, "\(r.stderr)")
        let notices = r.stderr.split(separator: "\n").filter { $0.contains("left out") }
        #expect(notices.count == 1 && notices[0].contains("chain[1]") && notices[0].contains("15000 Hz") && notices[0].contains("16000 Hz"), "\(r.stderr)")
        let j = try CLI.run(["render", d + "/in.wav", "-o", d + "/a.wav", "--preset", d + "/air.json", "--json"])
        let warnings = ((try? JSONSerialization.jsonObject(with: Data(j.stdout.utf8))) as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("chain[1]") && $0.contains("left out") }, "\(j.stdout)")
        _ = try CLI.run(["render", d + "/in.wav", "-o", d + "/b.wav", "--preset", d + "/without.json"])
        let a = FileManager.default.contents(atPath: d + "/a.wav"), b = FileManager.default.contents(atPath: d + "/b.wav")
        #expect(a != nil && a == b, "the left-out band changed the output")
        let v = try CLI.run(["presets", "validate", d + "/air.json", "--sample-rate", "16000"])
        #expect(v.status == 0 && v.stdout.contains("note:") && v.stdout.contains("chain[1]"), "\(v.stdout)")
        // At 44.1 kHz the band is below 0.49 × the rate: designed, no notice.
        let high = try CLI.run(["render", d + "/in.wav", "-o", d + "/c.wav", "-r", "44100", "--preset", d + "/air.json"])
        #expect(high.status == 0 && !high.stderr.contains("left out"), "\(high.stderr)")
    }

    @Test func demoWritesInputAndOutput() throws {
        let d = try CLI.tempDir()
        let r = try CLI.run(["demo", "--output-dir", d, "--seconds", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.listing(d) == ["demo-input.wav", "demo-output.wav"])
        #expect(r.stdout.contains("Preset: Default") && r.stdout.contains("144000 frames"))
        // A folder that does not exist yet is created (as mkdir -p would).
        let fresh = try CLI.run(["demo", "--output-dir", d + "/new/folder", "--seconds", "1"])
        #expect(fresh.status == 0 && CLI.listing(d + "/new/folder") == ["demo-input.wav", "demo-output.wav"], "\(fresh.stderr)")
        CLI.write(d + "/file", "x")
        let bad = try CLI.run(["demo", "--output-dir", d + "/file"])
        #expect(bad.status == 1 && bad.stderr.contains("is a file"), "\(bad.stderr)")
    }
}
