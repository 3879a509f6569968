import Foundation
import Testing
import TimbreTestSupport

/// `timbre shorten-pauses`: espeak-ng speech with 2.5 s pauses between sentences loses the
/// pauses' middles (a report of every cut, in input seconds), keeps its tags, and refuses bad
/// settings (exit 1) and a missing file (exit 2) without writing anything.
@Suite struct ShortenPausesCLITests {
    @Test func speechPausesShortened() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try CLI.tool(["espeak-ng", "-v", "en-us", "-w", "\(dir)/a.wav", "The birch canoe slid on the smooth planks."])
        try CLI.tool(["espeak-ng", "-v", "en-gb", "-w", "\(dir)/b.wav", "Glue the sheet to the dark blue background."])
        try CLI.tool(["sox", "-n", "-r", "22050", "-c", "1", "\(dir)/gap.wav", "trim", "0", "2.5"])
        try CLI.tool(["sox", "\(dir)/a.wav", "\(dir)/gap.wav", "\(dir)/b.wav", "\(dir)/joined.wav"])
        // Room tone under all of it (60 dB down), and a title tag.
        try CLI.tool(["sox", "-n", "-r", "22050", "-c", "1", "\(dir)/room.wav", "synth", "8", "whitenoise", "vol", "0.001"])
        try CLI.tool(["sox", "-m", "\(dir)/joined.wav", "\(dir)/room.wav", "-b", "24", "\(dir)/take.flac"])
        let tagged = try CLI.run(["render", "\(dir)/take.flac", "-o", "\(dir)/tagged.flac", "--tag", "title=Interview"])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let r = try CLI.run(["shorten-pauses", "\(dir)/tagged.flac", "-o", "\(dir)/short.flac", "--report", "\(dir)/cuts.json"])
        try #require(r.status == 0, "\(r.stderr)")
        print(r.stdout)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/cuts.json"))) as! [String: Any]
        let cuts = report["cuts"] as! [[String: Double]]
        let inner = cuts.filter { $0["start"]! > 0.1 && $0["end"]! < (report["inputSeconds"] as! Double) - 0.01 }
        #expect(inner.count == 1, "the one long pause: \(cuts)")
        if let cut = inner.first { #expect(cut["end"]! - cut["start"]! > 1.5 && cut["end"]! - cut["start"]! < 2.5) }
        let info = try CLI.run(["info", "\(dir)/short.flac"])
        #expect(info.stdout.contains("Interview"), "the title tag kept: \(info.stdout)")
    }

    @Test func badSettingsAndMissingFile() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try CLI.tool(["sox", "-n", "-r", "48000", "\(dir)/x.wav", "synth", "1", "whitenoise", "vol", "0.01"])
        let keep = try CLI.run(["shorten-pauses", "\(dir)/x.wav", "-o", "\(dir)/y.wav", "--longest", "1", "--keep", "2"])
        #expect(keep.status == 1 && keep.stderr.contains("--keep 2.0 is out of range"), "\(keep.stderr)")
        let missing = try CLI.run(["shorten-pauses", "\(dir)/none.wav", "-o", "\(dir)/y.wav"])
        #expect(missing.status == 2, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/y.wav"))
    }
}
