import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `crossfeed` node (#40) against Debian's libbs2b (a harness in
/// `Tests/Fixtures/bs2b`, built here with cc): the same stereo noise through both, at libbs2b's
/// three named levels and the ends of its ranges, at 44.1 and 48 kHz; a centred signal's low
/// end kept at unity; the same bits for every block size; a mono chain refused.
@Suite(.serialized) struct CrossfeedNodeTests {
    static let l = Signals.noise(96_000, amplitude: 0.3, seed: 31), r = Signals.noise(96_000, amplitude: 0.3, seed: 32)

    static func render(_ node: String, input: [[Float]], rate: Double, block: Int = 512) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: input, block: block, rate: rate).output
    }

    /// libbs2b over `input` (interleaved float through the harness).
    static func libbs2b(_ input: [[Float]], rate: Int, frequency: Int, feedTenths: Int) throws -> [[Float]] {
        let d = try ProcessRunner.temporaryDirectory("timbre-bs2b")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let harness = d + "/bs2b_crossfeed"
        let source = ProcessRunner.repoRoot.appendingPathComponent("Tests/Fixtures/bs2b/bs2b_crossfeed.c").path
        _ = try ProcessRunner.tool("/usr/bin/cc", ["-O2", "-o", harness, source, "-lbs2b"])
        var interleaved = [Float](repeating: 0, count: 2 * input[0].count)
        for i in 0..<input[0].count { interleaved[2 * i] = input[0][i]; interleaved[2 * i + 1] = input[1][i] }
        _ = FileManager.default.createFile(atPath: d + "/in.f32", contents: interleaved.withUnsafeBytes { Data($0) })
        _ = try ProcessRunner.tool("/bin/sh", ["-c", "'\(harness)' \(rate) \(frequency) \(feedTenths) < '\(d)/in.f32' > '\(d)/out.f32'"])
        let out = (FileManager.default.contents(atPath: d + "/out.f32") ?? Data()).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return [stride(from: 0, to: out.count, by: 2).map { out[$0] }, stride(from: 1, to: out.count, by: 2).map { out[$0] }]
    }

    @Test(arguments: [(700, 45), (700, 60), (650, 95), (300, 10), (2000, 150)])
    func equalsLibbs2b(frequency: Int, feedTenths: Int) throws {
        for rate in [44_100, 48_000] {
            let node = #"{"type": "crossfeed", "frequency": \#(frequency), "feed": \#(Double(feedTenths) / 10)}"#
            let ours = try Self.render(node, input: [Self.l, Self.r], rate: Double(rate))
            let theirs = try Self.libbs2b([Self.l, Self.r], rate: rate, frequency: frequency, feedTenths: feedTenths)
            #expect(theirs[0].count == Self.l.count, "libbs2b wrote \(theirs[0].count) frames")
            var worst: Float = 0
            for c in 0..<2 { for i in 0..<min(ours[c].count, theirs[c].count) { worst = max(worst, abs(ours[c][i] - theirs[c][i])) } }
            print("crossfeed \(frequency) Hz, \(Double(feedTenths) / 10) dB at \(rate) Hz: largest difference from libbs2b \(worst) over 2 × \(Self.l.count) samples (peak 0.6)")
            #expect(worst < 1e-6)
        }
    }

    /// A centred (mono) 50 Hz sine comes out at its own level (the output gain's purpose),
    /// and one side alone reaches the other ear feed dB down at low frequencies.
    @Test func lowEndOfACentredSignalKeptAtUnity() throws {
        let sine = Signals.sine(48_000, hz: 50, amplitude: 0.25)
        let out = try Self.render(#"{"type": "crossfeed"}"#, input: [sine, sine], rate: 48_000)
        let fit = SineFit.fit(out[0], hz: 50, rate: 48_000, margin: 4800)
        print("crossfeed, centred 50 Hz at 0.25: out \(fit.amplitude)")
        #expect(abs(fit.amplitude / 0.25 - 1) < 0.005)
        let left = try Self.render(#"{"type": "crossfeed", "feed": 9.5}"#, input: [sine, [Float](repeating: 0, count: sine.count)], rate: 48_000)
        let direct = SineFit.fit(left[0], hz: 50, rate: 48_000, margin: 4800).amplitude, crossed = SineFit.fit(left[1], hz: 50, rate: 48_000, margin: 4800).amplitude
        let feed = 20 * log10(direct / crossed)
        print("crossfeed feed 9.5 dB: the crossed 50 Hz lies \(feed) dB below the direct")
        #expect(abs(feed - 9.5) < 0.2)
    }

    @Test func sameBitsForEveryBlockSizeAndStereoOnly() throws {
        let node = #"{"type": "crossfeed", "frequency": 650, "feed": 9.5}"#
        let reference = try Self.render(node, input: [Self.l, Self.r], rate: 48_000, block: 4096)
        for block in [1, 37, 256] {
            #expect(try Self.render(node, input: [Self.l, Self.r], rate: 48_000, block: block) == reference, "blocks of \(block)")
        }
        #expect(throws: (any Error).self) { try Self.render(node, input: [Self.l], rate: 48_000) }
    }
}
