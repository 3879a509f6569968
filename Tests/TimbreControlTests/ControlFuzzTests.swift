import Foundation
import Testing
import TimbreControl
import TimbreEngine
import TimbreTestSupport

/// Seeded, reproducible fuzzing of the control parsers and the interpreter: random and
/// mutated OSC datagrams and stdin lines. Every input must be either applied or rejected
/// with one short message; none may crash, hang, or change the graph when rejected.
@Suite(.serialized) struct ControlFuzzTests {
    static func engine() throws -> LiveEngine {
        try LiveEngine(document: PresetDecoder.parse(Data(#"{"version": 1, "name": "fuzz", "chain": [{"type": "highpass", "id": "hp", "frequency": 60}, {"type": "eq", "id": "eq"}, {"type": "gain", "id": "trim", "gain": 0}]}"#.utf8)),
                       sampleRate: 48000, inputChannelCount: 2, outputChannelCount: 2, maxBlockFrames: 256)
    }

    /// 100,000 datagrams (random bytes, mutated valid messages, bundles) through the codec and
    /// the interpreter; 100,000 lines likewise. Counts outcomes; nothing may crash.
    @Test func datagramsAndLines() throws {
        let engine = try Self.engine()
        let interpreter = EveryNodePresets.interpreter(engine)
        var rng = SeededRandom(seed: 2026_11_22)
        var applied = 0, rejected = 0, longest = 0
        for k in 0..<100_000 {
            let data: Data = k % 4 == 0
                ? Data((0..<Int.random(in: 0...96, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
                : ControlFuzz.mutate(ControlFuzz.seeds[k % ControlFuzz.seeds.count], &rng)
            for r in interpreter.handle(.packet(data)) {
                switch r {
                case .success: applied += 1
                case .failure(let e): rejected += 1; longest = max(longest, e.message.count)
                }
            }
            if k % 1000 == 0 { engine.performHousekeeping() }
        }
        print("OSC fuzz: 100000 datagrams, \(applied) applied, \(rejected) rejected, longest message \(longest) characters")
        #expect(applied + rejected >= 99_000)
        // The longest is an unknown node type's, which lists every kind (43 names).
        #expect(longest < 600, "messages stay short")

        var lineApplied = 0, lineRejected = 0
        let alphabet = Array("setbypassloadinsertremovestatus .[]0123456789-+eE.naninfx\t{}\":,\u{FFFD}é\u{0}")
        for k in 0..<100_000 {
            var line: String
            if k % 3 == 0 {
                line = String((0..<Int.random(in: 0...60, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            } else {
                var chars = Array(ControlFuzz.lineSeeds[k % ControlFuzz.lineSeeds.count])
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let at = Int.random(in: 0...chars.count, using: &rng)
                    if Bool.random(using: &rng), !chars.isEmpty, at < chars.count { chars.remove(at: at) } else { chars.insert(alphabet.randomElement(using: &rng)!, at: at) }
                }
                line = String(chars)
            }
            if k == 777 { line = "set trim.gain " + String(repeating: "9", count: 1_000_000) }
            for r in interpreter.handle(.line(line)) {
                if case .success = r { lineApplied += 1 } else { lineRejected += 1 }
            }
            if k % 1000 == 0 { engine.performHousekeeping() }
        }
        print("Line fuzz: 100000 lines, \(lineApplied) applied, \(lineRejected) rejected")
        #expect(lineApplied + lineRejected >= 90_000)
    }

    /// The reported crashes and confusions, one by one.
    @Test func reportedInputs() throws {
        let engine = try Self.engine()
        let interpreter = EveryNodePresets.interpreter(engine)
        let before = engine.document
        func rejects(_ item: ControlInbox.Item, _ expected: String) {
            let results = interpreter.handle(item)
            guard results.count == 1, case .failure(let e) = results[0] else { Issue.record("accepted \(item): \(results)"); return }
            #expect(e.message.contains(expected), "\(e.message)")
        }
        // The 7-byte datagram: address "/", padding, then ",s" without its argument or padding.
        rejects(.packet(Data([0x2F, 0, 0, 0, 0x2C, 0x73, 0])), "lacks its padding")
        rejects(.packet(Data([0x2F, 0, 0, 0, 0x2C, 0x73, 0, 0])), "string argument at byte 8 has no NUL terminator")
        rejects(.packet(Data("/timbre/set\0,sf\0trim.gain".utf8)), "no NUL terminator")
        rejects(.packet(Data("/timbre/set\0,sf\0trim.gain\0\0".utf8)), "lacks its padding")
        rejects(.packet(OSCMessage(address: "/timbre/set", arguments: [.string("trim.gain"), .float(.nan)]).encoded()), "OSC /timbre/set: the value nan is not a finite number")
        rejects(.packet(OSCMessage(address: "/timbre/set", arguments: [.string("trim.gain"), .double(.infinity)]).encoded()), "not a finite number")
        rejects(.packet(OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .float(.nan)]).encoded()), "not a finite number")
        rejects(.packet(OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .float(0.5)]).encoded()), "must be 0 or 1")
        rejects(.packet(OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .int(2)]).encoded()), "must be 0 or 1")
        rejects(.packet(Data([0x2F, 0x61, 0, 0, 0x2C, 0x62, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF])), "blob")
        rejects(.packet(Data("#bundle\0".utf8) + Data(repeating: 0, count: 8) + Data([0, 0, 0, 99])), "bundle element")
        rejects(.line("bypass hp.x on"), "not a node id")
        rejects(.line("set trim.gain nan"), "not a decimal number")
        rejects(.line("set trim.gain inf"), "not a decimal number")
        rejects(.line("set trim.gain 0x1p3"), "not a decimal number")
        rejects(.line("set trim.gain 1e999"), "too large")
        rejects(.line("set trim.gain 1e308"), "out of range")
        rejects(.line("set trim.gain "), "wrong number of arguments")
        rejects(.line("set .gain 3"), "is not <node>.<parameter>")
        rejects(.line("set nosuch.gain 3"), "no node with id")
        rejects(.line("set trim.frequency 100"), "unknown key \"frequency\"")
        rejects(.line("set hp.bypass 0.5"), "a switch takes 0 (off) or 1 (on)")
        rejects(.line("set trim.gain " + String(repeating: "1", count: 1_000_000)), "refused")
        rejects(.line("set trim.gain \u{FFFD}"), "not valid UTF-8")
        rejects(.line("load /no/such/file.json"), "invalid JSON")
        rejects(.line("set eq.bands[0].shape wobble"), "chain[1].bands[0].shape: \"wobble\" is not a band shape (allowed \"peak\", \"lowshelf\", \"highshelf\")")
        rejects(.line("set trim.gain loud"), "chain[2].gain: expected a number, found a string \"loud\"")
        rejects(.packet(OSCMessage(address: "/timbre/set", arguments: [.string("hp.slope"), .string("steep")]).encoded()), "expected a number")
        #expect(engine.document == before, "rejected input leaves the graph unchanged")
        // −0 is zero; a whole bundle applies in order.
        #expect(try interpreter.perform(.set(address: "trim.gain", value: -0.0)) == .ok("set trim.gain 0"))
        let bundle = Data("#bundle\0".utf8) + Data(repeating: 0, count: 8)
            + Self.element(OSCMessage(address: "/timbre/set", arguments: [.string("trim.gain"), .float(-3)]))
            + Self.element(OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .bool(true)]))
        let results = interpreter.handle(.packet(bundle))
        #expect(results.count == 2 && results.allSatisfy { if case .success = $0 { true } else { false } }, "\(results)")
        #expect(engine.preset.allNodes[0].bypass)
    }

    static func element(_ m: OSCMessage) -> Data {
        let d = m.encoded()
        return Data([0, 0, UInt8(d.count >> 8), UInt8(d.count & 0xFF)]) + d
    }

    /// Errors are rate-limited: a flood prints at most 10 a second and then one summary.
    @Test func errorsAreRateLimited() {
        var r = RateLimitedReporter(limit: 10, interval: 1)
        var admitted = 0
        for _ in 0..<1000 where r.admit(now: 5.0) { admitted += 1 }
        #expect(admitted == 10)
        let early = r.flush(now: 5.5), late = r.flush(now: 6.0)
        #expect(early == nil)
        #expect(late == "990 more errors suppressed (at most 10 a second are shown)")
        let again = r.admit(now: 6.0)
        #expect(again)
    }
}
