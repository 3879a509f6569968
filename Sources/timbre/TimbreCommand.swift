import TimbreHost
import ArgumentParser
import Foundation

/// `timbre`: render files through presets, inspect files and presets, run the demo.
@main
struct TimbreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timbre",
        abstract: "Timbre: real-time audio effects (EQ, filters, gain, pan, LV2 and LADSPA plugins) for files and JACK.",
        discussion: """
        Exit status: 0 success, 1 usage or preset error, 2 processing or I/O error.
        Presets are JSON files (see Presets/README.md) or the name of a shipped preset.
        """,
        version: "0.1.0",
        subcommands: [RenderCommand.self, LiveCommand.self, MeterCommand.self, SpectrumCommand.self, ResponseCommand.self, InfoCommand.self, RecordCommand.self, RepairCommand.self, NoiseProfileCommand.self, ShortenPausesCommand.self, PresetsCommand.self, PluginsCommand.self, DemoCommand.self]
    )

    /// Runs the command and maps every failure to Timbre's exit codes (swift-argument-parser
    /// would use 64 for usage errors; sox and JACK tools use 1).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as HostError {
            Console.error(error.message)
            Foundation.exit(error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }  // --help, --version
            if let e = error as? ExitCode { Foundation.exit(e.rawValue == 0 ? 0 : e.rawValue) }
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst(7) }
            Console.error(message)
            Foundation.exit(1)
        }
    }
}
