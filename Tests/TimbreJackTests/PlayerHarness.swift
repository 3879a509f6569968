import Foundation
import Testing
import TimbreTestSupport

/// A temporary folder for a player test's files and preset, removed with the value.
final class PlayerFolder {
    let path: String

    init(_ tag: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-\(tag)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a graph preset named `name` with these channels (JSON objects); returns its path.
    func preset(_ name: String, channels: String) throws -> String {
        let file = path + "/\(name).json"
        try Data(#"{"version": 1, "name": "\#(name)", "graph": {"channels": [\#(channels)]}}"#.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// `timbre live` on `preset` as client `tp`, once it said it is ready.
    static func live(_ preset: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> LiveProcess {
        let live = try LiveProcess(["--preset", preset, "--name", "tp"] + extra, environment: environment)
        #expect(live.waitForLine { $0.hasPrefix("ready:") } != nil, "stderr: \(live.errors)")
        return live
    }
}

extension TapClient {
    /// Connects a recorder's inputs to `client`'s outputs out_1, out_2.
    func connect(from client: String) throws {
        for k in 0..<2 { try jack.connect("\(client):out_\(k + 1)", portNames[k]) }
    }
}
