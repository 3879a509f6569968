import Foundation
import Testing
import TimbreTestSupport

/// Graph presets with `player` channels rendered offline (`timbre render --preset P -o OUT`,
/// no input file): regions, offsets and loops are sample-exact, files at another rate are
/// converted exactly as `render -r` converts them, rates change the length and pitch as they
/// should, and bad players are preset errors naming the JSON path.
@Suite(.serialized) struct PlayerCLITests {
    static func preset(_ d: String, _ channels: String, master: String = "") throws -> String {
        let path = d + "/players.json"
        try Data(#"{"version": 1, "name": "players", "graph": {"channels": [\#(channels)], "master": {"chain": [\#(master)]}}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Region 0.5…1.0 s from offset 0.1 s, then two more passes: x[0.6 s..<1 s] + x[0.5..<1] + x[0.5..<1],
    /// bit for bit (a stereo channel at volume 1, centre balance: unity). The file name is
    /// relative to the preset's folder.
    @Test func regionOffsetAndLoopsAreSampleExact() throws {
        let d = try CLI.tempDir()
        let x = try MultiInputCLITests.write(d + "/x.wav", [Signals.noise(48_000, amplitude: 0.3, seed: 21), Signals.noise(48_000, amplitude: 0.3, seed: 22)])
        let p = try Self.preset(d, #"{"id": "a", "player": {"file": "x.wav", "start": 0.5, "end": 1.0, "offset": 0.1, "loops": 2}}"#)
        let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav", "--encoding", "float", "--quiet"], cwd: "/")
        #expect(r.status == 0, "\(r.stderr)")
        let out = try MultiInputCLITests.read(d + "/out.wav", channels: 2)
        for c in 0..<2 {
            let expected = Array(x[c][28_800..<48_000] + x[c][24_000..<48_000] + x[c][24_000..<48_000])
            #expect(out[c].count == expected.count && out[c] == expected, "channel \(c): \(out[c].count) frames, expected \(expected.count)")
        }
    }

    /// `--start`/`--end` on a players-only render cut the players' timeline: frames 1000…4999
    /// of the file exactly (the players play through the lead-in, which is rendered and dropped).
    @Test func trimmingAPlayersOnlyRender() throws {
        let d = try CLI.tempDir()
        let x = try MultiInputCLITests.write(d + "/x.wav", [Signals.noise(8000, amplitude: 0.3, seed: 30), Signals.noise(8000, amplitude: 0.3, seed: 31)])
        let p = try Self.preset(d, #"{"id": "a", "player": {"file": "x.wav"}}"#)
        let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav", "--start", "frames:1000", "--end", "frames:5000", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try MultiInputCLITests.read(d + "/out.wav", channels: 2)
        #expect(out[0] == Array(x[0][1000..<5000]) && out[1] == Array(x[1][1000..<5000]), "\(out[0].count) frames")
        let late = try CLI.run(["render", "--preset", p, "-o", d + "/late.wav", "--start", "1"])
        #expect(late.status == 2 && late.stderr.contains("the players end before the start"), "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/late.wav"))
    }

    /// A 44.1 kHz mono file in a 48 kHz graph: converted exactly as `render -r 48000` converts it
    /// alone, centred by the channel's constant-power pan (cos π/4 on each side).
    @Test func fileAtAnotherRateIsConverted() throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/m.wav", [Signals.sine(44_100, hz: 1000, amplitude: 0.5, rate: 44_100)], rate: 44_100)
        let p = try Self.preset(d, #"{"id": "m", "player": {"file": "m.wav"}}"#)
        let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav", "-r", "48000", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let alone = try CLI.run(["render", d + "/m.wav", "-o", d + "/m48.wav", "-r", "48000", "--quiet"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let out = try MultiInputCLITests.read(d + "/out.wav", channels: 2), reference = try MultiInputCLITests.read(d + "/m48.wav", channels: 1)[0]
        #expect(reference.count == 48_000 && out[0].count == 48_000)
        let centre = Float(cos(Double.pi / 4))
        var worst: Float = 0
        for c in 0..<2 { for i in 0..<min(out[c].count, reference.count) { worst = max(worst, abs(out[c][i] - centre * reference[i])) } }
        #expect(worst < 1e-7, "worst deviation \(worst)")
    }

    /// `rate`: varispeed 2 halves the length and doubles the tone; timestretch 1.5 gives
    /// round(N / 1.5) frames at the same pitch (sine fits at the expected frequency).
    @Test(arguments: [("varispeed", 2.0, 880.0, 24_000), ("timestretch", 1.5, 440.0, 32_000)])
    func rateChangesLengthAndPitch(mode: String, rate: Double, hz: Double, frames: Int) throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/t.wav", [Signals.sine(48_000, hz: 440, amplitude: 0.5, rate: 48_000)])
        let p = try Self.preset(d, #"{"id": "t", "player": {"file": "t.wav", "rate": \#(rate), "rateMode": "\#(mode)"}, "pan": -1}"#)
        let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let left = try MultiInputCLITests.read(d + "/out.wav", channels: 2)[0]
        #expect(left.count == frames)
        let fit = SineFit.fit(left, hz: hz, rate: 48_000, margin: 4096)
        print(String(format: "player %@ %.1f×: %d frames, THD+N at %.0f Hz %.1f dB", mode, rate, left.count, hz, fit.thdnDB))
        #expect(fit.thdnDB < -60)
    }

    /// A player beside an input channel: the file plays while the input passes, summed.
    @Test func playerBesideAnInput() throws {
        let d = try CLI.tempDir()
        let x = try MultiInputCLITests.write(d + "/x.wav", [Signals.noise(24_000, amplitude: 0.2, seed: 23), Signals.noise(24_000, amplitude: 0.2, seed: 24)])
        let input = try MultiInputCLITests.write(d + "/in.wav", [Signals.noise(30_000, amplitude: 0.2, seed: 25), Signals.noise(30_000, amplitude: 0.2, seed: 26)])
        let p = try Self.preset(d, #"{"id": "live", "input": [0, 1]}, {"id": "bed", "player": {"file": "x.wav"}}"#)
        let r = try CLI.run(["render", d + "/in.wav", "--preset", p, "-o", d + "/out.wav", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try MultiInputCLITests.read(d + "/out.wav", channels: 2)
        #expect(out[0].count == 30_000)
        var worst: Float = 0
        for c in 0..<2 { for i in 0..<30_000 { worst = max(worst, abs(out[c][i] - (input[c][i] + (i < 24_000 ? x[c][i] : 0)))) } }
        #expect(worst < 1e-7, "worst deviation \(worst)")
    }

    /// Endless loops need `--end`, and then render exactly that long.
    @Test func endlessLoopsNeedAnEnd() throws {
        let d = try CLI.tempDir()
        let x = try MultiInputCLITests.write(d + "/x.wav", [Signals.noise(1000, amplitude: 0.2, seed: 27)])
        let p = try Self.preset(d, #"{"id": "l", "player": {"file": "x.wav", "loops": -1}, "pan": -1}"#)
        let bad = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav"])
        #expect(bad.status == 1 && bad.stderr.contains("loops forever"), "\(bad.stderr)")
        let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav", "--end", "frames:3500", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let left = try MultiInputCLITests.read(d + "/out.wav", channels: 2)[0]
        #expect(left == Array(x[0] + x[0] + x[0] + x[0][0..<500]))
    }

    /// AVAudioPlayer-style `volume` and `pan` inside the player object are the channel's: a
    /// mono file at volume 0.5 panned hard left comes out as 0.5·x on the left, silence right.
    @Test func volumeAndPanInThePlayer() throws {
        let d = try CLI.tempDir()
        let x = try MultiInputCLITests.write(d + "/m.wav", [Signals.noise(9600, amplitude: 0.3, seed: 29)])[0]
        let p = try Self.preset(d, #"{"id": "m", "player": {"file": "m.wav", "volume": 0.5, "pan": -1}}"#)
        let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav", "--encoding", "float", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try MultiInputCLITests.read(d + "/out.wav", channels: 2)
        var worst: Float = 0
        for i in 0..<9600 { worst = max(worst, abs(out[0][i] - 0.5 * x[i]), abs(out[1][i])) }
        #expect(out[0].count == 9600 && worst < 1e-6, "worst \(worst)")
        let both = try Self.preset(d, #"{"id": "m", "player": {"file": "m.wav", "volume": 0.5}, "volume": 0.7}"#)
        let bad = try CLI.run(["render", "--preset", both, "-o", d + "/out2.wav"])
        #expect(bad.status == 1 && bad.stderr.contains("on the channel or in its player, not both"), "\(bad.stderr)")
    }

    @Test func badPlayersArePresetErrors() throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/x.wav", [Signals.noise(4800, amplitude: 0.2, seed: 28)])
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "4", d + "/quad.wav", "synth", "0.1", "sine", "440"])
        let cases: [(String, String)] = [
            (#"{"id": "a", "player": {"file": "missing.wav"}}"#, "graph.channels[0].player.file"),
            (#"{"id": "a", "player": {"file": "quad.wav"}}"#, "mono or stereo"),
            (#"{"id": "a", "player": {"file": "x.wav", "rate": 3}}"#, "graph.channels[0].player.rate: 3 is out of range (allowed 0.5…2"),
            (#"{"id": "a", "player": {"file": "x.wav", "start": 2, "end": 1}}"#, "is not after start"),
            (#"{"id": "a", "player": {"file": "x.wav", "start": 5}}"#, "past the end of the file"),
            (#"{"id": "a", "player": {"file": "x.wav"}, "input": [0]}"#, "give one of"),
            (#"{"id": "a", "player": {"file": "x.wav", "loop": 1}}"#, "loop"),
        ]
        for (channel, mention) in cases {
            let p = try Self.preset(d, channel)
            let r = try CLI.run(["render", "--preset", p, "-o", d + "/out.wav"])
            #expect(r.status == 1, "\(channel): exit \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(mention) && r.stderr.contains("players.json"), "\(channel): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: d + "/out.wav"))
        }
    }
}
