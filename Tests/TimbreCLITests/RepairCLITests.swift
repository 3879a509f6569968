import Foundation
import Testing
import TimbreFile
import TimbreTestSupport

/// `timbre repair` on files other recorders left when they were killed mid-write (sox,
/// arecord), on WAV, RF64 and W64 files whose sizes were zeroed or left stale, and its
/// promises: the original untouched unless --in-place, every whole frame recovered.
struct RepairCLITests {
    static func bytes(_ path: String) -> [UInt8] { [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()) }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// sox killed with SIGKILL while writing a 24-bit WAV of a sine: its header announces
    /// about 2 GiB; repair keeps every whole frame on disk, and they equal the first frames
    /// of the same sox command run to the end.
    @Test func soxKilledMidWrite() throws {
        let d = try CLI.tempDir()
        try ProcessRunner.killMidWrite("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", "killed.wav", "synth", "600", "sine", "440"], in: d, file: "killed.wav")
        let before = Self.bytes(d + "/killed.wav")
        try #require(before.count > 44, "sox wrote \(before.count) bytes before it was killed")
        let report = try CLI.run(["repair", d + "/killed.wav"])
        #expect(report.status == 0 && report.stdout.contains("nothing written") && Self.bytes(d + "/killed.wav") == before, "no flag: the file is not touched")
        let r = try CLI.run(["repair", d + "/killed.wav", "-o", d + "/fixed.wav", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = Self.json(r.stdout)
        let frames = o["frames"] as? Int ?? 0, offset = o["dataOffset"] as? Int ?? 0
        print("sox killed: \(before.count) bytes, header said \(o["declaredDataBytes"] ?? "?") bytes; \(frames) frames recovered, \(o["partialFrameBytes"] ?? 0) bytes of a partial frame left out")
        #expect(frames == (before.count - offset) / 6 && frames > 0)
        // The same sox command run to exactly that many frames.
        _ = try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "24", d + "/whole.wav", "synth", "\(frames)s", "sine", "440"])
        let fixed = try SoundFileSamples.read(d + "/fixed.wav"), whole = try SoundFileSamples.read(d + "/whole.wav")
        #expect(fixed[0].count == frames && whole[0].count == frames && (0..<2).allSatisfy { c in whole[c] == fixed[c] })
        #expect(try WaveFileRepair(path: d + "/fixed.wav").isIntact)
        // sox itself now reads the whole length.
        let soxi = try CLI.tool(["soxi", "-s", d + "/fixed.wav"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(soxi) == frames)
    }

    /// arecord (ALSA's null device) killed mid-write: a 16-bit WAV whose sizes say 2 GiB.
    @Test func arecordKilledMidWrite() throws {
        let d = try CLI.tempDir()
        try ProcessRunner.killMidWrite("/usr/bin/arecord", ["-q", "-D", "null", "-f", "S16_LE", "-r", "48000", "-c", "2", "ar.wav"], in: d, file: "ar.wav")
        let before = Self.bytes(d + "/ar.wav")
        try #require(before.count > 44, "arecord wrote \(before.count) bytes before it was killed")
        let r = try CLI.run(["repair", d + "/ar.wav", "-o", d + "/ar-fixed.wav", "--json"])
        let o = Self.json(r.stdout)
        let frames = o["frames"] as? Int ?? 0
        print("arecord killed: \(before.count) bytes; \(frames) frames recovered (header said \(o["declaredDataBytes"] ?? "?") bytes)")
        #expect(r.status == 0 && frames == (before.count - 44) / 4 && frames > 0, "\(r.stdout) \(r.stderr)")
        let fixed = Self.bytes(d + "/ar-fixed.wav")
        #expect(Array(fixed[44...]) == Array(before[44..<(44 + frames * 4)]), "the audio bytes are the original's")
        #expect(try SoundFileReader(path: d + "/ar-fixed.wav").frameCount == Int64(frames))
    }

    /// A libsndfile WAV, RF64 and W64 with their size fields zeroed (as a recorder that never
    /// updated its header leaves them), and a WAV with a stale size and a LIST chunk after the
    /// data: every frame comes back; --in-place replaces the file atomically; -o onto the input
    /// is refused; a file that is no WAV is an error (exit 2).
    @Test func zeroedAndStaleSizes() throws {
        let d = try CLI.tempDir()
        for (ext, format) in [("wav", "wav"), ("rf64", "rf64"), ("w64", "w64")] {
            let path = d + "/z.\(ext)"
            if format == "rf64" {
                _ = try CLI.tool(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=300:duration=1.5:sample_rate=48000", "-ac", "2",
                                  "-c:a", "pcm_s16le", "-f", "wav", "-rf64", "always", path])
            } else {
                _ = try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", "-t", format, path, "synth", "1.5", "sine", "300"])
            }
            var b = Self.bytes(path)
            let good = try WaveFileRepair(path: path)
            #expect(good.isIntact, "\(ext): \(good.report)")
            // Zero every size field the repair knows about.
            switch ext {
            case "wav": for k in 4..<8 { b[k] = 0 }; for k in (Int(good.dataOffset) - 4)..<Int(good.dataOffset) { b[k] = 0 }
            case "rf64": for k in 20..<44 { b[k] = 0 }
            default: for k in 16..<24 { b[k] = 0 }; for k in (Int(good.dataOffset) - 8)..<Int(good.dataOffset) { b[k] = 0 }
            }
            try Data(b).write(to: URL(fileURLWithPath: path))
            let r = try CLI.run(["repair", path, "--in-place", "--json"])
            let o = Self.json(r.stdout)
            print("\(ext) with zeroed sizes: \(o["frames"] ?? "?") frames (of 72000); intact before: \(o["intact"] ?? "?")")
            #expect(r.status == 0 && o["frames"] as? Int == 72_000 && o["intact"] as? Bool == false, "\(r.stdout) \(r.stderr)")
            #expect(try SoundFileReader(path: path).frameCount == 72_000 && (try WaveFileRepair(path: path)).isIntact)
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: d)).contains { $0.hasSuffix(".tmp") })
        }
        // A data chunk followed by a LIST chunk (tags written after the audio): the valid chunk
        // after the declared data proves the size right — reported intact, and a copy keeps the
        // LIST chunk byte for byte. With the RIFF size alone wrong (a recorder that died before
        // its last header update), only that is fixed.
        _ = try CLI.tool(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", d + "/tagged.wav", "synth", "0.5", "sine", "500"])
        var t = Self.bytes(d + "/tagged.wav")
        let list: [UInt8] = Array("LIST".utf8) + [12, 0, 0, 0] + Array("INFOICMT".utf8) + [0, 0, 0, 0]
        t += list
        let riff = UInt32(t.count - 8)
        for k in 0..<4 { t[4 + k] = UInt8((riff >> (8 * UInt32(k))) & 0xFF) }
        try Data(t).write(to: URL(fileURLWithPath: d + "/tagged.wav"))
        let tagged = try WaveFileRepair(path: d + "/tagged.wav")
        #expect(tagged.isIntact && tagged.frames == 24_000 && tagged.trailingBytes == Int64(list.count), "\(tagged.report)")
        for k in 0..<4 { t[4 + k] = 0 }
        try Data(t).write(to: URL(fileURLWithPath: d + "/tagged.wav"))
        let staleRIFF = try CLI.run(["repair", d + "/tagged.wav", "-o", d + "/tagged-fixed.wav", "--json"])
        let fixed = Self.bytes(d + "/tagged-fixed.wav")
        #expect(staleRIFF.status == 0 && Self.json(staleRIFF.stdout)["intact"] as? Bool == false && Self.json(staleRIFF.stdout)["frames"] as? Int == 24_000)
        let fixedIntact = try WaveFileRepair(path: d + "/tagged-fixed.wav").isIntact
        #expect(Array(fixed.suffix(list.count)) == list && fixed.count == t.count && fixedIntact)
        #expect(try CLI.run(["repair", d + "/z.wav", "-o", d + "/z.wav"]).status == 1)
        CLI.write(d + "/text.wav", "not audio at all, just text")
        let bad = try CLI.run(["repair", d + "/text.wav"])
        #expect(bad.status == 2 && bad.stderr.contains("not a WAV, RF64 or W64 file"), "\(bad.stderr)")
    }
}
