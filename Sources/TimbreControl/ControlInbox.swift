import CTimbreSupport
import Foundation

/// Commands arriving from the stdin, OSC and control-socket threads, drained by the control
/// loop.
///
/// Bounded: beyond ``capacity`` waiting items new ones are dropped and counted, so a flood
/// of datagrams cannot grow memory without limit. The lock is held only to append or swap
/// the array; the audio thread never touches this.
package final class ControlInbox: @unchecked Sendable {
    package enum Item: Sendable {
        case line(String)
        /// An OSC datagram and where it came from (for replies).
        case packet(Data, from: OSCPeer? = nil)
        /// A line from a client of the control socket (replies go back to it).
        case socketLine(String, from: SocketClient)
        /// A page connected to the web surface (it gets the hello), and a page's message.
        case webConnected(Int)
        case webMessage(String, from: Int)
    }

    /// A connection to the control socket (``listenUnixSocket(path:)``).
    package struct SocketClient: Sendable, Hashable {
        let fd: Int32
    }

    /// The address of an OSC client, to answer `/timbre/status` and `/timbre/meters`.
    package struct OSCPeer: Sendable {
        let address: sockaddr_in
    }

    private var socketFD: Int32 = -1
    /// The control socket's path while it listens (removed by ``closeControlSocket()``).
    private var controlSocketPath: String?
    private var controlSocketFD: Int32 = -1
    private var socketClients: Set<Int32> = []
    /// Replies not yet taken by each client's socket, sent as it reads.
    private var outgoing: [Int32: [UInt8]] = [:]
    /// Replies a client may leave unread before it is disconnected.
    package static let maxUnreadReplyBytes = 4 << 20
    /// Connections accepted at once; more are told so and closed.
    package static let maxSocketClients = 16

    package let capacity: Int
    private var items: [Item] = []
    private var dropped = 0
    private let lock = NSLock()

    package init(capacity: Int = 4096) { self.capacity = capacity }

    /// Signalled by every push: the control loop sleeps on it between its turns.
    private let arrival = DispatchSemaphore(value: 0)

    /// Queues an item; returns false (and counts it) when the inbox is full.
    @discardableResult
    package func push(_ item: Item) -> Bool {
        lock.lock()
        guard items.count < capacity else { dropped += 1; lock.unlock(); return false }
        items.append(item)
        lock.unlock()
        arrival.signal()
        return true
    }

    /// Sleeps until an item arrives or `seconds` pass (the control loop's pace: commands are
    /// answered at once, and an idle host wakes only for its periodic work).
    package func wait(seconds: Double) {
        _ = arrival.wait(timeout: .now() + seconds)
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

    /// Listens on a Unix-domain stream socket at `path`, created with mode 0600 (only this
    /// user, and root, can connect) and removed by ``closeControlSocket()``. Each connection
    /// sends lines, the commands of stdin; replies go back with ``reply(line:to:)``.
    /// A connection from another user id (possible only for root) is refused. An existing
    /// file at `path` is never replaced, except a socket nothing listens on any more (a host
    /// that was killed).
    package func listenUnixSocket(path: String) throws(ControlError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw ControlError("\(path): a socket path has at most \(capacity - 1) bytes") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) } }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw ControlError("\(path) exists and is not a socket (never replaced)") }
            guard !Self.someoneListens(&address) else { throw ControlError("\(path): another process listens on it") }
            unlink(path)  // a stale socket of a host that was killed
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create a Unix-domain socket") }
        // Created 0600 from the start: no moment in which another user could connect.
        let previous = umask(0o177)
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        let why = String(cString: strerror(errno))
        umask(previous)
        guard rc == 0 else { close(fd); throw ControlError("cannot bind \(path): \(why)") }
        guard listen(fd, 8) == 0 else { close(fd); unlink(path); throw ControlError("cannot listen on \(path)") }
        lock.lock(); controlSocketPath = path; controlSocketFD = fd; lock.unlock()
        Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { if errno == EINTR || errno == ECONNABORTED { continue }; return }  // closed
                guard timbre_socket_peer_uid(client) == Int(geteuid()) else {
                    Self.send("error: this socket belongs to another user\n", to: client); close(client); continue
                }
                lock.lock()
                let admitted = socketClients.count < Self.maxSocketClients
                if admitted { socketClients.insert(client) }
                lock.unlock()
                guard admitted else {
                    Self.send("error: \(Self.maxSocketClients) clients are connected already\n", to: client); close(client); continue
                }
                Thread { [self] in readLines(from: client) }.start()
            }
        }.start()
    }

    /// Reads one connection's lines until it closes. A line longer than
    /// ``ControlCommand/maxLineBytes`` is queued as an over-long marker (refused by the parser)
    /// and its bytes are skipped up to the next newline.
    private func readLines(from fd: Int32) {
        let who = SocketClient(fd: fd)
        var pending: [UInt8] = []
        var overlong = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            var start = 0
            for i in 0..<n where buffer[i] == UInt8(ascii: "\n") {
                if !overlong { pending += buffer[start..<i] }
                push(.socketLine(overlong || pending.count > ControlCommand.maxLineBytes
                                 ? String(repeating: "x", count: ControlCommand.maxLineBytes + 1) : String(decoding: pending, as: UTF8.self), from: who))
                pending.removeAll(keepingCapacity: true); overlong = false
                start = i + 1
            }
            if !overlong { pending += buffer[start..<n] }
            if pending.count > ControlCommand.maxLineBytes { overlong = true; pending.removeAll() }
        }
        lock.lock(); socketClients.remove(fd); outgoing[fd] = nil; close(fd); lock.unlock()
    }

    /// Queues one line for a socket client and sends what its socket takes without waiting.
    /// The rest goes out with ``flushSocketReplies()``; a client that leaves more than
    /// ``maxUnreadReplyBytes`` unread is disconnected rather than allowed to stall the host.
    package func reply(line: String, to client: SocketClient) {
        lock.lock(); defer { lock.unlock() }
        guard socketClients.contains(client.fd) else { return }
        outgoing[client.fd, default: []] += Array((line + "\n").utf8)
        flush(client.fd)
    }

    /// Sends queued replies to every socket client whose socket has room (the control loop
    /// calls this each turn).
    package func flushSocketReplies() {
        lock.lock(); defer { lock.unlock() }
        for fd in outgoing.keys { flush(fd) }
    }

    /// With the lock held.
    private func flush(_ fd: Int32) {
        guard var bytes = outgoing[fd], !bytes.isEmpty else { return }
        let sent = Self.sendSome(bytes, to: fd)
        if sent < 0 { outgoing[fd] = nil; shutdown(fd, Int32(SHUT_RDWR)); return }
        bytes.removeFirst(sent)
        if bytes.count > Self.maxUnreadReplyBytes { outgoing[fd] = nil; shutdown(fd, Int32(SHUT_RDWR)); return }
        outgoing[fd] = bytes.isEmpty ? nil : bytes
    }

    /// Stops listening and removes the socket file (the open connections see end of file).
    package func closeControlSocket() {
        lock.lock(); let (path, fd, clients) = (controlSocketPath, controlSocketFD, socketClients); controlSocketPath = nil; controlSocketFD = -1; lock.unlock()
        guard let path else { return }
        unlink(path)
        shutdown(fd, Int32(SHUT_RDWR)); close(fd)
        for c in clients { shutdown(c, Int32(SHUT_RDWR)) }
    }

    /// The whole of `text`, or false when the socket would block or is gone.
    @discardableResult
    static func send(_ text: String, to fd: Int32) -> Bool {
        let bytes = Array(text.utf8)
        return sendSome(bytes, to: fd) == bytes.count
    }

    /// Sends as much of `bytes` as the socket takes without blocking: the count, or −1 when
    /// the connection is gone.
    static func sendSome(_ bytes: [UInt8], to fd: Int32) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            if n <= 0 { return -1 }
            sent += n
        }
        return sent
    }

    /// Whether a process accepts connections on the socket at `address`.
    static func someoneListens(_ address: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } } == 0
    }
}
