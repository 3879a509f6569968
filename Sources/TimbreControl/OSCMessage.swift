import Foundation

/// An OSC 1.0 message: an address pattern and typed arguments.
///
/// Wire format (OSC 1.0 specification): the address and the type-tag string (`,` then one
/// character per argument) are NUL-terminated and padded with NULs to a multiple of 4
/// bytes; `i`/`f` are 4-byte big-endian, `h`/`d`/`t` 8-byte big-endian, `s`/`S` padded
/// strings, `b` a 4-byte size then the bytes padded to 4; `T`, `F`, `N`, `I` carry no data.
///
/// ```
/// /timbre/set\0 ,sf\0 trim.gain\0\0\0 <f32 BE>
/// 0           12   16               28       32
/// ```
public struct OSCMessage: Equatable, Sendable {
    public enum Argument: Equatable, Sendable {
        case string(String), float(Float), int(Int32), double(Double), int64(Int64), timeTag(UInt64)
        case bool(Bool), blob([UInt8]), null, impulse
    }
    public var address: String
    public var arguments: [Argument]

    public init(address: String, arguments: [Argument]) { self.address = address; self.arguments = arguments }

    /// Decodes one message (not a bundle; see `OSCPacket/parse(_:)` for datagrams).
    public static func parse(_ data: Data) throws(ControlError) -> OSCMessage {
        guard case .message(let m) = try OSCPacket.parse(data) else { throw ControlError("OSC: expected a message, got a bundle") }
        return m
    }

    /// Encodes the message (used by tests and by anyone scripting Timbre from Swift).
    public func encoded() -> Data {
        var tags = ",", payload: [UInt8] = []
        for a in arguments {
            switch a {
            case .string(let s): tags += "s"; payload += OSCPacket.padded(s)
            case .float(let f): tags += "f"; payload += OSCPacket.bigEndian(f.bitPattern)
            case .int(let i): tags += "i"; payload += OSCPacket.bigEndian(UInt32(bitPattern: i))
            case .double(let d): tags += "d"; payload += OSCPacket.bigEndian(d.bitPattern)
            case .int64(let i): tags += "h"; payload += OSCPacket.bigEndian(UInt64(bitPattern: i))
            case .timeTag(let t): tags += "t"; payload += OSCPacket.bigEndian(t)
            case .bool(let b): tags += b ? "T" : "F"
            case .blob(let b):
                tags += "b"; payload += OSCPacket.bigEndian(UInt32(b.count)) + b
                while payload.count % 4 != 0 { payload.append(0) }
            case .null: tags += "N"
            case .impulse: tags += "I"
            }
        }
        return Data(OSCPacket.padded(address) + OSCPacket.padded(tags) + payload)
    }
}
