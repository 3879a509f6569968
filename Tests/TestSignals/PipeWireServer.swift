import Foundation

/// A private headless PipeWire daemon for one test (`docs/pipewire-headless.conf`: no D-Bus,
/// no session manager, a dummy driver at 48 kHz / 256 frames), in a runtime folder of its own.
/// Sets XDG_RUNTIME_DIR and PIPEWIRE_RUNTIME_DIR in this process, so children find it;
/// JACK clients reach it through PipeWire's libjack (``jackEnvironment``).
public final class PipeWireServer {
    public let runtimeDirectory: String
    public let process: Process
    /// What a child needs to be a JACK client of this PipeWire (what `pw-jack` sets).
    public static let jackEnvironment = ["LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack"]

    /// Starts `pipewire -c <configuration>` and waits until its socket answers.
    public init(configuration: String) throws {
        runtimeDirectory = try ProcessRunner.temporaryDirectory("timbre-pipewire")
        setenv("XDG_RUNTIME_DIR", runtimeDirectory, 1)
        setenv("PIPEWIRE_RUNTIME_DIR", runtimeDirectory, 1)
        unsetenv("JACK_DEFAULT_SERVER")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pipewire")
        process.arguments = ["-c", configuration]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let up = ProcessRunner.wait(timeout: 10) {
            FileManager.default.fileExists(atPath: self.runtimeDirectory + "/pipewire-0")
                && ((try? ProcessRunner.run("/usr/bin/pw-cli", ["info", "0"]))?.status == 0)
        }
        guard up else { stop(); throw ProcessRunner.Failed(command: "pipewire -c \(configuration)", status: -1, stderr: "did not come up") }
    }

    /// Sets a clock setting (`clock.force-quantum`, `clock.force-rate`; 0 clears it).
    public func force(_ key: String, _ value: Int) throws {
        _ = try ProcessRunner.tool("/usr/bin/pw-metadata", ["-n", "settings", "0", key, "\(value)"])
    }

    /// Runs a JACK tool (jack_lsp …) as a client of this PipeWire.
    public func jackTool(_ name: String, _ args: [String]) throws -> String {
        try ProcessRunner.tool("/usr/bin/pw-jack", [name] + args)
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}
