import TimbreHost
import ArgumentParser
import Foundation
import TimbreFile

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show format, encoding, rate, channels, length, peak and tags of audio files (- reads standard input).")

    @Argument(help: "Audio files.") var files: [String]
    @Flag(name: .long, help: "Print JSON (one object per file, in an array).") var json = false

    /// `2 (stereo)`, `6 (5.1: L R C LFE BL BR)`; a layout beyond stereo the file does not
    /// declare is marked as assumed.
    static func channels(_ i: AudioFileInfo) -> String {
        if i.channels <= 2 && !i.layoutDeclared { return "\(i.channels)\(i.layoutName.map { " (\($0))" } ?? "")" }
        return "\(i.channels) (\(i.layoutName.map { "\($0): " } ?? "")\(i.layout)\(i.layoutDeclared ? "" : "; assumed, the file does not say"))"
    }

    func run() throws {
        var infos: [AudioFileInfo] = []
        for f in files {
            do { infos.append(try AudioFileInfo.scan(path: f)) } catch { throw HostError.io(error.description) }
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(infos), as: UTF8.self))
            return
        }
        for i in infos {
            print("""
            \(i.path)
              format:    \(i.format)
              encoding:  \(i.encoding)
              rate:      \(i.sampleRate) Hz
              channels:  \(Self.channels(i))
              frames:    \(i.frames)
              duration:  \(String(format: "%.3f", i.durationSeconds)) s
              peak:      \(i.peakDBFS.map { String(format: "%.2f dBFS", $0) } ?? "silent (-inf dBFS)")
            """)
            if let missing = i.missingFrames {
                print("  truncated: \(missing) frames the header announces are missing")
            }
            for (key, value) in i.tags.sorted(by: { $0.key < $1.key }) {
                print("  \((key + ":").padding(toLength: 15, withPad: " ", startingAt: 0)) \(value)")
            }
        }
    }
}
