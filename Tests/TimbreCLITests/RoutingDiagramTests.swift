import Foundation
import Testing
import TimbreTestSupport

/// `timbre presets diagram` (#40): the routing pictures in docs/routing are the binary's own
/// (re-drawn here and compared byte for byte: `make diagrams` writes them); a 3-way crossover's
/// six outputs are drawn with their names; PNG through rsvg-convert; a missing target is a
/// usage error.
@Suite struct RoutingDiagramTests {
    static let docs = ProcessRunner.repoRoot.appendingPathComponent("docs/routing").path
    static let shown = ["active-speaker-2way", "monitor-mix", "surround-delivery", "surround-stems", "ducking", "studio-graph"]

    @Test(arguments: shown)
    func docsPicturesAreCurrent(preset: String) throws {
        let d = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let r = try CLI.run(["presets", "diagram", preset, "--svg", d + "/\(preset).svg"])
        #expect(r.status == 0, "\(r.stderr)")
        let drawn = FileManager.default.contents(atPath: d + "/\(preset).svg"), committed = FileManager.default.contents(atPath: Self.docs + "/\(preset).svg")
        #expect(drawn != nil && drawn == committed, "docs/routing/\(preset).svg differs from what timbre draws: run make diagrams")
    }

    @Test func threeWayOutputsAreNamed() throws {
        let d = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        CLI.write(d + "/x.json", #"{"version": 1, "name": "3-way", "chain": [{"type": "crossover", "frequencies": [250, 2500]}, {"type": "drivers", "outputs": [{}, {}, {"label": "mid left"}, {}, {}, {"label": "tweet R", "delay": 0.1}]}]}"#)
        let r = try CLI.run(["presets", "diagram", d + "/x.json", "--svg", d + "/x.svg", "--png", d + "/x.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = String(decoding: FileManager.default.contents(atPath: d + "/x.svg") ?? Data(), as: UTF8.self)
        for name in ["out_1: low L", "out_2: low R", "out_3: mid left", "out_4: mid R", "out_5: high L", "out_6: tweet R", "→ 6 channels", "in_2"] {
            #expect(svg.contains(">\(name)<"), "\(name) missing")
        }
        #expect(!svg.contains("out_7"))
        let png = FileManager.default.contents(atPath: d + "/x.png") ?? Data()
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG")
        #expect(CLI.listing(d) == ["x.json", "x.svg", "x.png"], "no temporary file left: \(CLI.listing(d))")
    }

    @Test func usageErrors() throws {
        let none = try CLI.run(["presets", "diagram", "ducking"])
        #expect(none.status == 1 && none.stderr.contains("give --svg FILE and/or --png FILE"), "\(none.stderr)")
        let bad = try CLI.run(["presets", "diagram", "/nonexistent.json", "--svg", "/tmp/never.svg"])
        #expect(bad.status == 1 && bad.stderr.contains("/nonexistent.json"), "\(bad.stderr)")
    }
}
