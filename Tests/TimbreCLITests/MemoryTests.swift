import Foundation
import Testing
import TimbreTestSupport

/// Streaming keeps memory constant: a 10-minute and a 1-minute stereo file render with the
/// same peak resident memory within 10 MB (peak RSS measured by GNU time).
@Suite(.serialized) struct MemoryTests {
    /// The peak resident memory of `timbre ARGS`, as GNU time measures it. (Not wait4's rusage
    /// of a child spawned from this process: posix_spawn shares this process's memory until
    /// the exec, so the child's high-water mark can include the test runner's own resident
    /// memory — 51 and 65 MB were read that way under a parallel test run, against 29 MB.)
    static func peakRSSKB(_ args: [String]) throws -> Int {
        let r = try ProcessRunner.run("/usr/bin/time", ["-f", "peak-rss-kb %M", CLI.binary] + args)
        #expect(r.status == 0, "\(r.stderr)")
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.hasPrefix("peak-rss-kb ") }),
              let kb = Int(line.dropFirst("peak-rss-kb ".count)) else {
            throw ProcessRunner.Failed(command: "/usr/bin/time timbre", status: r.status, stderr: r.stderr)
        }
        return kb
    }

    @Test func peakMemoryDoesNotGrowWithLength() throws {
        let d = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", d + "/short.wav", "synth", "60", "pinknoise", "vol", "0.3"])
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", d + "/long.wav", "synth", "600", "pinknoise", "vol", "0.3"])
        let short = try Self.peakRSSKB(["render", d + "/short.wav", "-o", d + "/s.flac", "--preset", "podcast-voice", "--quiet"])
        let long = try Self.peakRSSKB(["render", d + "/long.wav", "-o", d + "/l.flac", "--preset", "podcast-voice", "--quiet"])
        print("Peak RSS: 1-minute render \(short / 1024) MB, 10-minute render \(long / 1024) MB")
        #expect(abs(long - short) < 10 * 1024, "short \(short) kB, long \(long) kB")
    }
}
