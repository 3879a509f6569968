import Foundation
import Testing
import TimbreEngine
import TimbreControl

/// stdin commands and OSC messages parse to the same control commands.
@Suite struct ControlParsingTests {
    @Test func stdinCommands() throws {
        #expect(try ControlCommand.parse(line: "set eq.bands[3].gain -4.5") == .set(address: "eq.bands[3].gain", value: -4.5))
        #expect(try ControlCommand.parse(line: "bypass hpf on") == .bypass(node: "hpf", on: true))
        #expect(try ControlCommand.parse(line: "bypass hpf off") == .bypass(node: "hpf", on: false))
        #expect(try ControlCommand.parse(line: "load /tmp/my preset.json") == .load(path: "/tmp/my preset.json"))
        #expect(try ControlCommand.parse(line: "status") == .status)
        #expect(try ControlCommand.parse(line: #"insert 1 {"type": "gain", "id": "pad", "gain": -6}"#)
                == .insert(position: 1, node: .object(["type": .string("gain"), "id": .string("pad"), "gain": .number(-6)])))
        #expect(try ControlCommand.parse(line: "remove pad") == .remove(node: "pad"))
        #expect(try ControlCommand.parse(line: "quit") == .quit)
        #expect(try ControlCommand.parse(line: "   ") == nil)
        // A word is a choice (checked when applied: the decoder knows the allowed ones).
        #expect(try ControlCommand.parse(line: "set eq.bands[0].shape lowshelf") == .setValue(address: "eq.bands[0].shape", value: .string("lowshelf")))
        for bad in ["set x", "set a.b 1.2.3", "set a.b ?", "bypass a maybe", "dance", "set a.b nan", "insert x {}", "insert 0 {oops"] {
            #expect(throws: ControlError.self) { try ControlCommand.parse(line: bad) }
        }
    }

    /// Encoded bytes follow OSC 1.0 (padded strings, big-endian numbers) and decode back.
    @Test func oscRoundTrip() throws {
        let m = OSCMessage(address: "/timbre/set", arguments: [.string("trim.gain"), .float(-6)])
        let bytes = [UInt8](m.encoded())
        #expect(bytes.count % 4 == 0)
        #expect(Array(bytes[0..<12]) == Array("/timbre/set\0".utf8))
        #expect(Array(bytes[12..<16]) == Array(",sf\0".utf8))
        #expect(Array(bytes.suffix(4)) == [0xC0, 0xC0, 0x00, 0x00])  // -6.0f big-endian
        #expect(try OSCMessage.parse(Data(bytes)) == m)
        #expect(try OSCMessage.parse(Data(bytes)).command() == .set(address: "trim.gain", value: -6))
        let bypass = OSCMessage(address: "/timbre/bypass", arguments: [.string("hp"), .bool(true)])
        #expect(try OSCMessage.parse(bypass.encoded()).command() == .bypass(node: "hp", on: true))
        #expect(throws: ControlError.self) { try OSCMessage.parse(Data([0x2F, 0x61])) }
        #expect(throws: ControlError.self) { try OSCMessage(address: "/timbre/fly", arguments: []).command() }
    }
}
