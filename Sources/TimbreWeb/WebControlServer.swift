import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import TimbreEngine

/// The web surface's server (`timbre live --http`): serves the page from the binary and
/// speaks the JSON protocol over a WebSocket at `/ws`, on SwiftNIO (one event-loop thread).
///
/// It decides nothing about the engine: each text message a page sends is handed to
/// `receive` (the control loop queues it) with the client's number, and the control loop
/// answers with ``send(_:to:)`` and ``broadcast(_:)``. Every request passes
/// ``WebAccessPolicy`` first. Bounds: GET and HEAD only, no bodies, messages up to 64 KiB,
/// 32 connections, and each connection at most ``messagesPerSecond`` messages a second
/// (more are answered with an error; a client that keeps on is disconnected).
package final class WebControlServer: @unchecked Sendable {
    /// A file of the page: its bytes and content type.
    package struct Asset: Sendable {
        package let contentType: String
        package let bytes: [UInt8]
        package init(contentType: String, bytes: [UInt8]) { self.contentType = contentType; self.bytes = bytes }
    }

    package let policy: WebAccessPolicy
    let assets: [String: Asset]
    let receive: @Sendable (String, Int) -> Void
    let connected: @Sendable (Int) -> Void
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var serverChannel: Channel?
    /// The event-loop thread's CPU-time clock (its cost, for `status`).
    package private(set) var threadClock: ThreadCPUClock?
    private let clients = NIOLockedValueBox<[Int: Channel]>([:])
    private let counter = NIOLockedValueBox(0)
    package static let maxMessageBytes = 1 << 16
    package static let maxClients = 32
    package static let messagesPerSecond = 200.0

    /// `assets`: path (`/`, `/app.js` …) to file. `connected(client)` and `receive(text,
    /// client)` are called on the event-loop thread when a page connects and for every text
    /// message it sends.
    package init(policy: WebAccessPolicy, assets: [String: Asset], connected: @escaping @Sendable (Int) -> Void,
                 receive: @escaping @Sendable (String, Int) -> Void) {
        self.policy = policy; self.assets = assets; self.connected = connected; self.receive = receive
    }

    /// Binds and starts serving; returns the bound port (useful with port 0).
    package func start() throws -> Int {
        let policy = self.policy, assets = self.assets
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: Self.maxMessageBytes,
                    shouldUpgrade: { channel, head in
                        let admitted = policy.refusal(head, upgrade: true) == nil && head.uri.split(separator: "?").first == "/ws"
                            && self.clients.withLockedValue { $0.count } < Self.maxClients
                        return channel.eventLoop.makeSucceededFuture(admitted ? HTTPHeaders() : nil)
                    },
                    upgradePipelineHandler: { channel, _ in
                        let id = self.counter.withLockedValue { $0 += 1; return $0 }
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: Self.maxMessageBytes))
                            try channel.pipeline.syncOperations.addHandler(WebSocketConnection(server: self, id: id))
                        }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { context in
                            // Upgraded: the page handler gives way to the WebSocket's.
                            context.pipeline.removeHandler(name: PageHandler.name, promise: nil)
                        }))
                    try channel.pipeline.syncOperations.addHandler(PageHandler(policy: policy, assets: assets), name: PageHandler.name)
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // A page that does not read: its frames queue up to 4 MiB, then it is closed.
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 1 << 20, high: 4 << 20))
        let channel = try bootstrap.bind(host: policy.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: policy.port).wait()
        serverChannel = channel
        threadClock = try? channel.eventLoop.submit { ThreadCPUClock.current }.wait()
        return channel.localAddress?.port ?? policy.port
    }

    /// Pages connected now.
    package var clientCount: Int { clients.withLockedValue { $0.count } }
    /// The connected clients' ids.
    package var clientIDs: Set<Int> { clients.withLockedValue { Set($0.keys) } }

    /// Sends a text message to one client (any thread; dropped if it is gone).
    package func send(_ text: String, to client: Int) {
        guard let channel = clients.withLockedValue({ $0[client] }) else { return }
        Self.write(text, on: channel)
    }

    /// Sends a text message to every client (but those in `except`): one hop onto the event
    /// loop for all of them, one buffer shared by their frames.
    package func broadcast(_ text: String, except: Set<Int> = []) {
        let all = clients.withLockedValue { $0.filter { !except.contains($0.key) }.map(\.value) }
        guard let loop = all.first?.eventLoop else { return }
        loop.execute {
            let buffer = all[0].allocator.buffer(string: text)
            for channel in all { Self.write(buffer, on: channel) }
        }
    }

    static func write(_ text: String, on channel: Channel) {
        write(channel.allocator.buffer(string: text), on: channel)
    }

    static func write(_ buffer: ByteBuffer, on channel: Channel) {
        guard channel.isActive else { return }
        // A page that does not read its frames is not waited for: past the high-water mark
        // (4 MiB queued) it is closed, and reconnects to a fresh state when it reads again.
        guard channel.isWritable else { channel.close(promise: nil); return }
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
    }

    func register(_ id: Int, _ channel: Channel) {
        clients.withLockedValue { $0[id] = channel }
        connected(id)
    }
    func unregister(_ id: Int) { _ = clients.withLockedValue { $0.removeValue(forKey: id) } }

    package func stop() {
        try? serverChannel?.close().wait()
        for channel in clients.withLockedValue({ Array($0.values) }) { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
    }
}

/// Serves the page's files (GET and HEAD), after the access policy.
final class PageHandler: ChannelInboundHandler, RemovableChannelHandler {
    static let name = "timbre-page"
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let policy: WebAccessPolicy
    let assets: [String: WebControlServer.Asset]
    private var head: HTTPRequestHead?

    init(policy: WebAccessPolicy, assets: [String: WebControlServer.Asset]) { self.policy = policy; self.assets = assets }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break  // GET and HEAD have none; a body is never read into memory
        case .end:
            guard let h = head else { return }
            head = nil
            respond(context, h)
        }
    }

    func respond(_ context: ChannelHandlerContext, _ h: HTTPRequestHead) {
        if let (status, reason) = policy.refusal(h, upgrade: false) { return send(context, h, status, "text/plain; charset=utf-8", Array((reason + "\n").utf8)) }
        guard h.method == .GET || h.method == .HEAD else { return send(context, h, .methodNotAllowed, "text/plain; charset=utf-8", Array("GET only\n".utf8)) }
        let path = String(h.uri.split(separator: "?", maxSplits: 1).first ?? "/")
        if path == "/ws" { return send(context, h, .forbidden, "text/plain; charset=utf-8", Array("WebSocket upgrade refused (Origin, token or too many pages)\n".utf8)) }
        guard let asset = assets[path] else { return send(context, h, .notFound, "text/plain; charset=utf-8", Array("not found\n".utf8)) }
        var extra = HTTPHeaders()
        // The page was opened with ?token=: remember it for its scripts and styles.
        if let token = policy.token, path == "/" { extra.add(name: "Set-Cookie", value: "timbre-token=\(token); Path=/; HttpOnly; SameSite=Strict") }
        send(context, h, .ok, asset.contentType, asset.bytes, extra)
    }

    func send(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ status: HTTPResponseStatus, _ type: String, _ body: [UInt8], _ extra: HTTPHeaders = [:]) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Content-Security-Policy", value: "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
        headers.add(contentsOf: extra)
        if status != .ok { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil) }
        let close = status != .ok || !request.isKeepAlive
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in if close { channel.close(promise: nil) } }
    }
}

/// One page's WebSocket: text messages go to the server's `receive`, rate-limited; pings are
/// answered; anything else closes the connection.
final class WebSocketConnection: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    unowned let server: WebControlServer
    let id: Int
    /// Token bucket: `messagesPerSecond` a second, as many at once.
    private var allowance = WebControlServer.messagesPerSecond
    private var last = NIODeadline.now()
    private var refusedInARow = 0

    init(server: WebControlServer, id: Int) { self.server = server; self.id = id }

    func handlerAdded(context: ChannelHandlerContext) { server.register(id, context.channel) }
    func handlerRemoved(context: ChannelHandlerContext) { server.unregister(id) }
    func channelInactive(context: ChannelHandlerContext) { server.unregister(id); context.fireChannelInactive() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let now = NIODeadline.now()
            allowance = min(WebControlServer.messagesPerSecond, allowance + Double((now - last).nanoseconds) / 1e9 * WebControlServer.messagesPerSecond)
            last = now
            guard allowance >= 1 else {
                refusedInARow += 1
                if refusedInARow > 1000 { close(context, code: .policyViolation) }
                else if refusedInARow == 1 || refusedInARow % 100 == 0 {
                    WebControlServer.write(#"{"v":1,"type":"reply","ok":false,"error":"too many messages: at most \#(Int(WebControlServer.messagesPerSecond)) a second"}"#, on: context.channel)
                }
                return
            }
            allowance -= 1; refusedInARow = 0
            var data = frame.unmaskedData
            let text = data.readString(length: data.readableBytes) ?? ""
            server.receive(text, id)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            close(context, code: .normalClosure)
        case .binary:
            WebControlServer.write(#"{"v":1,"type":"reply","ok":false,"error":"binary messages are not understood: send JSON text"}"#, on: context.channel)
        default:
            close(context, code: .protocolError)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        close(context, code: .unexpectedServerError)
    }

    private func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
