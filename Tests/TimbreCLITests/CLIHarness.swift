import Foundation
import TimbreTestSupport

/// Runs the built `timbre` binary as a user would (through the shared ``ProcessRunner``).
enum CLI {
    static var binary: String { ProcessRunner.timbreBinary }

    typealias Result = ProcessRunner.Result

    static func run(_ args: [String], cwd: String? = nil) throws -> Result {
        try ProcessRunner.run(binary, args, cwd: cwd)
    }

    /// Runs a tool (sox) and throws if it is missing or fails.
    @discardableResult
    static func tool(_ args: [String]) throws -> String {
        try ProcessRunner.tool(args[0], Array(args.dropFirst()))
    }

    static func tempDir() throws -> String { try ProcessRunner.temporaryDirectory("timbre-cli") }

    static func write(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    static func listing(_ dir: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
    }
}
