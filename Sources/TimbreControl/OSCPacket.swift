import Foundation

/// A decoded OSC datagram: a message, or a bundle of packets with a time tag.
///
/// The decoder never trusts the datagram: every read is bounds-checked (``OSCReader``),
/// strings must carry their NUL terminator and padding and be valid UTF-8, blob sizes must
/// fit, bundle elements must be positive multiples of 4 that fit, and bundles nest at most
/// ``maxBundleDepth`` deep. Anything else is one ``ControlError`` naming the byte offset.
package enum OSCPacket: Equatable, Sendable {
    case message(OSCMessage)
    case bundle(timeTag: UInt64, elements: [OSCPacket])

    package static let maxBundleDepth = 8
    static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]

    package static func parse(_ data: Data) throws(ControlError) -> OSCPacket {
        let bytes = [UInt8](data)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ControlError) -> OSCPacket in
            var reader = OSCReader(bytes: buffer, start: 0, end: buffer.count)
            return try parse(&reader, depth: 0)
        }
    }

    static func parse(_ reader: inout OSCReader, depth: Int) throws(ControlError) -> OSCPacket {
        guard reader.remaining > 0 else { throw ControlError("OSC: empty packet") }
        if reader.peek == UInt8(ascii: "#") {
            guard reader.hasPrefix(bundleTag) else { throw ControlError("OSC: packet starts with '#' but is not a #bundle") }
            guard depth < maxBundleDepth else { throw ControlError("OSC: bundles nested deeper than \(maxBundleDepth)") }
            reader.skip(bundleTag.count)
            let timeTag = try reader.uint64("bundle time tag")
            var elements: [OSCPacket] = []
            while reader.remaining > 0 {
                let at = reader.position
                let size = Int(try reader.uint32("bundle element size"))
                guard size > 0, size % 4 == 0, size <= reader.remaining else {
                    throw ControlError("OSC: bundle element at byte \(at) has size \(size) (must be a positive multiple of 4 within the \(reader.remaining) bytes left)")
                }
                var element = reader.sub(size)
                elements.append(try parse(&element, depth: depth + 1))
                reader.skip(size)
            }
            return .bundle(timeTag: timeTag, elements: elements)
        }
        let address = try reader.string("address")
        guard address.hasPrefix("/") else { throw ControlError("OSC: address \(ControlError.quote(address)) does not start with '/'") }
        var args: [OSCMessage.Argument] = []
        if reader.remaining > 0 {
            let tags = try reader.string("type tags")
            guard tags.hasPrefix(",") else { throw ControlError("OSC: type tags \(ControlError.quote(tags)) do not start with ','") }
            for t in tags.utf8.dropFirst() {
                switch t {
                case UInt8(ascii: "s"), UInt8(ascii: "S"): args.append(.string(try reader.string("string argument")))
                case UInt8(ascii: "f"): args.append(.float(Float(bitPattern: try reader.uint32("float argument"))))
                case UInt8(ascii: "i"): args.append(.int(Int32(bitPattern: try reader.uint32("int argument"))))
                case UInt8(ascii: "d"): args.append(.double(Double(bitPattern: try reader.uint64("double argument"))))
                case UInt8(ascii: "h"): args.append(.int64(Int64(bitPattern: try reader.uint64("int64 argument"))))
                case UInt8(ascii: "t"): args.append(.timeTag(try reader.uint64("time tag argument")))
                case UInt8(ascii: "b"): args.append(.blob(try reader.blob()))
                case UInt8(ascii: "T"): args.append(.bool(true))
                case UInt8(ascii: "F"): args.append(.bool(false))
                case UInt8(ascii: "N"): args.append(.null)
                case UInt8(ascii: "I"): args.append(.impulse)
                default: throw ControlError("OSC: unsupported type tag \(ControlError.quote(String(decoding: [t], as: UTF8.self)))")
                }
            }
        }
        guard reader.remaining == 0 else { throw ControlError("OSC: \(reader.remaining) bytes after the last argument") }
        return .message(OSCMessage(address: address, arguments: args))
    }

    /// Every message of the packet in order (a bundle's elements depth-first).
    package var messages: [OSCMessage] {
        switch self {
        case .message(let m): [m]
        case .bundle(_, let elements): elements.flatMap(\.messages)
        }
    }

    static func padded(_ s: String) -> [UInt8] {
        var b = Array(s.utf8) + [0]
        while b.count % 4 != 0 { b.append(0) }
        return b
    }
    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func bigEndian(_ v: UInt64) -> [UInt8] { bigEndian(UInt32(v >> 32)) + bigEndian(UInt32(v & 0xFFFF_FFFF)) }
}

/// A bounds-checked cursor over a datagram: every read checks what is left first.
struct OSCReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    let end: Int

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) { self.bytes = bytes; position = start; self.end = end }

    var remaining: Int { end - position }
    var peek: UInt8? { position < end ? bytes[position] : nil }

    func hasPrefix(_ p: [UInt8]) -> Bool {
        guard remaining >= p.count else { return false }
        for (k, b) in p.enumerated() where bytes[position + k] != b { return false }
        return true
    }

    mutating func skip(_ n: Int) { position = min(end, position + n) }

    /// A reader over the next `n` bytes (caller checked `n <= remaining`).
    func sub(_ n: Int) -> OSCReader { OSCReader(bytes: bytes, start: position, end: position + n) }

    mutating func uint32(_ what: String) throws(ControlError) -> UInt32 {
        guard remaining >= 4 else { throw ControlError("OSC: \(what) at byte \(position) is truncated (\(remaining) of 4 bytes)") }
        let p = position
        position += 4
        return UInt32(bytes[p]) << 24 | UInt32(bytes[p + 1]) << 16 | UInt32(bytes[p + 2]) << 8 | UInt32(bytes[p + 3])
    }

    mutating func uint64(_ what: String) throws(ControlError) -> UInt64 {
        guard remaining >= 8 else { throw ControlError("OSC: \(what) at byte \(position) is truncated (\(remaining) of 8 bytes)") }
        let hi = UInt64(try uint32(what)), lo = UInt64(try uint32(what))
        return hi << 32 | lo
    }

    /// A NUL-terminated string padded to 4 bytes, valid UTF-8.
    mutating func string(_ what: String) throws(ControlError) -> String {
        let start = position
        var nul = start
        while nul < end && bytes[nul] != 0 { nul += 1 }
        guard nul < end else { throw ControlError("OSC: \(what) at byte \(start) has no NUL terminator") }
        let next = (nul + 4) & ~3
        guard next <= end else { throw ControlError("OSC: \(what) at byte \(start) lacks its padding to 4 bytes") }
        for k in nul..<next where bytes[k] != 0 { throw ControlError("OSC: \(what) at byte \(start) has non-NUL padding") }
        guard let s = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<nul]), as: UTF8.self) else {
            throw ControlError("OSC: \(what) at byte \(start) is not valid UTF-8")
        }
        position = next
        return s
    }

    mutating func blob() throws(ControlError) -> [UInt8] {
        let at = position
        let size = Int(try uint32("blob size"))
        let padded = (size + 3) & ~3
        guard size >= 0, padded <= remaining else {
            throw ControlError("OSC: blob at byte \(at) declares \(size) bytes but \(remaining) remain")
        }
        let b = Array(bytes[position..<(position + size)])
        position += padded
        return b
    }
}
