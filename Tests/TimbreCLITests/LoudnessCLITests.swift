import CEbur128
import Foundation
import Testing
import TimbreTestSupport

/// `timbre meter` and `timbre render --meter/--normalize` on files sox makes, checked with
/// libebur128 reading the same files (through sox to raw floats, not through Timbre's reader).
@Suite(.serialized) struct LoudnessCLITests {
    struct Oracle { var integrated, range, truePeak: Double }

    static func libebur128(_ path: String) throws -> Oracle {
        let info = try CLI.tool(["soxi", path])
        let channels = Int(info.split(separator: "\n").first { $0.hasPrefix("Channels") }?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "2") ?? 2
        let rate = Int(info.split(separator: "\n").first { $0.hasPrefix("Sample Rate") }?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "48000") ?? 48000
        let raw = path + ".f32"
        try CLI.tool(["sox", path, "-t", "f32", "-e", "floating-point", "-b", "32", raw])
        let data = FileManager.default.contents(atPath: raw) ?? Data()
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var st = ebur128_init(UInt32(channels), UInt(rate), Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue))
        defer { ebur128_destroy(&st) }
        _ = samples.withUnsafeBufferPointer { ebur128_add_frames_float(st, $0.baseAddress, samples.count / channels) }
        var i = 0.0, lra = 0.0, tp = 0.0
        ebur128_loudness_global(st, &i); ebur128_loudness_range(st, &lra)
        for c in 0..<channels { var t = 0.0; ebur128_true_peak(st, UInt32(c), &t); tp = max(tp, t) }
        return Oracle(integrated: i, range: lra, truePeak: 20 * log10(tp))
    }

    static func json(_ text: String) -> [String: Any] {
        let v = try? JSONSerialization.jsonObject(with: Data(text.utf8))
        return (v as? [[String: Any]])?.first ?? (v as? [String: Any]) ?? [:]
    }

    /// Music-like material from sox, repeatable (`-R`): pink noise low-passed at 8 kHz (music's
    /// top octave is weaker than pink noise's), a slow tremolo and a quieter tail. (On full
    /// pink noise the two true-peak interpolators differ by up to 0.13 dB, both about 0.1 dB
    /// under an ideal reconstruction: see `LoudnessOracleTests`.)
    static func material(_ d: String, rate: Int = 48000) throws -> String {
        let path = d + "/music-\(rate).wav"
        try CLI.tool(["sox", "-R", "-n", "-r", "\(rate)", "-c", "2", "-b", "24", path, "synth", "30", "pinknoise", "lowpass", "8000",
                      "tremolo", "0.3", "60", "fade", "q", "0.5", "30", "8", "gain", "-12"])
        return path
    }

    @Test(arguments: [48000, 44100])
    func meterAgreesWithLibebur128(rate: Int) throws {
        let d = try CLI.tempDir()
        let path = try Self.material(d, rate: rate)
        let r = try CLI.run(["meter", path, "--json", "--lra-rate", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let ours = Self.json(r.stdout), theirs = try Self.libebur128(path)
        let i = ours["integratedLUFS"] as? Double ?? 0, lra = ours["loudnessRangeLU"] as? Double ?? 0, tp = ours["truePeakDBTP"] as? Double ?? 0
        print(String(format: "timbre meter vs libebur128 @ %d Hz: I %.2f / %.2f LUFS, LRA %.2f / %.2f LU, TP %.2f / %.2f dBTP", rate, i, theirs.integrated, lra, theirs.range, tp, theirs.truePeak))
        #expect(abs(i - theirs.integrated) <= 0.05 && abs(lra - theirs.range) <= 0.1 && abs(tp - theirs.truePeak) <= 0.1)
        for key in ["integratedLUFS", "loudnessRangeLU", "maxMomentaryLUFS", "maxShortTermLUFS", "truePeakDBTP", "samplePeakDBFS"] {
            #expect(ours[key] is Double, "\(key) present")
        }
        let channels = ours["channels"] as? [[String: Any]] ?? []
        #expect(channels.count == 2 && channels.allSatisfy { $0["rmsDBFS"] is Double && $0["clippedSamples"] is Int && $0["truePeakDBTP"] is Double })
        // The table form names the measures.
        let table = try CLI.run(["meter", path])
        #expect(table.stdout.contains("integrated:") && table.stdout.contains("true peak:"))
    }

    /// Two-pass normalisation to −16 LUFS lands within 0.05 LU by libebur128; with a −3 dBTP
    /// ceiling that the gain would exceed, the gain stops at the ceiling and a warning says so.
    @Test func normalizeReachesTheTarget() throws {
        let d = try CLI.tempDir()
        let input = try Self.material(d)
        let r = try CLI.run(["render", input, "-o", d + "/n.wav", "--preset", "podcast-voice", "--normalize", "-16", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let theirs = try Self.libebur128(d + "/n.wav")
        print(String(format: "--normalize -16: libebur128 reads %.3f LUFS, true peak %.2f dBTP", theirs.integrated, theirs.truePeak))
        #expect(abs(theirs.integrated - -16) <= 0.05)
        let limited = try CLI.run(["render", input, "-o", d + "/l.wav", "--preset", "flat", "--normalize", "-6", "--true-peak-ceiling", "-3", "--json"])
        #expect(limited.status == 0, "\(limited.stderr)")
        let norm = Self.json(limited.stdout)["normalization"] as? [String: Any] ?? [:]
        #expect(norm["limitedByTruePeak"] as? Bool == true, "\(limited.stdout)")
        let capped = try Self.libebur128(d + "/l.wav")
        #expect(capped.truePeak <= -3 + 0.1, "true peak \(capped.truePeak) under the ceiling")
        #expect(limited.stderr.contains("true-peak ceiling"))
        // Silence cannot be normalised: exit 2, no file.
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", d + "/silence.wav", "trim", "0", "2"])
        let silent = try CLI.run(["render", d + "/silence.wav", "-o", d + "/s.wav", "--preset", "flat", "--normalize", "-16"])
        #expect(silent.status == 2 && silent.stderr.contains("no gated loudness") && !FileManager.default.fileExists(atPath: d + "/s.wav"))
    }
}
