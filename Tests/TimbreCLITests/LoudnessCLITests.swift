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

    /// A file's samples as sox decodes them (raw 32-bit float), channel by channel.
    static func samples(_ path: String) throws -> [[Float]] {
        let info = try CLI.tool(["soxi", "-c", path])
        let channels = Int(info.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
        let raw = path + ".tp.f32"
        try CLI.tool(["sox", path, "-t", "f32", raw])
        let data = FileManager.default.contents(atPath: raw) ?? Data()
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (0..<channels).map { c in Swift.stride(from: c, to: all.count, by: channels).map { all[$0] } }
    }

    /// The materials of the issue: speech (espeak-ng, as a podcaster's TTS intro would be),
    /// music-like noise, and sharp transients (clicks over quiet noise): each wants more gain
    /// than the −1 dBTP ceiling allows.
    static func normalizationMaterials(_ d: String) throws -> [(name: String, path: String, target: Double)] {
        var list: [(String, String, Double)] = []
        try CLI.tool(["espeak-ng", "-w", d + "/speech22.wav", "This is a test of the podcast voice chain. We want minus sixteen L U F S, without a single sample over the ceiling. Peter Piper picked a peck of pickled peppers."])
        try CLI.tool(["sox", d + "/speech22.wav", "-r", "48000", "-b", "24", d + "/speech.wav"])
        list.append(("speech (espeak-ng)", d + "/speech.wav", -16))
        list.append(("music-like, mastered loud", try material(d), -9))
        var rng = SeededRandom(seed: 5)
        let clicks = (0..<(48_000 * 8)).map { i -> Float in
            let noise = Float(Double(rng.next() % 20_000) / 10_000 - 1) * 0.01
            return i % 24_000 < 3 ? (i % 24_000 == 1 ? 0.95 : -0.6) : noise
        }
        try OutputEncodingTests.writeFloatWAV(d + "/clicks.wav", [clicks, clicks])
        list.append(("clicks over noise", d + "/clicks.wav", -16))
        return list
    }

    /// `--normalize -16 --true-peak-ceiling -1` (−9 for music) reaches its target within 0.1 LU (libebur128)
    /// with no output sample or inter-sample peak over −1 dBTP (the tests' own 16×
    /// reconstruction) where a gain alone would cross the ceiling: a true-peak limiter is
    /// inserted after the gain and the summary says so, with its deepest reduction (a preset
    /// without a limiter: vocal-presence; podcast-voice, which ends with one, is the next test's).
    @Test func normalizeReachesTheTargetUnderTheCeiling() throws {
        let d = try CLI.tempDir()
        for (name, input, target) in try Self.normalizationMaterials(d) {
            let out = d + "/n-\(URL(fileURLWithPath: input).lastPathComponent)"
            let r = try CLI.run(["render", input, "-o", out, "--preset", "vocal-presence", "--normalize", String(target), "--true-peak-ceiling", "-1", "--json"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let o = Self.json(r.stdout), norm = o["normalization"] as? [String: Any] ?? [:]
            let theirs = try Self.libebur128(out)
            let peak = try Self.samples(out).map { TruePeakReference.dB($0) }.max() ?? 0
            print(String(format: "--normalize %.0f -1 on %@: libebur128 %.3f LUFS, 16x true peak %.3f dBTP, gain %+.2f dB, limiting %.2f dB, %d passes",
                         target, name, theirs.integrated, peak, norm["gainDB"] as? Double ?? .nan, norm["maxLimitingDB"] as? Double ?? .nan, norm["passes"] as? Int ?? 0))
            #expect(abs(theirs.integrated - target) <= 0.1, "\(name): \(theirs.integrated) LUFS")
            #expect(peak <= -1.0, "\(name): true peak \(peak) dBTP over the ceiling")
            #expect(norm["limiterInserted"] as? Bool == true && norm["missedTarget"] as? Bool == false, "\(name): \(r.stdout)")
            #expect((o["warnings"] as? [String])?.isEmpty == true, "\(name): \(r.stdout)")
        }
        // The text summary names the limiter and its reduction.
        let text = try CLI.run(["render", d + "/speech.wav", "-o", d + "/t.wav", "--preset", "vocal-presence", "--normalize", "-16"])
        #expect(text.stdout.contains("true-peak limiter (up to") && text.stdout.contains("(target -16.0)"), "\(text.stdout)")
    }

    /// The summary of a normalised render describes the file written: its loudness figures,
    /// levels and true peak equal `timbre meter`'s reading of the output (to the 0.01 the JSON
    /// rounds to; the file holds 24-bit samples) — whether the written pass took the loudness
    /// from the trial whose audio it wrote (an inserted limiter, or the preset's own), or
    /// measured the capture times the gain (no limiting).
    @Test func normalizeSummaryIsTheWrittenFile() throws {
        let d = try CLI.tempDir()
        let input = try Self.normalizationMaterials(d)[0].path
        for (target, preset) in [("-16", "flat"), ("-23", "flat"), ("-16", "podcast-voice")] {
            let out = d + "/s\(target)\(preset).wav"
            let r = try CLI.run(["render", input, "-o", out, "--preset", preset, "--normalize", target, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let summary = Self.json(r.stdout)["loudness"] as? [String: Any] ?? [:]
            let m = try CLI.run(["meter", out, "--json"])
            let meter = (try? JSONSerialization.jsonObject(with: Data(m.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
            for key in ["integratedLUFS", "loudnessRangeLU", "maxMomentaryLUFS", "maxShortTermLUFS", "truePeakDBTP", "samplePeakDBFS"] {
                let a = summary[key] as? Double ?? .nan, b = meter[key] as? Double ?? .nan
                #expect(abs(a - b) <= 0.011, "\(preset) \(target): \(key) \(a) in the summary, \(b) measured")
            }
            let rms = { (o: [String: Any]) in ((o["channels"] as? [[String: Any]])?.first?["rmsDBFS"] as? Double) ?? .nan }
            #expect(abs(rms(summary) - rms(meter)) <= 0.011, "\(preset) \(target): RMS \(rms(summary)) / \(rms(meter))")
            print("normalised \(target) with \(preset): summary \(summary["integratedLUFS"] ?? "-") LUFS, range \(summary["loudnessRangeLU"] ?? "-"); meter \(meter["integratedLUFS"] ?? "-"), \(meter["loudnessRangeLU"] ?? "-")")
        }
    }

    /// A preset that ends with its own limiter gets the gain in front of it (not after it,
    /// where it would undo the limiting); linear mode adds no limiter and reports the
    /// shortfall as a warning (an error with --strict, nothing written); a batch counts the
    /// files with warnings in its summary.
    @Test func normalizeBeforeThePresetsLimiterAndLinearMode() throws {
        let d = try CLI.tempDir()
        let input = try Self.normalizationMaterials(d)[0].path
        CLI.write(d + "/limited.json", #"{"version": 1, "name": "ends with a limiter", "chain": [{"type": "highpass", "frequency": 80}, {"type": "limiter", "id": "brickwall", "ceiling": -1.5}, {"type": "loudness"}]}"#)
        let r = try CLI.run(["render", input, "-o", d + "/p.wav", "--preset", d + "/limited.json", "--normalize", "-16", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let norm = Self.json(r.stdout)["normalization"] as? [String: Any] ?? [:]
        #expect(norm["gainBeforePresetLimiter"] as? Bool == true && norm["limiterInserted"] as? Bool == false && (norm["maxLimitingDB"] as? Double ?? 0) > 1, "\(r.stdout)")
        let theirs = try Self.libebur128(d + "/p.wav")
        let peak = try Self.samples(d + "/p.wav").map { TruePeakReference.dB($0) }.max() ?? 0
        #expect(abs(theirs.integrated - -16) <= 0.1 && peak <= -1.5, "\(theirs.integrated) LUFS, \(peak) dBTP")

        // A preset ending with a sample-peak limiter does not hold a true-peak ceiling: the gain
        // goes after it, followed by an inserted true-peak limiter.
        CLI.write(d + "/sampled.json", #"{"version": 1, "name": "sample-peak", "chain": [{"type": "limiter", "ceiling": -1.5, "detector": "sample-peak"}]}"#)
        let sp = try CLI.run(["render", input, "-o", d + "/sp.wav", "--preset", d + "/sampled.json", "--normalize", "-16", "--json"])
        let spn = Self.json(sp.stdout)["normalization"] as? [String: Any] ?? [:]
        let spPeak = try Self.samples(d + "/sp.wav").map { TruePeakReference.dB($0) }.max() ?? 0
        #expect(sp.status == 0 && spn["gainBeforePresetLimiter"] as? Bool == false && spn["limiterInserted"] as? Bool == true && spPeak <= -1, "\(sp.stdout) \(spPeak)")

        // The shipped podcast chain (high-pass, EQ, de-esser, compressor, limiter): the issue's
        // command on speech, the gain in front of its own limiter, the dynamics in the summary.
        let pv = try CLI.run(["render", input, "-o", d + "/pv.wav", "--preset", "podcast-voice", "--normalize", "-16", "--true-peak-ceiling", "-1", "--json"])
        let po = Self.json(pv.stdout), pn = po["normalization"] as? [String: Any] ?? [:]
        let pi = try Self.libebur128(d + "/pv.wav").integrated, pp = try Self.samples(d + "/pv.wav").map { TruePeakReference.dB($0) }.max() ?? 0
        let reductions = po["maxGainReductionDB"] as? [String: Double] ?? [:]
        print(String(format: "podcast-voice --normalize -16 -1 on speech: %.3f LUFS, 16x true peak %.3f dBTP, ", pi, pp) + "\(reductions)")
        #expect(pv.status == 0 && pn["gainBeforePresetLimiter"] as? Bool == true && pn["limiterInserted"] as? Bool == false, "\(pv.stdout) \(pv.stderr)")
        #expect(abs(pi - -16) <= 0.1 && pp <= -1, "\(pi) LUFS, \(pp) dBTP")
        #expect(Set(reductions.keys) == ["deesser", "leveler", "ceiling"] && (reductions["deesser"] ?? 0) > 0 && (reductions["leveler"] ?? 0) > 0, "\(reductions)")
        let pt = try CLI.run(["render", input, "-o", d + "/pv.wav", "--preset", "podcast-voice"])
        #expect(pt.stdout.contains("most gain reduction: ceiling ") && pt.stdout.contains("deesser ") && pt.stdout.contains("leveler "), "\(pt.stdout)")

        // The shipped broadcast master: EBU R 128 delivery at −23 LUFS, −1 dBTP, on music.
        let music = try Self.material(d)
        let b = try CLI.run(["render", music, "-o", d + "/b.wav", "--preset", "broadcast-master", "--normalize", "-23", "--json"])
        let bn = Self.json(b.stdout)["normalization"] as? [String: Any] ?? [:]
        let bi = try Self.libebur128(d + "/b.wav").integrated, bp = try Self.samples(d + "/b.wav").map { TruePeakReference.dB($0) }.max() ?? 0
        print(String(format: "broadcast-master --normalize -23: %.3f LUFS, 16x true peak %.3f dBTP", bi, bp))
        #expect(b.status == 0 && bn["gainBeforePresetLimiter"] as? Bool == true && abs(bi - -23) <= 0.1 && bp <= -1, "\(b.stdout) \(b.stderr)")

        let linear = try CLI.run(["render", input, "-o", d + "/l.wav", "--preset", "flat", "--normalize", "-16", "--normalize-mode", "linear", "--json"])
        #expect(linear.status == 0, "\(linear.stderr)")
        let lo = Self.json(linear.stdout), ln = lo["normalization"] as? [String: Any] ?? [:]
        #expect(ln["cutByCeiling"] as? Bool == true && ln["missedTarget"] as? Bool == true && ln["limiterInserted"] as? Bool == false, "\(linear.stdout)")
        #expect((lo["warnings"] as? [String])?.contains { $0.contains("instead of -16.0") } == true && linear.stderr.contains("instead of -16.0"))
        let capped = try Self.samples(d + "/l.wav").map { TruePeakReference.dB($0) }.max() ?? 0
        #expect(capped <= -1 + 0.1, "linear: true peak \(capped)")
        let strict = try CLI.run(["render", input, "-o", d + "/s.wav", "--preset", "flat", "--normalize", "-16", "--normalize-mode", "linear", "--strict"])
        #expect(strict.status == 2 && strict.stderr.contains("nothing written") && !FileManager.default.fileExists(atPath: d + "/s.wav"), "\(strict.stderr)")
        #expect(try CLI.run(["render", input, "-o", d + "/x.wav", "--normalize", "-16", "--normalize-mode", "loud"]).status == 1)

        try FileManager.default.createDirectory(atPath: d + "/batch", withIntermediateDirectories: true)
        let batch = try CLI.run(["render", input, try Self.material(d), "--output-dir", d + "/batch", "--preset", "flat", "--normalize", "-16", "--normalize-mode", "linear"])
        #expect(batch.status == 0 && batch.stdout.contains("rendered (") && batch.stdout.contains("with warnings)"), "\(batch.stdout)")

        // Silence cannot be normalised: exit 2, no file.
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", d + "/silence.wav", "trim", "0", "2"])
        let silent = try CLI.run(["render", d + "/silence.wav", "-o", d + "/s.wav", "--preset", "flat", "--normalize", "-16"])
        #expect(silent.status == 2 && silent.stderr.contains("no gated loudness") && !FileManager.default.fileExists(atPath: d + "/s.wav"))
    }
}
