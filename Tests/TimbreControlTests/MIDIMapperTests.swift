import Foundation
import Testing
import TimbreControl
import TimbreEngine
import TimbreTestSupport

/// The `midi` section's decoding and the mapper's arithmetic, against values computed here.
@Suite struct MIDIMapperTests {
    static func preset(_ midi: String) throws -> Preset {
        try PresetDecoder.decode(Data(#"{"version": 1, "name": "m", "chain": [{"type": "gain", "id": "trim", "gain": 0}, {"type": "eq", "id": "eq", "bands": [{"frequency": 1000, "gain": 0}]}], "midi": \#(midi)}"#.utf8))
    }

    /// Bad mappings are refused with the JSON path, the value and what is allowed.
    @Test(arguments: [
        (#"[{"cc": 200, "target": "trim.gain"}]"#, "midi[0].cc: 200 is out of range (allowed 0…127)"),
        (#"[{"cc": 40, "bits": 14, "target": "trim.gain"}]"#, "midi[0].cc: 40 is out of range (allowed 0…31)"),
        (#"[{"cc": 1, "note": 2, "target": "trim.gain"}]"#, "midi[0]: give one of \"cc\", \"note\" or \"program\""),
        (#"[{"cc": 1, "target": "trim"}]"#, "midi[0].target: \"trim\" is not <node>.<parameter>"),
        (#"[{"cc": 1, "target": "eq.bands[0].frequency", "min": 0, "max": 100, "curve": "log"}]"#, "midi[0].curve: a log curve needs min and max above 0"),
        (#"[{"note": 60, "command": "quit"}]"#, "midi[0].command: \"quit\": a MIDI mapping runs bypass, load, pause, play, seek, set, stop"),
        (#"[{"program": 1, "command": "play x", "release": "stop x"}]"#, "midi[0].release: only a note has a release"),
        (#"[{"cc": 1, "target": "trim.gain", "channel": 17}]"#, "midi[0].channel: 17 is out of range (allowed 1…16)"),
        (#"[{"cc": 1, "target": "trim.gain", "speed": 2}]"#, "midi[0].speed: unknown key \"speed\""),
    ])
    func badMappingsAreRefused(json: String, message: String) {
        do { _ = try Self.preset(json); Issue.record("accepted \(json)") } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func curvesFourteenBitsChannelsAndCoalescing() throws {
        let p = try Self.preset(#"""
            [{"cc": 7, "target": "trim.gain", "min": -40, "max": 0},
             {"cc": 3, "bits": 14, "target": "eq.bands[0].frequency", "min": 20, "max": 20000, "curve": "log"},
             {"cc": 8, "channel": 5, "target": "trim.gain", "min": -60, "max": 6, "curve": "db"},
             {"note": 61, "command": "bypass eq on", "release": "bypass eq off"}]
            """#)
        let again = try PresetDecoder.decode(PresetEncoder.encode(p))
        #expect(again == p, "the section round-trips")
        let mapper = MIDIMapper(mappings: p.midi, range: { MIDIMapper.defaultRange($0, in: p) })
        mapper.interval = 0.02
        // Linear: every 7-bit value, the last one wins within an interval.
        for v in 0...127 { _ = mapper.receive([0xB0, 7, UInt8(v)]) }
        #expect(mapper.due(now: 0) == [.set(address: "trim.gain", value: 0)])
        _ = mapper.receive([0xB0, 7, 50])
        #expect(mapper.due(now: 0.01).isEmpty, "within the interval: held")
        let fifty: Double = ((-40 + 40 * 50 / 127.0) * 1e6).rounded() / 1e6
        #expect(mapper.due(now: 0.02) == [.set(address: "trim.gain", value: fifty)])
        // 14-bit log: every MSB/LSB pair on a grid, against 20·1000^(v/16383).
        var worst = 0.0
        var now = 1.0
        for v in stride(from: 0, through: 16383, by: 97) {
            _ = mapper.receive([0xB0, 3, UInt8(v >> 7)])
            _ = mapper.receive([0xB0, 35, UInt8(v & 127)])
            guard case .set(_, let got)? = mapper.due(now: now).first else { Issue.record("no edit at \(v)"); return }
            worst = max(worst, abs(got - 20 * pow(1000, Double(v) / 16383)))
            now += 1
        }
        // The mapper keeps six decimal places (what a typed `set` reads back).
        print("14-bit log mapping over 169 positions: worst error \(worst) Hz")
        #expect(worst <= 5.0001e-7)
        // dB curve on channel 5 only: 0 at the bottom, 10^(dB/20) elsewhere.
        _ = mapper.receive([0xB0, 8, 127])
        #expect(mapper.due(now: now).isEmpty, "channel 1 is not channel 5")
        _ = mapper.receive([0xB4, 8, 0])
        #expect(mapper.due(now: now) == [.set(address: "trim.gain", value: 0)])
        now += 1
        _ = mapper.receive([0xB4, 8, 127])
        let plus6: Double = (pow(10, 6.0 / 20) * 1e6).rounded() / 1e6
        #expect(mapper.due(now: now) == [.set(address: "trim.gain", value: plus6)])
        // Notes: on runs the command, off (or on at velocity 0) the release.
        #expect(mapper.receive([0x90, 61, 1]) == [.command("bypass eq on")])
        #expect(mapper.receive([0x90, 61, 0]) == [.command("bypass eq off")])
        #expect(mapper.receive([0x80, 61, 64]) == [.command("bypass eq off")])
    }

    /// 200,000 random byte strings: nothing but the mapped messages does anything, and every
    /// value stays inside its mapping's range.
    @Test func randomBytes() throws {
        let p = try Self.preset(#"[{"cc": 7, "target": "trim.gain", "min": -40, "max": 0}, {"cc": 1, "bits": 14, "target": "eq.bands[0].frequency", "curve": "log"}]"#)
        let mapper = MIDIMapper(mappings: p.midi, range: { MIDIMapper.defaultRange($0, in: p) })
        mapper.interval = 0
        var rng = SeededRandom(seed: 5)
        var edits = 0
        for k in 0..<200_000 {
            let m = (0..<Int.random(in: 1...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(mapper.receive(m).isEmpty)
            for case .set(let address, let value) in mapper.due(now: Double(k)) {
                edits += 1
                if address == "trim.gain" { #expect((-40...0).contains(value)) } else { #expect((20...20000).contains(value), "\(value)") }
            }
        }
        print("200,000 random MIDI byte strings: \(edits) edits, all in range")
        #expect(edits > 0)
    }
}
