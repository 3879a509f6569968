import Foundation

/// Commands arriving from the stdin and OSC threads, drained by the control loop.
///
/// Bounded: beyond ``capacity`` waiting items new ones are dropped and counted, so a flood
/// of datagrams cannot grow memory without limit. The lock is held only to append or swap
/// the array; the audio thread never touches this.
package final class ControlInbox: @unchecked Sendable {
    package enum Item: Sendable {
        case line(String)
        /// An OSC datagram and where it came from (for replies).
        case packet(Data, from: OSCPeer? = nil)
    }

    /// The address of an OSC client, to answer `/timbre/status` and `/timbre/meters`.
    package struct OSCPeer: Sendable {
        let address: sockaddr_in
    }

    private var socketFD: Int32 = -1

    package let capacity: Int
    private var items: [Item] = []
    private var dropped = 0
    private let lock = NSLock()

    package init(capacity: Int = 4096) { self.capacity = capacity }

    /// Queues an item; returns false (and counts it) when the inbox is full.
    @discardableResult
    package func push(_ item: Item) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard items.count < capacity else { dropped += 1; return false }
        items.append(item)
        return true
    }

    /// Everything waiting, and how many items were dropped since the last drain.
    package func drain() -> (items: [Item], dropped: Int) {
        lock.lock(); defer { lock.unlock() }
        let out = (items, dropped)
        items = []; dropped = 0
        return out
    }

    /// Reads stdin line by line on a thread of its own. Lines longer than
    /// ``ControlCommand/maxLineBytes`` are queued truncated (the parser refuses them).
    package func readStandardInput() {
        let t = Thread { [self] in
            while let line = readLine(strippingNewline: true) {
                // Keep the queue small: a 1 MB line is refused by length, its text not kept.
                push(.line(line.utf8.count > ControlCommand.maxLineBytes ? String(repeating: "x", count: ControlCommand.maxLineBytes + 1) : line))
            }
        }
        t.start()
    }

    /// Sends `message` to `peer` from the listening socket (best effort: UDP).
    package func reply(_ message: OSCMessage, to peer: OSCPeer) {
        guard socketFD >= 0 else { return }
        let bytes = [UInt8](message.encoded())
        var address = peer.address
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(socketFD, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Binds a UDP socket on 127.0.0.1:`port` and queues every datagram received (parsed on
    /// the control thread).
    package func listenOSC(port: UInt16) throws(ControlError) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create a UDP socket") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { close(fd); throw ControlError("cannot bind 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        socketFD = fd
        let t = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                var from = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let n = withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
                }
                if n < 0 { if errno == EINTR { continue }; usleep(1000); continue }
                push(.packet(Data(buffer[0..<n]), from: OSCPeer(address: from)))
            }
        }
        t.start()
    }
}
