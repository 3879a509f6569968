import Foundation
import Testing
import TimbreEngine
import TimbreTestSupport

/// A compressor keyed by another channel of a graph (`"key": "voice"`): music ducks under a
/// voice. Constant levels, so the gain is read exactly: the music's reduction is the static
/// curve at the key's level, the key's level being what the voice channel alone puts out.
@Suite struct DuckingTests {
    static let rate = 48_000.0

    static func graph(music chain: String, voiceMuted: Bool = true, musicMuted: Bool = false) throws -> Preset {
        try PresetDecoder.decode(Data(#"""
        {"version": 1, "name": "ducking", "graph": {"channels": [
          {"id": "voice", "input": [0], "mute": \#(voiceMuted)},
          {"id": "music", "input": [1], "mute": \#(musicMuted), "chain": [\#(chain)]}], "master": {"chain": []}}}
        """#.utf8))
    }

    /// Voice on for 0.5 s at −10 dBFS, off for 0.5 s, twice; music constant at −20 dBFS.
    static let voice: [Float] = (0..<96_000).map { ($0 / 24_000) % 2 == 0 ? 0.316_227_77 : 0 }
    static let music = [Float](repeating: 0.1, count: 96_000)

    static func db(_ x: Float) -> Double { 20 * log10(Double(abs(x))) }

    @Test func musicDucksUnderTheVoice() throws {
        let duck = #"{"type": "compressor", "id": "duck", "key": "voice", "threshold": -40, "ratio": "inf", "knee": 0, "attack": 1, "release": 20}"#
        // The key's level: the voice channel alone (music muted), after its pan, volume 1.
        let voiceAlone = try PresetRender.render(try Self.graph(music: "", voiceMuted: false, musicMuted: true), input: [Self.voice, Self.music], block: 256).output
        let keyLevel = Self.db(voiceAlone[0][20_000])
        // The music alone, unducked, and ducked.
        let dry = try PresetRender.render(try Self.graph(music: ""), input: [Self.voice, Self.music], block: 256).output
        let (ducked, plan) = try PresetRender.render(try Self.graph(music: duck), input: [Self.voice, Self.music], block: 256)
        let expected = -40 - keyLevel  // ∞:1, hard knee: the level is brought down to the threshold
        let during = Self.db(ducked[0][20_000]) - Self.db(dry[0][20_000])
        let after = Self.db(ducked[0][47_000]) - Self.db(dry[0][47_000])
        print(String(format: "ducking: key %.3f dBFS; music %.3f dB while the voice speaks (curve %.3f), %.4f dB after it stops", keyLevel, during, expected, after))
        #expect(abs(during - expected) < 0.01)
        #expect(abs(after) < 0.01, "the music comes back")
        let gr = plan.gainReductionStates.first { $0.key == "music/duck" }?.state.maximumDB ?? 0
        #expect(abs(gr + expected) < 0.05, "published reduction \(gr)")
        // Block size does not change it.
        for block in [1, 64, 4096] {
            #expect(try PresetRender.render(try Self.graph(music: duck), input: [Self.voice, Self.music], block: block).output == ducked, "block \(block)")
        }
    }

    /// A gate on the music keyed by the voice: open (0 dB) while the voice speaks, shut to its
    /// range once the voice stops (after hold and release), though the music itself never changes.
    @Test func gateKeyedByAnotherChannel() throws {
        let gate = #"{"type": "gate", "id": "g", "key": "voice", "threshold": -30, "range": 40, "attack": 0.5, "hold": 10, "release": 5, "hysteresis": 0}"#
        let dry = try PresetRender.render(try Self.graph(music: ""), input: [Self.voice, Self.music], block: 256).output
        let gated = try PresetRender.render(try Self.graph(music: gate), input: [Self.voice, Self.music], block: 256).output
        let open = Self.db(gated[0][20_000]) - Self.db(dry[0][20_000]), shut = Self.db(gated[0][47_000]) - Self.db(dry[0][47_000])
        print(String(format: "gate keyed by the voice: music %.4f dB while it speaks, %.3f dB after", open, shut))
        #expect(abs(open) < 0.01 && abs(shut + 40) < 0.01)
    }

    @Test func aKeyMustBeRenderedFirst() throws {
        let later = #"""
        {"version": 1, "name": "late key", "graph": {"channels": [
          {"id": "music", "input": [1], "chain": [{"type": "compressor", "key": "voice"}]},
          {"id": "voice", "input": [0]}], "master": {"chain": []}}}
        """#
        let p = try PresetDecoder.decode(Data(later.utf8))
        #expect { try RenderPlan(preset: p, format: RenderFormat(sampleRate: 48000, inputChannelCount: 2, maxBlockFrames: 64)) } throws: { e in
            "\(e)".contains("channels[0].chain[0].key") && "\(e)".contains("\"voice\"") && "\(e)".contains("earlier")
        }
        let chain = try PresetDecoder.decode(Data(#"{"version": 1, "name": "c", "chain": [{"type": "compressor", "key": "voice"}]}"#.utf8))
        #expect { try RenderPlan(preset: chain, format: RenderFormat(sampleRate: 48000, inputChannelCount: 2, maxBlockFrames: 64)) } throws: { e in
            "\(e)".contains("chain[0].key") && "\(e)".contains("graph")
        }
    }
}
