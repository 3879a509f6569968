import Foundation
import Testing
import TimbreTestSupport

/// `timbre render --sample-rate / --speed` as a user runs it, against analytic sines and sox's
/// own very-high-quality converter (`rate -v`) as an independent oracle.
@Suite(.serialized) struct RateCLITests {
    static func info(_ path: String) throws -> [String: Any] {
        let r = try CLI.run(["info", path, "--json"])
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
    }

    /// 44.1 → 48 kHz: length ⌈N·160/147⌉, THD+N of the written file by a sine fit, and agreement with sox.
    @Test func convertsLikeSoxVeryHigh() throws {
        let d = try CLI.tempDir()
        // 2 s of a 1 kHz sine at −6 dBFS (computed in Double, stored as float), stereo.
        let tone = Signals.sine(88_200, hz: 1000, amplitude: 0.5, rate: 44_100)
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [tone, tone], rate: 44_100)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/ours.wav", "--preset", "flat", "-r", "48000", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let i = try Self.info(d + "/ours.wav")
        #expect(i["sampleRate"] as? Double == 48000)
        #expect(i["frames"] as? Double == Double((88_200 * 160 + 146) / 147))
        try CLI.tool(["sox", d + "/in.wav", "-e", "floating-point", "-b", "32", d + "/sox.wav", "rate", "-v", "48000"])
        let ours = try RenderCLITests.readFloats(d + "/ours.wav"), theirs = try RenderCLITests.readFloats(d + "/sox.wav")
        let left = stride(from: 0, to: ours.count, by: 2).map { ours[$0] }
        let fit = SineFit.fit(left, hz: 1000, rate: 48000, margin: 2000)
        print("render -r 48000: THD+N \(String(format: "%.1f", fit.thdnDB)) dB; sox rate -v frames \(theirs.count / 2), ours \(ours.count / 2)")
        #expect(fit.thdnDB <= -140)
        // sox's converter is linear phase and aligned too: the two agree far below audibility.
        let n = min(ours.count, theirs.count)
        var diff = 0.0, energy = 0.0
        for k in 4000..<(n - 4000) { let e = Double(ours[k] - theirs[k]); diff += e * e; energy += Double(theirs[k]) * Double(theirs[k]) }
        let agreement = 10 * log10(diff / energy)
        print("render -r 48000 vs sox rate -v: difference \(String(format: "%.1f", agreement)) dB")
        #expect(agreement <= -100, "differs from sox rate -v by \(agreement) dB")
    }

    /// Lengths are ⌈N·L/M⌉ exactly for rate pairs where N·L/M is not a whole number and its
    /// rounding and ceiling differ (11 025 → 192 000 Hz: 3 307 frames → 57 591.29… → 57 592),
    /// for files shorter than one FFT block (1 and 9 frames), and an empty file is an error
    /// (exit 2, no output) as it is without -r.
    @Test func lengthsAreExactAndEmptyInputIsAnError() throws {
        let d = try CLI.tempDir()
        for (n, fin, fout) in [(3307, 11_025, 192_000), (1, 44_100, 48_000), (9, 44_100, 48_000), (9, 44_100, 22_050), (4000, 8000, 44_100)] {
            try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [Signals.noise(n, amplitude: 0.3, seed: 3)], rate: fin)
            let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "-r", String(fout), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let expected = (Int64(n) * Int64(fout) + Int64(fin) - 1) / Int64(fin)
            #expect(try Self.info(d + "/out.wav")["frames"] as? Double == Double(expected), "\(n) frames \(fin)→\(fout)")
        }
        try OutputEncodingTests.writeFloatWAV(d + "/empty.wav", [[]], rate: 44_100)
        let r = try CLI.run(["render", d + "/empty.wav", "-o", d + "/e.wav", "-r", "48000", "-q"])
        #expect(r.status == 2 && r.stderr.contains("contains no audio frames"), "exit \(r.status): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/e.wav"))
    }

    /// Varispeed 2×: half the frames, the tone an octave up, at the input's rate.
    @Test func varispeedDoublesThePitch() throws {
        let d = try CLI.tempDir()
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [Signals.sine(48_000, hz: 440, amplitude: 0.5, rate: 48_000)])
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/fast.wav", "--preset", "flat", "--speed", "2", "--rate-mode", "varispeed", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try RenderCLITests.readFloats(d + "/fast.wav")
        #expect(out.count == 24_000)
        let fit = SineFit.fit(out, hz: 880, rate: 48000, margin: 500)
        #expect(fit.thdnDB <= -120, "THD+N at 880 Hz: \(fit.thdnDB) dB")
        #expect(abs(20 * log10(fit.amplitude / 0.5)) < 0.01)
    }

    /// A preset with a `pitch` node, rendered offline: the node's latency is taken out, so at
    /// 0 semitones the output is the input (−90 dB away from the first and last 4096 frames,
    /// where the file's abrupt start and end are not band-limited; the shifter's pure-delay
    /// error is −127 dB) with its length; at +12 the tone is an octave up (0.1 %) with the same length; a bad
    /// value is a preset error naming the file and the JSON path (exit 1, no output).
    @Test func pitchNodeKeepsLengthAndAlignment() throws {
        let d = try CLI.tempDir()
        let n = 96_000
        let x = (0..<n).map { i in Float(0.3 * sin(2 * Double.pi * 440 * Double(i) / 48_000) + 0.2 * sin(2 * Double.pi * 3123.4 * Double(i) / 48_000 + 1)) }
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [x, x], rate: 48_000)
        func render(_ node: String) throws -> (status: Int32, stderr: String, left: [Float]) {
            try Data(#"{"version": 1, "name": "shift", "chain": [\#(node)]}"#.utf8).write(to: URL(fileURLWithPath: d + "/shift.json"))
            try? FileManager.default.removeItem(atPath: d + "/out.wav")
            let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "--preset", d + "/shift.json", "--quiet"])
            guard r.status == 0 else { return (r.status, r.stderr, []) }
            let out = try RenderCLITests.readFloats(d + "/out.wav")
            return (r.status, r.stderr, stride(from: 0, to: out.count, by: 2).map { out[$0] })
        }
        let zero = try render(#"{"type": "pitch", "id": "p"}"#)
        #expect(zero.status == 0, "\(zero.stderr)")
        #expect(zero.left.count == n)
        var worst: Float = 0, edges: Float = 0
        for i in 0..<min(n, zero.left.count) {
            if i < 4096 || i >= n - 4096 { edges = max(edges, abs(zero.left[i] - x[i])) } else { worst = max(worst, abs(zero.left[i] - x[i])) }
        }
        let db = 20 * log10(Double(worst) / 0.5)
        let octave = try render(#"{"type": "pitch", "semitones": 11, "cents": 100}"#)
        #expect(octave.status == 0 && octave.left.count == n, "\(octave.stderr)")
        let sine = Signals.sine(n, hz: 440, amplitude: 0.5, rate: 48_000)
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [sine, sine], rate: 48_000)
        let up = try render(#"{"type": "pitch", "semitones": 11, "cents": 100}"#)
        let f = StretchMeasures.measuredFrequency(up.left, near: 880, rate: 48_000, from: 4800, to: n - 4800 - 24_000, length: 24_000)
        print(String(format: "render with a pitch node: 0 st vs the input %.1f dB (first and last 4096 frames %.1f dB), %d frames; +12 st %.3f Hz, %d frames",
                     db, 20 * log10(Double(edges) / 0.5), zero.left.count, f, up.left.count))
        #expect(db < -90)
        #expect(abs(f / 880 - 1) < 0.001 && up.left.count == n)
        let bad = try render(#"{"type": "pitch", "semitones": 30}"#)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("shift.json") && bad.stderr.contains("chain[0].semitones") && bad.stderr.contains("-24…24"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/out.wav"))
    }

    @Test func badRateOptionsAreUsageErrors() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "1", d + "/in.wav", "synth", "0.1", "sine", "440"])
        for (args, mention) in [(["-r", "1000"], "8000…384000"), (["--speed", "5", "--rate-mode", "varispeed"], "0.25…4"),
                                (["--rate-mode", "chipmunk"], "timestretch, varispeed"), (["--resampler", "best"], "high, fast")] {
            let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "--preset", "flat"] + args)
            #expect(r.status == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(mention), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: d + "/out.wav"))
        }
    }
}
