import CEbur128
import Foundation
import Testing
import TimbreTestSupport

/// 5.1 and 7.1 files (#40, surround and delivery) made by ffmpeg with its channel layouts
/// (WAVE_FORMAT_EXTENSIBLE masks): `timbre info` shows the layout, a render keeps it, and the
/// loudness weighs the channels as ITU-R BS.1770-4 says (surrounds +1.5 dB, LFE left out),
/// checked against libebur128 told each channel's position and against ffmpeg's ebur128.
@Suite(.serialized) struct SurroundFileTests {
    static let rate = 48000, seconds = 12

    /// Per channel: noise at its own level (the LFE loud: leaving it out shows), written raw
    /// and wrapped by ffmpeg as `layout`.
    static func make(_ d: String, layout: String, levelsDB: [Double]) throws -> String {
        let n = rate * seconds, nc = levelsDB.count
        let channels = levelsDB.enumerated().map { c, db in Signals.noise(n, amplitude: Float(pow(10, db / 20)), seed: UInt64(70 + c)) }
        var interleaved = [Float](repeating: 0, count: n * nc)
        for i in 0..<n { for c in 0..<nc { interleaved[i * nc + c] = channels[c][i] } }
        let raw = d + "/\(layout).f32", path = d + "/\(layout).wav"
        _ = FileManager.default.createFile(atPath: raw, contents: interleaved.withUnsafeBytes { Data($0) })
        try CLI.tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "f32le", "-ar", "\(rate)", "-ch_layout", layout, "-i", raw,
                      "-c:a", "pcm_s24le", path])
        return path
    }

    /// libebur128's integrated loudness of `path` (decoded by ffmpeg to raw floats), each
    /// channel given its BS.1770-4 position.
    static func libebur128(_ path: String, channels: [channel]) throws -> Double {
        let raw = path + ".check.f32"
        try CLI.tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", path, "-f", "f32le", raw])
        let samples = (FileManager.default.contents(atPath: raw) ?? Data()).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var st = ebur128_init(UInt32(channels.count), UInt(rate), Int32(EBUR128_MODE_I.rawValue))
        defer { ebur128_destroy(&st) }
        for (c, type) in channels.enumerated() { _ = ebur128_set_channel(st, UInt32(c), Int32(type.rawValue)) }
        _ = samples.withUnsafeBufferPointer { ebur128_add_frames_float(st, $0.baseAddress, samples.count / channels.count) }
        var i = 0.0
        ebur128_loudness_global(st, &i)
        return i
    }

    /// ffmpeg's ebur128 filter's integrated loudness (printed to 0.1 LU).
    static func ffmpeg(_ path: String) throws -> Double {
        let r = try ProcessRunner.run("/usr/bin/ffmpeg", ["-nostdin", "-nostats", "-i", path, "-af", "ebur128", "-f", "null", "-"])
        let summary = r.stderr.components(separatedBy: "Summary:").last ?? ""
        let line = summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    }

    static func probeLayout(_ path: String) throws -> String {
        try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "stream=channel_layout", "-of", "default=nw=1:nk=1", path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func meter(_ path: String) throws -> Double {
        let r = try CLI.run(["meter", path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let v = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        return v?.first?["integratedLUFS"] as? Double ?? .nan
    }

    @Test(arguments: [
        // ffmpeg's 5.1: L R C LFE and the surround pair at ±110° (its mask calls them back).
        ("5.1", "L R C LFE BL BR", [-20.0, -20, -23, -10, -26, -26],
         [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]),
        ("5.1(side)", "L R C LFE SL SR", [-20.0, -20, -23, -10, -26, -26],
         [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]),
        // 7.1: the sides at ±90° weigh 1.41, the backs at ±135–150° 1 (BS.1770-4, libebur128).
        ("7.1", "L R C LFE BL BR SL SR", [-20.0, -20, -23, -10, -24, -24, -28, -28],
         [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_Mp135, EBUR128_Mm135, EBUR128_Mp090, EBUR128_Mm090]),
    ] as [(String, String, [Double], [channel])])
    func layoutKeptAndLoudnessWeighted(layout: String, positions: String, levelsDB: [Double], types: [channel]) throws {
        let d = try CLI.tempDir()
        let path = try Self.make(d, layout: layout, levelsDB: levelsDB)
        // `timbre info` shows the layout the file declares.
        let info = try CLI.run(["info", path, "--json"])
        let o = (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
        #expect(o["layout"] as? String == positions && o["layoutDeclared"] as? Bool == true, "\(o)")
        let text = try CLI.run(["info", path]).stdout
        #expect(text.contains("channels:  \(levelsDB.count) (\(layout.hasPrefix("5.1") ? "5.1" : layout): \(positions))"), "\(text)")
        // A render through an EQ keeps it, as ffprobe reads it.
        let out = d + "/out.wav"
        let r = try CLI.run(["render", path, "-o", out, "--preset", "vocal-presence", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let kept = try Self.probeLayout(out)
        #expect(kept == layout, "ffprobe reads \(kept) from the output, \(layout) from the input")
        // Loudness, BS.1770-4.
        let ours = try Self.meter(path), theirs = try Self.libebur128(path, channels: types), ffmpeg = try Self.ffmpeg(path)
        print(String(format: "surround %@ (%@): Timbre %.2f LUFS, libebur128 %.2f, ffmpeg ebur128 %.1f; output layout %@", layout, positions, ours, theirs, ffmpeg, kept))
        #expect(abs(ours - theirs) <= 0.05, "Timbre \(ours), libebur128 \(theirs)")
        if layout != "7.1" {
            #expect(abs(ours - ffmpeg) <= 0.1, "Timbre \(ours), ffmpeg \(ffmpeg)")
        } else {
            // ffmpeg gives the back pair 1.41 too: louder by 10·log10 of the backs' extra weight.
            #expect(ffmpeg > ours + 0.1, "ffmpeg \(ffmpeg) weighs 7.1's backs as surrounds")
        }
        try? FileManager.default.removeItem(atPath: d)
    }

    /// `--normalize -23` on 5.1 reaches −23 LUFS as libebur128 measures the output, LFE out.
    @Test func normalizeSurround() throws {
        let d = try CLI.tempDir()
        let path = try Self.make(d, layout: "5.1", levelsDB: [-20, -20, -23, -10, -26, -26])
        let out = d + "/ebu.wav"
        let r = try CLI.run(["render", path, "-o", out, "--normalize", "-23", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let reached = try Self.libebur128(out, channels: [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND])
        print(String(format: "surround 5.1 --normalize -23: libebur128 reads %.2f LUFS; layout %@", reached, try Self.probeLayout(out)))
        #expect(abs(reached + 23) <= 0.1)
        #expect(try Self.probeLayout(out) == "5.1")
        try? FileManager.default.removeItem(atPath: d)
    }
}

extension SurroundFileTests {
    /// The shipped `surround-delivery` preset on 5.1 and 7.1: to −23 LUFS (EBU R 128) and −24
    /// (ATSC A/85) as libebur128 (and for 5.1 ffmpeg) measure the output, true peak at most −2 dBTP
    /// (libebur128's), the layout kept.
    @Test(arguments: [("5.1", -23.0), ("5.1", -24.0), ("7.1", -24.0)])
    func surroundDeliveryPreset(layout: String, target: Double) throws {
        let d = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let levels: [Double] = layout == "5.1" ? [-12, -12, -14, -6, -18, -18] : [-12, -12, -14, -6, -18, -18, -20, -20]
        let path = try Self.make(d, layout: layout, levelsDB: levels)
        let out = d + "/delivery.wav"
        let r = try CLI.run(["render", path, "-o", out, "--preset", "surround-delivery", "--normalize", "\(target)", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let types: [channel] = layout == "5.1"
            ? [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
            : [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_Mp135, EBUR128_Mm135, EBUR128_Mp090, EBUR128_Mm090]
        let reached = try Self.libebur128(out, channels: types), theirs = try Self.ffmpeg(out)
        let peak = try Self.truePeak(out, channels: types.count)
        print(String(format: "surround-delivery %@ to %.0f LUFS: libebur128 %.2f LUFS, ffmpeg %.1f LUFS, true peak %.2f dBTP; layout %@", layout, target, reached, theirs, peak, try Self.probeLayout(out)))
        #expect(abs(reached - target) <= 0.1)
        // (ffmpeg weighs 7.1's back pair as surrounds, so it reads 7.1 louder: 5.1 only.)
        if layout == "5.1" { #expect(abs(theirs - target) <= 0.2) }
        #expect(peak <= -2 + 0.05)
        #expect(try Self.probeLayout(out) == (layout == "5.1" ? "5.1" : "7.1"))
    }

    /// libebur128's true peak over every channel of `path`, dBTP.
    static func truePeak(_ path: String, channels: Int) throws -> Double {
        let raw = path + ".peak.f32"
        try CLI.tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", path, "-f", "f32le", raw])
        let samples = (FileManager.default.contents(atPath: raw) ?? Data()).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var st = ebur128_init(UInt32(channels), UInt(rate), Int32(EBUR128_MODE_TRUE_PEAK.rawValue))
        defer { ebur128_destroy(&st) }
        _ = samples.withUnsafeBufferPointer { ebur128_add_frames_float(st, $0.baseAddress, samples.count / channels) }
        var worst = 0.0
        for c in 0..<channels { var p = 0.0; ebur128_true_peak(st, UInt32(c), &p); worst = max(worst, p) }
        return 20 * log10(worst)
    }

    /// Ogg Vorbis and Opus fix their own channel order (L C R BL BR LFE for 5.1): a 5.1 WAV
    /// with a tone in its centre only, rendered to Ogg, decodes in ffmpeg with the tone in FC;
    /// an Ogg ffmpeg made reads back with it in channel 3, where WAV keeps the centre.
    @Test(arguments: ["ogg", "opus"])
    func oggKeepsTheCentreInTheCentre(ext: String) throws {
        let d = try CLI.tempDir()
        let tone = Signals.sine(Self.rate, hz: 440, amplitude: 0.3, rate: Double(Self.rate))
        var interleaved = [Float](repeating: 0, count: Self.rate * 6)
        for i in 0..<Self.rate { interleaved[i * 6 + 2] = tone[i] }
        _ = FileManager.default.createFile(atPath: d + "/c.f32", contents: interleaved.withUnsafeBytes { Data($0) })
        try CLI.tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "f32le", "-ar", "\(Self.rate)", "-ch_layout", "5.1", "-i", d + "/c.f32", d + "/c.wav"])
        let r = try CLI.run(["render", d + "/c.wav", "-o", d + "/c.\(ext)", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        func level(_ channel: String) throws -> Double {
            let out = try ProcessRunner.run("/usr/bin/ffmpeg", ["-nostdin", "-i", d + "/c.\(ext)", "-af", "pan=mono|c0=\(channel),volumedetect", "-f", "null", "-"]).stderr
            let line = out.split(separator: "\n").first { $0.contains("mean_volume:") } ?? ""
            return Double(line.split(separator: " ").dropLast().last ?? "") ?? .nan
        }
        let centre = try level("FC"), right = try level("FR"), lfe = try level("LFE")
        try CLI.tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", d + "/c.wav", "-c:a", ext == "ogg" ? "libvorbis" : "libopus", d + "/ff.\(ext)"])
        let back = try SoundFileSamples.read(d + "/ff.\(ext)")
        let rms = back.map { c in (c.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(c.count, 1))).squareRoot() }
        print(String(format: "surround 5.1 → %@: ffmpeg decodes FC %.1f dB, FR %.1f dB, LFE %.1f dB; ffmpeg's %@ read by Timbre, rms per channel %@",
                     ext, centre, right, lfe, ext, rms.map { String(format: "%.3f", $0) }.joined(separator: " ")))
        #expect(centre > -20 && right < centre - 60 && lfe < centre - 60)
        #expect(rms[2] > 0.15 && rms.enumerated().allSatisfy { $0.offset == 2 || $0.element < 0.01 }, "\(rms)")
        try? FileManager.default.removeItem(atPath: d)
    }
}

extension SurroundFileTests {
    /// `render --channels`: a tone of its own in each channel of a 5.1 or 7.1 file from ffmpeg
    /// (0.1 each), measured in each output channel by projection on the tone (1 s, whole
    /// cycles), equals ITU-R BS.775's downmix — Lo = L + 0.7071·C + 0.7071·Ls, the LFE out —
    /// and the mono mean; stereo to 5.1 puts L and R in the front pair and nothing elsewhere.
    @Test(arguments: [
        ("5.1", [300.0, 500, 700, 60, 900, 1100], 2, [[1, 0, 0.7071, 0, 0.7071, 0], [0, 1, 0.7071, 0, 0, 0.7071]]),
        ("7.1", [300.0, 500, 700, 60, 900, 1100, 1300, 1500], 2, [[1, 0, 0.7071, 0, 0.7071, 0, 0.7071, 0], [0, 1, 0.7071, 0, 0, 0.7071, 0, 0.7071]]),
        ("5.1", [300.0, 500, 700, 60, 900, 1100], 1, [[0.5, 0.5, 0.7071, 0, 0.35355, 0.35355]]),
        ("stereo", [300.0, 500], 6, [[1, 0], [0, 1], [0, 0], [0, 0], [0, 0], [0, 0]]),
    ] as [(String, [Double], Int, [[Double]])])
    func channelConversion(layout: String, tones: [Double], channels: Int, expected: [[Double]]) throws {
        let d = try CLI.tempDir()
        let n = Self.rate, nc = tones.count
        var interleaved = [Float](repeating: 0, count: n * nc)
        for (c, hz) in tones.enumerated() {
            let s = Signals.sine(n, hz: hz, amplitude: 0.1, rate: Double(Self.rate))
            for i in 0..<n { interleaved[i * nc + c] = s[i] }
        }
        _ = FileManager.default.createFile(atPath: d + "/t.f32", contents: interleaved.withUnsafeBytes { Data($0) })
        try CLI.tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "f32le", "-ar", "\(Self.rate)", "-ch_layout", layout, "-i", d + "/t.f32", "-c:a", "pcm_f32le", d + "/t.wav"])
        let r = try CLI.run(["render", d + "/t.wav", "-o", d + "/o.wav", "--channels", "\(channels)", "--encoding", "float"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(nc)→\(channels) ch"), "\(r.stdout)")
        let y = try SoundFileSamples.read(d + "/o.wav")
        #expect(y.count == channels)
        var worst = 0.0
        for (o, row) in expected.enumerated() {
            for (c, want) in row.enumerated() {
                // The tone's amplitude in output o: projection on sin and cos over whole cycles.
                let w = 2 * Double.pi * tones[c] / Double(Self.rate)
                var a = 0.0, b = 0.0
                for i in 0..<n { a += Double(y[o][i]) * sin(w * Double(i)); b += Double(y[o][i]) * cos(w * Double(i)) }
                let got = 2 * (a * a + b * b).squareRoot() / Double(n) / 0.1
                worst = max(worst, abs(got - want))
            }
        }
        print("--channels \(channels) from \(layout): every route within \(String(format: "%.1e", worst)) of BS.775's gain")
        #expect(worst < 1e-4)
        try? FileManager.default.removeItem(atPath: d)
    }
}
