import Foundation
import NIOHTTP1
import Testing
import TimbreEngine
import TimbreTestSupport
import TimbreWeb

/// The page's protocol parser and the access policy, against messages and requests built here.
@Suite struct WebRequestTests {
    /// Every message docs/WEB.md shows a page sending parses.
    @Test func documentedMessagesParse() throws {
        let page = try String(contentsOf: ProcessRunner.repoRoot.appendingPathComponent("docs/WEB.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```json\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(blocks.count == 3)
        let parsed = try blocks.map { try WebRequest.parse($0) }
        #expect(parsed == [.command(id: 7, line: "set eq.bands[2].gain 3"), .set(id: 8, address: "eq.bands[0].shape", value: .string("lowshelf")),
                           .meters(id: 9, on: false)])
    }

    @Test(arguments: [
        ("", "not JSON"), ("[1]", "expected a JSON object, found an array"), (#"{"command": "status"}"#, "\"v\" must be 1"),
        (#"{"v": 2, "command": "status"}"#, "\"v\" must be 1"), (#"{"v": 1, "id": 1.5, "command": "status"}"#, "\"id\" must be a whole number"),
        (#"{"v": 1, "command": 3}"#, "\"command\" must be a string"), (#"{"v": 1, "set": "a.b"}"#, "\"set\" needs a \"value\""),
        (#"{"v": 1, "set": "a.b", "value": [1]}"#, "\"value\" must be a number, a string or true/false"),
        (#"{"v": 1, "meters": 1}"#, "\"meters\" must be true or false"), (#"{"v": 1, "command": "status", "x": 1}"#, "unknown key \"x\""),
        (#"{"v": 1}"#, "expected one of"),
    ])
    func malformedMessagesAreRefused(text: String, reason: String) {
        do { _ = try WebRequest.parse(text); Issue.record("accepted \(text)") } catch {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    /// The id of a refused message is kept when it could be read (the page matches the reply).
    @Test func refusedMessagesKeepTheirID() {
        do {
            _ = try WebRequest.parse(#"{"v": 1, "id": 42, "command": 3}"#)
            Issue.record("a numeric command was accepted")
        } catch { #expect(error.id == 42) }
    }

    static func head(_ uri: String = "/", host: String, origin: String? = nil, headers: [(String, String)] = []) -> HTTPRequestHead {
        var h = HTTPHeaders([("Host", host)] + headers)
        if let origin { h.add(name: "Origin", value: origin) }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: h)
    }

    @Test func accessPolicy() {
        let loop = WebAccessPolicy(host: "127.0.0.1", port: 8080, token: nil)
        #expect(loop.refusal(Self.head(host: "127.0.0.1:8080"), upgrade: false) == nil)
        #expect(loop.refusal(Self.head(host: "localhost:8080"), upgrade: false) == nil)
        #expect(loop.refusal(Self.head(host: "[::1]:8080"), upgrade: false) == nil)
        #expect(loop.refusal(Self.head(host: "evil.example:8080"), upgrade: false)?.0 == .forbidden, "DNS rebinding")
        #expect(loop.refusal(Self.head(host: "127.0.0.1:9999"), upgrade: false)?.0 == .forbidden)
        #expect(loop.refusal(Self.head("/ws", host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080"), upgrade: true) == nil)
        #expect(loop.refusal(Self.head("/ws", host: "127.0.0.1:8080", origin: "http://evil.example"), upgrade: true)?.0 == .forbidden)
        #expect(loop.refusal(Self.head("/ws", host: "127.0.0.1:8080", origin: "null"), upgrade: true)?.0 == .forbidden)
        let open = WebAccessPolicy(host: "0.0.0.0", port: 8080, token: "abc123")
        #expect(open.refusal(Self.head(host: "192.168.1.20:8080"), upgrade: false)?.0 == .unauthorized)
        #expect(open.refusal(Self.head("/?token=abc123", host: "192.168.1.20:8080"), upgrade: false) == nil)
        #expect(open.refusal(Self.head("/?token=abc124", host: "192.168.1.20:8080"), upgrade: false)?.0 == .unauthorized)
        #expect(open.refusal(Self.head(host: "192.168.1.20:8080", headers: [("Cookie", "a=b; timbre-token=abc123")]), upgrade: false) == nil)
        #expect(open.refusal(Self.head(host: "192.168.1.20:8080", headers: [("Authorization", "Bearer abc123")]), upgrade: false) == nil)
        #expect(open.refusal(Self.head("/ws?token=abc123", host: "192.168.1.20:8080", origin: "http://evil.example"), upgrade: true)?.0 == .forbidden)
        #expect(WebAccessPolicy.makeToken().count == 32 && WebAccessPolicy.makeToken() != WebAccessPolicy.makeToken())
    }
}
