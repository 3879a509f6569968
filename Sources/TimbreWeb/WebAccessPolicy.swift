import Foundation
import NIOHTTP1

/// Who may use the web surface (`timbre live --http`), decided per request before anything
/// else runs:
///
/// - **Host** (without a token): the `Host` header must name the address the server is bound
///   to (bound to loopback: `localhost`, `127.0.0.1` or `[::1]`) with its port. A page on
///   another site whose name resolves to this machine (DNS rebinding) sends its own name and
///   is refused. With a token any name will do: such a page does not have the token.
/// - **Token**: bound beyond loopback, every request and WebSocket upgrade must carry the
///   token (`?token=`, the `timbre-token` cookie the page sets, or `Authorization: Bearer`).
/// - **Origin**: a WebSocket upgrade from a browser must come from this server's own page
///   (its `Origin` is `http://` + the `Host`); another site open in the same browser cannot
///   drive the host. Clients that are not browsers send no `Origin`.
package struct WebAccessPolicy: Sendable {
    /// The bound host and port as the user gave them.
    package let host: String
    package let port: Int
    /// Required when not nil (always set for a non-loopback address).
    package let token: String?

    package init(host: String, port: Int, token: String?) {
        self.host = host; self.port = port; self.token = token
    }

    /// Loopback addresses (127.0.0.0/8, ::1, localhost): reachable from this machine only.
    package static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// Why a request is refused (status and a short reason), or nil when it may proceed.
    package func refusal(_ head: HTTPRequestHead, upgrade: Bool) -> (HTTPResponseStatus, String)? {
        let hostHeader = head.headers["Host"].first ?? ""
        if let token {
            if !presents(token, in: head) { return (.unauthorized, "a token is required (open the URL timbre live printed)") }
        } else if !allowedHosts.contains(hostHeader.lowercased()) {
            return (.forbidden, "unexpected Host \(hostHeader.prefix(80))")
        }
        if upgrade, let origin = head.headers["Origin"].first {
            guard origin == "http://" + hostHeader || origin == "https://" + hostHeader else {
                return (.forbidden, "cross-origin WebSocket from \(origin.prefix(80)) refused")
            }
        }
        return nil
    }

    /// `host:port` forms a browser sends for this server.
    var allowedHosts: Set<String> {
        var names = [host.lowercased()]
        if Self.isLoopback(host) { names += ["localhost", "127.0.0.1", "[::1]"] }
        if host.contains(":") && !host.hasPrefix("[") { names.append("[\(host)]") }
        return Set(names.map { "\($0):\(port)" })
    }

    func presents(_ token: String, in head: HTTPRequestHead) -> Bool {
        var offered: [String] = []
        if let query = URLComponents(string: head.uri)?.queryItems { offered += query.filter { $0.name == "token" }.compactMap(\.value) }
        for cookie in head.headers["Cookie"] {
            for part in cookie.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == "timbre-token" { offered.append(String(kv[1])) }
            }
        }
        for auth in head.headers["Authorization"] where auth.hasPrefix("Bearer ") { offered.append(String(auth.dropFirst(7))) }
        return offered.contains { Self.constantTimeEqual($0, token) }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// 128 random bits as 32 hex digits.
    package static func makeToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }
}
