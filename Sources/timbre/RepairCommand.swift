import TimbreHost
import ArgumentParser
import Foundation
import TimbreFile

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Recover a WAV, RF64 or W64 file whose size fields a crashed recorder left wrong.",
        usage: "timbre repair <file> [-o <out>] [--in-place] [--json]",
        discussion: """
        Reads the header and the file's length and reports what it found: the sizes \
        the header gives and the whole frames on disk. With -o it writes a copy with \
        the sizes set to every whole frame on disk (a partial last frame is left \
        out); with --in-place it replaces the file itself, atomically (a temporary \
        file beside it, then a rename). Without either nothing is written. A file \
        whose sizes are already right is reported as such and copied unchanged.

        Exit status: 0 repaired or intact, 1 usage, 2 not a WAV, RF64 or W64 file, \
        or a read or write failure.
        """)

    @Argument(help: "The damaged file.") var file: String
    @Option(name: .shortAndLong, help: "Write the repaired file here.") var output: String?
    @Flag(name: .long, help: "Replace the file itself (atomically).") var inPlace = false
    @Flag(name: .long, help: "Print the findings as JSON.") var json = false

    func run() throws {
        if inPlace && output != nil { throw HostError.usage("--in-place and -o cannot be used together") }
        let repair: WaveFileRepair
        do { repair = try WaveFileRepair(path: file) } catch { throw HostError.io(error.description) }
        var target: String?
        if inPlace {
            // The file a link points at is the one repaired; the link stays a link.
            target = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
        } else if let output {
            let resolvedIn = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
            let resolvedOut = URL(fileURLWithPath: output).resolvingSymlinksInPath().path
            if resolvedIn == resolvedOut { throw HostError.usage("-o \(output) is the input itself (use --in-place to replace it)") }
            target = output
        }
        if let target { try Self.writeAtomically(repair, to: target) }
        if json {
            var o: [String: Any] = [
                "path": file, "container": repair.container.rawValue, "channels": repair.channels, "sampleRate": repair.sampleRate,
                "bitsPerSample": repair.bitsPerSample, "fileBytes": repair.fileBytes, "dataOffset": repair.dataOffset,
                "declaredDataBytes": repair.declaredDataBytes, "dataBytes": repair.dataBytes, "frames": repair.frames,
                "partialFrameBytes": repair.partialFrameBytes, "trailingBytes": repair.trailingBytes, "intact": repair.isIntact,
            ]
            if let target { o["written"] = target }
            let data = try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(repair.report)
            if let target { print("wrote \(target)") } else if !repair.isIntact { print("nothing written (give -o OUT, or --in-place)") }
        }
    }

    /// The repaired bytes into a temporary file beside `target`, checked, then renamed over it.
    static func writeAtomically(_ repair: WaveFileRepair, to target: String) throws {
        do {
            let file = try AtomicFileWrite(path: target)
            do { try repair.write(to: file.descriptor) } catch { file.discard(); throw error }
            try file.commit()
        } catch { throw HostError.io("\(error)") }
    }
}
