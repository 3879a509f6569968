import Foundation
import TimbreEngine

/// A minimal OSC 1.0 message decoder (address, type tags `s`, `f`, `i`, `d`, `T`, `F`), enough
/// for Timbre's control namespace:
///
/// ```
/// /timbre/set     s:"node.param" f:value
/// /timbre/bypass  s:"node" i:0|1 (or T/F)
/// /timbre/load    s:"/path/preset.json"
/// /timbre/status
/// ```
/// Strings are NUL-terminated and padded to 4 bytes; numbers are big-endian (OSC spec 1.0).
public struct OSCMessage: Equatable, Sendable {
    public enum Argument: Equatable, Sendable { case string(String), float(Float), int(Int32), double(Double), bool(Bool) }
    public var address: String
    public var arguments: [Argument]

    public init(address: String, arguments: [Argument]) { self.address = address; self.arguments = arguments }

    public static func parse(_ data: Data) throws(ControlError) -> OSCMessage {
        let bytes = [UInt8](data)
        var pos = 0
        func string() throws(ControlError) -> String {
            guard let end = bytes[pos...].firstIndex(of: 0) else { throw ControlError("OSC: unterminated string") }
            let s = String(decoding: bytes[pos..<end], as: UTF8.self)
            pos = (end + 4) & ~3
            return s
        }
        func word() throws(ControlError) -> UInt32 {
            guard pos + 4 <= bytes.count else { throw ControlError("OSC: truncated argument") }
            let v = UInt32(bytes[pos]) << 24 | UInt32(bytes[pos + 1]) << 16 | UInt32(bytes[pos + 2]) << 8 | UInt32(bytes[pos + 3])
            pos += 4
            return v
        }
        let address = try string()
        guard address.hasPrefix("/") else { throw ControlError("OSC: not a message (address \"\(address)\")") }
        var args: [Argument] = []
        if pos < bytes.count {
            let tags = try string()
            guard tags.hasPrefix(",") else { throw ControlError("OSC: missing type tags") }
            for t in tags.dropFirst() {
                switch t {
                case "s": args.append(.string(try string()))
                case "f": args.append(.float(Float(bitPattern: try word())))
                case "i": args.append(.int(Int32(bitPattern: try word())))
                case "d": let hi = UInt64(try word()), lo = UInt64(try word()); args.append(.double(Double(bitPattern: hi << 32 | lo)))
                case "T": args.append(.bool(true))
                case "F": args.append(.bool(false))
                default: throw ControlError("OSC: unsupported type tag '\(t)'")
                }
            }
        }
        return OSCMessage(address: address, arguments: args)
    }

    /// Encodes the message (used by tests and by anyone scripting Timbre from Swift).
    public func encoded() -> Data {
        func pad(_ s: String) -> [UInt8] { var b = Array(s.utf8) + [0]; while b.count % 4 != 0 { b.append(0) }; return b }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var tags = ",", payload: [UInt8] = []
        for a in arguments {
            switch a {
            case .string(let s): tags += "s"; payload += pad(s)
            case .float(let f): tags += "f"; payload += be(f.bitPattern)
            case .int(let i): tags += "i"; payload += be(UInt32(bitPattern: i))
            case .double(let d): tags += "d"; payload += be(UInt32(d.bitPattern >> 32)) + be(UInt32(d.bitPattern & 0xFFFF_FFFF))
            case .bool(let b): tags += b ? "T" : "F"
            }
        }
        return Data(pad(address) + pad(tags) + payload)
    }

    /// The control command this message asks for.
    public func command() throws(ControlError) -> ControlCommand {
        func number(_ a: Argument) -> Double? {
            switch a { case .float(let f): Double(f); case .int(let i): Double(i); case .double(let d): d; default: nil }
        }
        switch (address, arguments.count) {
        case ("/timbre/set", 2):
            guard case .string(let addr) = arguments[0], let v = number(arguments[1]) else { throw ControlError("OSC /timbre/set expects s:node.param f:value") }
            return .set(address: addr, value: v)
        case ("/timbre/bypass", 2):
            guard case .string(let node) = arguments[0] else { throw ControlError("OSC /timbre/bypass expects s:node i:0|1") }
            if case .bool(let b) = arguments[1] { return .bypass(node: node, on: b) }
            guard let v = number(arguments[1]) else { throw ControlError("OSC /timbre/bypass expects s:node i:0|1") }
            return .bypass(node: node, on: v != 0)
        case ("/timbre/load", 1):
            guard case .string(let path) = arguments[0] else { throw ControlError("OSC /timbre/load expects s:path") }
            return .load(path: path)
        case ("/timbre/status", 0): return .status
        default: throw ControlError("OSC: unknown message \(address) with \(arguments.count) arguments")
        }
    }
}
