import ArgumentParser
import Foundation
import TimbreDSP
import TimbreFile
import TimbreHost

struct ShortenPausesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shorten-pauses",
        abstract: "Shorten long pauses in speech and trim leading and trailing silence, with a report of every cut.",
        usage: "timbre shorten-pauses <file> -o <output> [<options>]",
        discussion: """
        Silence is judged against the recording's own noise floor (its quietest tenth), never \
        a fixed level, and only frames under the threshold are cut, so a word is never cut \
        into. Run it after timbre render (on the cleaned file, whose floor is lower).
        """)

    @Argument(help: "Audio file.") var file: String
    @Option(name: .shortAndLong, help: "The file to write (its extension names the format; the input's encoding and tags are kept).") var output: String
    @Option(name: .long, help: "Pauses longer than this are shortened, seconds (0.2…60).") var longest: Double = 1.0
    @Option(name: .long, help: "What a shortened pause keeps, seconds (0.05…longest).") var keep: Double = 0.5
    @Option(name: .long, help: "Silence kept before the first and after the last sound, seconds (0…10).") var edge: Double = 0.25
    @Option(name: .long, help: "Write the cuts (input seconds) as JSON.") var report: String?

    func run() throws {
        guard (0.2...60).contains(longest) else { throw HostError.usage("--longest \(longest) is out of range (allowed 0.2…60 s)") }
        guard keep >= 0.05, keep <= longest else { throw HostError.usage("--keep \(keep) is out of range (allowed 0.05…\(longest) s, the --longest)") }
        guard (0...10).contains(edge) else { throw HostError.usage("--edge \(edge) is out of range (allowed 0…10 s)") }
        let run = try PauseShorteningRun(input: file, output: output, settings: PauseFinder.Settings(longest: longest, kept: keep, edge: edge))
        if let report {
            do { try AtomicFileWrite.write(Data((run.json.jsonText + "\n").utf8), to: report) } catch { throw HostError.io(error.description) }
        }
        print(run.text)
    }
}
