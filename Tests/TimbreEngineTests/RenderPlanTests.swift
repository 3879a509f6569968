import Foundation
import Testing
import TimbreTestSupport
import TimbreDSP
import TimbreEngine

/// The compiled plan: block-size invariance, channel handling, Nyquist checks.
@Suite struct RenderPlanTests {
    static let preset = try! PresetDecoder.decode(Data("""
    {"version": 1, "name": "all", "chain": [
      {"type": "highpass", "frequency": 40, "slope": 24},
      {"type": "eq", "bands": [{"frequency": 200, "gain": -3}, {"frequency": 3000, "gain": 4, "q": 2}, {"frequency": 12000, "gain": 2, "shape": "highshelf"}]},
      {"type": "lowshelf", "frequency": 100, "gain": 3},
      {"type": "notch", "frequency": 50, "q": 8},
      {"type": "gain", "gain": -2},
      {"type": "pan", "pan": 0.3}
    ]}
    """.utf8))

    static func render(_ preset: Preset, input: [[Float]], block: Int, rate: Double = 48000) throws -> [[Float]] {
        try PresetRender.render(preset, input: input, block: block, rate: rate).output
    }

    static func noise(_ n: Int, seed: UInt64) -> [Float] { Signals.noise(n, amplitude: 0.4, seed: seed) }

    /// Blocks of 1, 17, 64, 256 and 4096 frames give bit-identical output (mono→stereo and stereo).
    @Test(arguments: [1, 2])
    func outputDoesNotDependOnBlockSize(channels: Int) throws {
        let input = (0..<channels).map { Self.noise(20000, seed: UInt64($0 + 3)) }
        let reference = try Self.render(Self.preset, input: input, block: 4096)
        #expect(reference.count == 2)
        for block in [1, 17, 64, 256] {
            #expect(try Self.render(Self.preset, input: input, block: block) == reference, "block \(block)")
        }
    }

    @Test func monoThroughPanBecomesStereo() throws {
        let p = try PresetDecoder.decode(Data(#"{"version":1,"name":"p","chain":[{"type":"pan","pan":-1}]}"#.utf8))
        let out = try Self.render(p, input: [[0.5, 0.25, -0.5]], block: 64)
        #expect(out.count == 2 && out[0] == [0.5, 0.25, -0.5] && out[1].allSatisfy { abs($0) < 1e-7 })
    }

    @Test func flatEQIsIdentity() throws {
        let p = try PresetDecoder.decode(Data(#"{"version":1,"name":"f","chain":[{"type":"eq"}]}"#.utf8))
        let input = [Self.noise(5000, seed: 1), Self.noise(5000, seed: 2)]
        #expect(try Self.render(p, input: input, block: 256) == input)
    }

    @Test func bypassedNodesAreSkipped() throws {
        let p = try PresetDecoder.decode(Data(#"{"version":1,"name":"b","chain":[{"type":"gain","gain":-20,"bypass":true}]}"#.utf8))
        let input = [Self.noise(1000, seed: 5)]
        #expect(try Self.render(p, input: input, block: 100) == input)
    }

    /// A high-pass at or above 0.49·fs is an error naming it and the sample rate; an EQ whose
    /// 16 kHz band is above a 32 kHz rate's limit compiles (the band is fitted below Nyquist;
    /// PresetsAtEveryRateTests judges how well).
    @Test func highPassAboveNyquistIsAnError() throws {
        let eq = try PresetDecoder.decode(Data(#"{"version":1,"name":"n","chain":[{"type":"gain"},{"type":"eq"}]}"#.utf8))
        _ = try RenderPlan(preset: eq, format: RenderFormat(sampleRate: 32000, inputChannelCount: 1))
        let p = try PresetDecoder.decode(Data(#"{"version":1,"name":"n","chain":[{"type":"gain"},{"type":"highpass","frequency":16000}]}"#.utf8))
        #expect(throws: PresetError.self) { try RenderPlan(preset: p, format: RenderFormat(sampleRate: 32000, inputChannelCount: 1)) }
        do {
            _ = try RenderPlan(preset: p, format: RenderFormat(sampleRate: 32000, inputChannelCount: 1))
        } catch {
            #expect(error.path == "chain[1].frequency")
            #expect(error.message.contains("32000"), "\(error.message)")
        }
    }

    @Test func panOnMultichannelIsAnError() throws {
        let p = try PresetDecoder.decode(Data(#"{"version":1,"name":"p","chain":[{"type":"pan"}]}"#.utf8))
        #expect(throws: PresetError.self) { try RenderPlan(preset: p, format: RenderFormat(sampleRate: 48000, inputChannelCount: 6)) }
    }

    /// The rendered chain equals the product of its parts' analytic responses (a 1 kHz sine's
    /// steady-state level through the whole plan vs `Preset.magnitudeDB`).
    @Test func renderedLevelMatchesResponse() throws {
        let p = try PresetDecoder.decode(Data(#"{"version":1,"name":"r","chain":[{"type":"peak","frequency":1000,"gain":6,"q":1},{"type":"gain","gain":-2}]}"#.utf8))
        let n = 48000
        let sine = (0..<n).map { Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        let out = try Self.render(p, input: [sine], block: 512)
        let peak = out[0][24000...].map { abs($0) }.max()!
        let db = 20 * log10(Double(peak) / 0.25)
        #expect(abs(db - p.magnitudeDB(at: 1000, sampleRate: 48000)) < 0.01 && abs(db - 4) < 0.01)
    }
}
