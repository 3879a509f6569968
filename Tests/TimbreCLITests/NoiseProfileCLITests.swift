import Foundation
import Testing
import TimbreTestSupport

/// `timbre noise-profile`: learns a `denoise` node's profile from the quietest half second of a
/// file (or a given stretch); the profile of sox's white noise reads its variance; a render
/// with the profile kept fixed takes that noise down; a bad stretch is a usage error (exit 1), a
/// missing file an I/O error (exit 2), and neither leaves a file.
@Suite struct NoiseProfileCLITests {
    @Test func learnsFromTheQuietestStretchAndDenoises() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 1.5 s of white noise (uniform ±0.01: variance 0.01²/3, −44.8 dB), then a loud tone with it.
        try CLI.tool(["sox", "-n", "-r", "48000", "-b", "32", "-e", "float", "\(dir)/noise.wav", "synth", "1.5", "whitenoise", "vol", "0.01"])
        try CLI.tool(["sox", "-n", "-r", "48000", "-b", "32", "-e", "float", "\(dir)/tone.wav", "synth", "2", "sine", "440", "vol", "0.3"])
        try CLI.tool(["sox", "\(dir)/noise.wav", "\(dir)/tone.wav", "\(dir)/take.wav"])
        let r = try CLI.run(["noise-profile", "\(dir)/take.wav", "-o", "\(dir)/profile.json"])
        try #require(r.status == 0, "\(r.stderr)")
        print(r.stdout)
        let from = try #require(r.stdout.range(of: "from ")).upperBound
        let numbers = r.stdout[from...].split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
        let (start, end) = (numbers[0], numbers[1])
        #expect(start >= 0 && end <= 1.5 && abs(end - start - 0.5) < 1e-6, "found \(start)–\(end) s")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/profile.json"))) as! [String: [Double]]
        let levels = json["levels"]!, mid = levels[20..<(levels.count - 20)]
        let mean = mid.reduce(0, +) / Double(mid.count), expected = 10 * log10(0.01 * 0.01 / 3)
        print("profile of sox's white noise: mean level \(String(format: "%.2f", mean)) dB, its variance \(String(format: "%.2f", expected)) dB")
        #expect(abs(mean - expected) < 1)

        CLI.write("\(dir)/fixed.json", #"{"version": 1, "name": "fixed", "chain": [{"type": "denoise", "profile": "profile.json", "adaptive": false}]}"#)
        let render = try CLI.run(["render", "\(dir)/noise.wav", "-o", "\(dir)/clean.wav", "--preset", "\(dir)/fixed.json", "--quiet"])
        try #require(render.status == 0, "\(render.stderr)")
        func rms(_ x: [Float]) -> Double { (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }
        let before = try SoundFileSamples.read("\(dir)/noise.wav")[0], after = try SoundFileSamples.read("\(dir)/clean.wav")[0]
        let reduction = 20 * log10(rms(Array(before[24_000...])) / rms(Array(after[24_000...])))
        print("denoise with the learned profile, fixed: noise down \(String(format: "%.1f", reduction)) dB")
        #expect(reduction > 15)
    }

    @Test func badStretchAndMissingFile() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try CLI.tool(["sox", "-n", "-r", "48000", "\(dir)/noise.wav", "synth", "1", "whitenoise", "vol", "0.01"])
        let backwards = try CLI.run(["noise-profile", "\(dir)/noise.wav", "-o", "\(dir)/p.json", "--start", "0.8", "--end", "0.2"])
        #expect(backwards.status == 1 && backwards.stderr.contains("is not a stretch of"), "\(backwards.stderr)")
        let short = try CLI.run(["noise-profile", "\(dir)/noise.wav", "-o", "\(dir)/p.json", "--start", "0.1", "--end", "0.105"])
        #expect(short.status == 1 && short.stderr.contains("shorter than one analysis window"), "\(short.stderr)")
        let missing = try CLI.run(["noise-profile", "\(dir)/none.wav", "-o", "\(dir)/p.json"])
        #expect(missing.status == 2, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/p.json"))
    }
}
