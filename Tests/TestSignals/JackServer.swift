import Foundation

/// A private `jackd --no-realtime -d dummy` server for one test, found by its unique name
/// through JACK_DEFAULT_SERVER (set in this process and passed to children).
public final class JackServer {
    public let name: String
    public let process: Process
    nonisolated(unsafe) static var counter = 0

    /// Starts `jackd` (dummy backend, `rate` Hz, `bufferSize`-frame periods) named
    /// `<prefix>-<pid>-<n>` and waits until it answers (`jack_wait`).
    public init(bufferSize: Int = 256, rate: Int = 48_000, prefix: String = "timbre-test") throws {
        Self.counter += 1
        name = "\(prefix)-\(getpid())-\(Self.counter)"
        setenv("JACK_DEFAULT_SERVER", name, 1)
        setenv("JACK_NO_AUDIO_RESERVATION", "1", 1)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        process.arguments = ["--no-realtime", "--sync", "-n", name, "-d", "dummy", "-r", "\(rate)", "-p", "\(bufferSize)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let wait = Process()
        wait.executableURL = URL(fileURLWithPath: "/usr/bin/jack_wait")
        wait.arguments = ["-w", "-t", "10"]
        wait.standardOutput = FileHandle.nullDevice
        try wait.run()
        wait.waitUntilExit()
        guard wait.terminationStatus == 0 else { stop(); throw ProcessRunner.Failed(command: "jackd -n \(name)", status: wait.terminationStatus, stderr: "did not come up") }
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Kills the server with SIGTERM, as `kill PID` or a service manager would. (SIGKILL
    /// would leave its slot in JACK's shared-memory registry, which allows 8 servers, and
    /// break later tests on the same machine.)
    public func kill() {
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Runs a JACK tool (jack_bufsize, jack_lsp …) against this server; throws unless it exits 0.
    @discardableResult
    public func tool(_ path: String, _ args: [String]) throws -> String {
        try ProcessRunner.tool(path, args)
    }
}
