import Foundation
import Testing
import TimbreTestSupport

/// `timbre render --outputs` (#40): a file of some of a graph's outputs, by name or number, in
/// the order given — the same samples as those channels of a render of every output — with
/// their names in the summary; a name that does not exist is a usage error listing the names;
/// discrete outputs in a FLAC file (whose channel count fixes an order) get a warning.
@Suite struct OutputSelectionTests {
    @Test func namedAndNumberedOutputsAreThoseChannelsOfTheWholeRender() throws {
        let d = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "24", d + "/in.wav", "synth", "1", "pinknoise", "vol", "0.3"])
        let all = try CLI.run(["render", d + "/in.wav", "-o", d + "/all.wav", "--preset", "active-speaker-2way", "--encoding", "float"])
        #expect(all.status == 0, "\(all.stderr)")
        let whole = try SoundFileSamples.read(d + "/all.wav")
        try #require(whole.count == 4)
        let named = try CLI.run(["render", d + "/in.wav", "-o", d + "/tw.wav", "--preset", "active-speaker-2way", "--encoding", "float",
                                 "--outputs", "tweeter R,woofer L", "--json"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains(#""channelNames":["tweeter R","woofer L"]"#), "\(named.stdout)")
        let two = try SoundFileSamples.read(d + "/tw.wav")
        #expect(two.count == 2 && two[0] == whole[3] && two[1] == whole[0])
        let numbered = try CLI.run(["render", d + "/in.wav", "-o", d + "/n.wav", "--preset", "active-speaker-2way", "--encoding", "float", "--outputs", "3"])
        #expect(numbered.status == 0, "\(numbered.stderr)")
        #expect(numbered.stdout.contains("2→1 ch (tweeter L)"), "\(numbered.stdout)")
        #expect(try SoundFileSamples.read(d + "/n.wav") == [whole[2]])

        let bad = try CLI.run(["render", d + "/in.wav", "-o", d + "/bad.wav", "--preset", "active-speaker-2way", "--outputs", "tweeter,5"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains(#"output "tweeter" does not exist (the graph has 4 outputs: "woofer L", "woofer R", "tweeter L", "tweeter R" or 1…4) (--outputs)"#), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/bad.wav"))
        // With --normalize (a measuring pass, then the capture written): the same outputs, still
        // named and discrete, at the target.
        let normalized = try CLI.run(["render", d + "/in.wav", "-o", d + "/norm.wav", "--preset", "active-speaker-2way", "--outputs", "tweeter L,tweeter R",
                                      "--normalize", "-20", "--json"])
        #expect(normalized.status == 0 && normalized.stdout.contains(#""channelNames":["tweeter L","tweeter R"]"#), "\(normalized.stdout) \(normalized.stderr)")
        let all4 = try CLI.run(["render", d + "/in.wav", "-o", d + "/norm4.wav", "--preset", "active-speaker-2way", "--normalize", "-20"])
        #expect(all4.status == 0)
        #expect(try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "stream=channel_layout", "-of", "csv=p=0", d + "/norm4.wav"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "unknown", "discrete outputs stay discrete through --normalize")
        // Discrete outputs in FLAC, whose channel count fixes a speaker order: said, not hidden.
        let flac = try CLI.run(["render", d + "/in.wav", "-o", d + "/all.flac", "--preset", "active-speaker-2way"])
        #expect(flac.status == 0 && flac.stderr.contains("flac fixes a speaker order for 4 channels: players will take these discrete outputs (woofer L, woofer R, tweeter L, tweeter R) for speakers"), "\(flac.stderr)")
        let twice = try CLI.run(["render", d + "/in.wav", "-o", d + "/bad.wav", "--outputs", "1,1"])
        #expect(twice.status == 1 && twice.stderr.contains(#"output "1" is named twice"#), "\(twice.stderr)")
    }
}
