import Foundation

/// Finds and runs programs for the tests: the built `timbre` binary and the oracles (sox, jack tools).
public enum ProcessRunner {
    public static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$TIMBRE_BIN`, else the release build, else the debug build.
    public static var timbreBinary: String {
        if let env = ProcessInfo.processInfo.environment["TIMBRE_BIN"] { return env }
        for config in ["release", "debug"] {
            let p = repoRoot.appendingPathComponent(".build/\(config)/timbre").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return "timbre"
    }

    public struct Result: Sendable { public var status: Int32; public var stdout: String; public var stderr: String }

    public struct Failed: Error, CustomStringConvertible {
        public var command: String; public var status: Int32; public var stderr: String
        public init(command: String, status: Int32, stderr: String) { self.command = command; self.status = status; self.stderr = stderr }
        public var description: String { "\(command) exited \(status): \(stderr.prefix(500))" }
    }

    /// Runs `executable` with `args`; returns its status and output (stdin is empty).
    public static func run(_ executable: String, _ args: [String], cwd: String? = nil, environment: [String: String]? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        p.arguments = executable.hasPrefix("/") ? args : [executable] + args
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        if let environment { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read both pipes concurrently so neither can fill up and block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let done = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        DispatchQueue.global().async { errBox.data = errHandle.readDataToEndOfFile(); done.signal() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// Starts a writer in `folder`, waits (up to 10 s) until `file` holds more than 16 KiB,
    /// and kills it with SIGKILL: mid-write, not before it began (a fixed sleep lost that race
    /// on a loaded machine). From Swift, not `sh -c "… & kill -9 $p; wait $p"`: a shell
    /// started from a test thread inherits its blocked SIGCHLD, and a `wait` that came before
    /// the child's death never returned.
    public static func killMidWrite(_ tool: String, _ args: [String], in folder: String, file: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        p.standardInput = FileHandle.nullDevice; p.standardOutput = FileHandle.nullDevice; p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.size]) as? Int ?? 0) <= 16_384 { usleep(5_000) }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    /// Runs a tool and throws ``Failed`` unless it exits 0; returns its stdout.
    @discardableResult
    public static func tool(_ executable: String, _ args: [String]) throws -> String {
        let r = try run(executable, args)
        guard r.status == 0 else { throw Failed(command: ([executable] + args).joined(separator: " "), status: r.status, stderr: r.stderr) }
        return r.stdout
    }

    /// A fresh temporary directory.
    /// A new folder under the system's temporary one, removed when the test process exits
    /// (a full run made a few hundred, some with 115 MB files; they filled the disk once).
    /// `TIMBRE_KEEP_TEST_FILES=1` keeps them for a look afterwards.
    public static func temporaryDirectory(_ prefix: String = "timbre-test") throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        TemporaryFolders.register(d)
        return d
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` seconds pass.
    public static func wait(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try condition() { return true }
            usleep(10_000)
        } while Date() < deadline
        return try condition()
    }
}

/// The folders `ProcessRunner.temporaryDirectory` made, removed at exit.
enum TemporaryFolders {
    nonisolated(unsafe) static var paths: [String] = []
    static let lock = NSLock()
    static let cleanupRegistered: Void = {
        guard ProcessInfo.processInfo.environment["TIMBRE_KEEP_TEST_FILES"] == nil else { return }
        atexit {
            TemporaryFolders.lock.lock()
            for path in TemporaryFolders.paths { try? FileManager.default.removeItem(atPath: path) }
            TemporaryFolders.lock.unlock()
        }
    }()

    static func register(_ path: String) {
        _ = cleanupRegistered
        lock.lock(); paths.append(path); lock.unlock()
    }
}
