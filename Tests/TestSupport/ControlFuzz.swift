import Foundation
import TimbreControl

/// Inputs for fuzzing the control plane, shared by the parser fuzz tests and the fuzz run
/// against a live `timbre live` under jackd.
public enum ControlFuzz {
    /// Valid OSC messages to mutate.
    public static let seeds: [Data] = [
        OSCMessage(address: "/timbre/set", arguments: [.string("eq.bands[2].gain"), .float(3)]).encoded(),
        OSCMessage(address: "/timbre/set", arguments: [.string("trim.gain"), .double(-6)]).encoded(),
        OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .int(1)]).encoded(),
        OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .bool(false)]).encoded(),
        OSCMessage(address: "/timbre/status", arguments: []).encoded(),
        OSCMessage(address: "/timbre/remove", arguments: [.string("nope")]).encoded(),
        OSCMessage(address: "/timbre/insert", arguments: [.int(0), .string(#"{"type": "gain", "id": "pad", "gain": -3}"#)]).encoded(),
        OSCMessage(address: "/x", arguments: [.blob([1, 2, 3, 4, 5]), .int64(7), .timeTag(1), .null, .impulse]).encoded(),
        Data("#bundle\0".utf8) + Data(repeating: 0, count: 8) + Data([0, 0, 0, 20]) + OSCMessage(address: "/timbre/status", arguments: []).encoded()
            + Data(repeating: 0, count: 0),
    ]

    public static let lineSeeds = [
        "set eq.bands[2].gain 3", "set trim.gain -6", "bypass hp on", "bypass hp off", "status",
        "set trim.gain 1e308", "set trim.gain nan", "set trim.gain 0x1p3", "set trim.gain -0", "bypass hp.x on",
        #"insert 0 {"type": "gain", "id": "pad", "gain": -3}"#, "remove pad", "set hp.frequency 20000", "load /nonexistent.json",
    ]

    /// One random mutation: truncation anywhere, a random byte, bit flips, inserted bytes,
    /// a wild length word, or random bytes appended.
    public static func mutate(_ d: Data, _ rng: inout SeededRandom) -> Data {
        var b = [UInt8](d)
        switch Int.random(in: 0..<6, using: &rng) {
        case 0 where !b.isEmpty: b.removeLast(Int.random(in: 1...b.count, using: &rng))       // truncate anywhere
        case 1 where !b.isEmpty: b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        case 2 where !b.isEmpty: for _ in 0..<4 { b[Int.random(in: 0..<b.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng)) }
        case 3: b.insert(contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: Int.random(in: 0...b.count, using: &rng))
        case 4 where b.count >= 8: b.replaceSubrange(0..<4, with: [0, 0, 0, 0x7F])              // sizes and lengths go wild
        default: b += (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        return Data(b)
    }


    /// A random datagram: every fourth one pure noise, the rest mutated valid messages.
    public static func datagram(_ k: Int, _ rng: inout SeededRandom) -> Data {
        k % 4 == 0
            ? Data((0..<Int.random(in: 0...96, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            : mutate(seeds[k % seeds.count], &rng)
    }

    /// A random line: every third one random characters, the rest mutated valid commands.
    public static func line(_ k: Int, _ rng: inout SeededRandom) -> String {
        let alphabet = Array("setbypassloadinsertremovestatus .[]0123456789-+eE.naninfx\t{}\":,\u{FFFD}é")
        if k % 3 == 0 { return String((0..<Int.random(in: 0...60, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
        var chars = Array(lineSeeds[k % lineSeeds.count])
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let at = Int.random(in: 0...chars.count, using: &rng)
            if Bool.random(using: &rng), at < chars.count { chars.remove(at: at) } else { chars.insert(alphabet.randomElement(using: &rng)!, at: at) }
        }
        return String(chars)
    }
}
