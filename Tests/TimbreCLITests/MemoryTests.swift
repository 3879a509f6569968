import Foundation
import Testing
import TimbreTestSupport

/// Streaming keeps memory constant: a 10-minute and a 1-minute stereo file render with the
/// same peak resident memory within 10 MB (peak RSS of the child from wait4's rusage).
@Suite(.serialized) struct MemoryTests {
    static func peakRSSKB(_ args: [String]) throws -> Int {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ([CLI.binary] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawn(&pid, CLI.binary, &actions, nil, argv, environ) == 0 else { throw ProcessRunner.Failed(command: "spawn \(CLI.binary)", status: -1, stderr: "") }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        #expect(status == 0)
        return usage.ru_maxrss
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
