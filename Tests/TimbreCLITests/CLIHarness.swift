import Foundation

/// Runs the built `timbre` binary as a user would.
enum CLI {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$TIMBRE_BIN`, else the release build, else the debug build.
    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["TIMBRE_BIN"] { return env }
        for config in ["release", "debug"] {
            let p = repoRoot.appendingPathComponent(".build/\(config)/timbre").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return "timbre"
    }

    struct Result { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ args: [String], cwd: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Runs a tool (sox) and fails loudly if it is missing or fails.
    @discardableResult
    static func tool(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        if p.terminationStatus != 0 { throw ToolFailed(command: args.joined(separator: " "), status: p.terminationStatus) }
        return String(decoding: o, as: UTF8.self)
    }

    struct ToolFailed: Error { var command: String; var status: Int32 }

    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-cli-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static func write(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    static func listing(_ dir: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
    }
}
