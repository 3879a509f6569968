import ArgumentParser
import Foundation
import TimbreFile
import TimbreHost

struct NoiseProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noise-profile",
        abstract: "Learn a noise profile from a noise-only stretch of a file, for a denoise node's profile.",
        usage: "timbre noise-profile <file> -o <profile.json> [--start <s>] [--end <s>]",
        discussion: """
        The stretch is given with --start and --end (seconds), or found: the quietest half \
        second. The profile is the noise's power per frequency, with the denoiser's own window; \
        name it in a preset as {"type": "denoise", "profile": "profile.json"} (with \
        "adaptive": false to keep it as it is, Audacity's way).
        """)

    @Argument(help: "Audio file.") var file: String
    @Option(name: .shortAndLong, help: "The profile file to write (JSON).") var output: String
    @Option(name: .long, help: "Start of the noise-only stretch, seconds.") var start: Double?
    @Option(name: .long, help: "End of the noise-only stretch, seconds.") var end: Double?

    func run() throws {
        let run = try NoiseProfileRun(path: file, start: start, end: end)
        do { try AtomicFileWrite.write(Data(run.fileText.utf8), to: output) } catch { throw HostError.io(error.description) }
        print("\(output): \(run.summary)")
    }
}
