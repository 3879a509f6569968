import Foundation
import Testing
import TimbreTestSupport

/// `timbre render` in pipes and onto what is not a plain file, as sox and ffmpeg users expect:
/// standard input and output, FIFOs, devices and links written through or followed (never
/// replaced), the input protected, signals and full disks leaving nothing behind, truncated
/// inputs named, and the same render giving the same bytes.
@Suite(.serialized) struct PipesDevicesLinksTests {
    static func sh(_ script: String, cwd: String) throws -> ProcessRunner.Result {
        try ProcessRunner.run("/bin/sh", ["-c", script], cwd: cwd, environment: ["T": CLI.binary])
    }

    static func bytes(_ path: String) -> Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

    /// A 16-bit stereo noise WAV made by sox (a file no Timbre code wrote).
    static func soxNoise(_ path: String, seconds: Double = 1, rate: Int = 48000) throws {
        try CLI.tool(["sox", "-n", "-r", String(rate), "-c", "2", "-b", "16", path, "synth", String(seconds), "whitenoise", "gain", "-6"])
    }

    /// `cat in.wav | timbre render - -o - --format flac | timbre info -`: the piped output is
    /// the same audio a file render gives (sox decodes both); raw PCM from standard input
    /// with --input-format raw; a header-less stream without it is a clear error.
    @Test func standardInputAndOutput() throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/in.wav")
        let piped = try Self.sh(#"cat in.wav | "$T" render - -o - --format flac --preset podcast-voice > piped.flac"#, cwd: d)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stderr.contains("piped") == false && piped.stderr.contains("-: 48000 frames"), "the summary goes to stderr: \(piped.stderr)")
        let file = try CLI.run(["render", d + "/in.wav", "-o", d + "/file.flac", "--preset", "podcast-voice", "-q"])
        #expect(file.status == 0)
        // FLAC's header is the same; Timbre's dither is seeded, so the audio is too.
        try CLI.tool(["sox", d + "/piped.flac", d + "/piped.wav"])
        try CLI.tool(["sox", d + "/file.flac", d + "/file.wav"])
        #expect(Self.bytes(d + "/piped.wav") == Self.bytes(d + "/file.wav"), "piped output differs from the file render")
        let info = try Self.sh(#""$T" info - < piped.flac"#, cwd: d)
        #expect(info.status == 0 && info.stdout.contains("frames:    48000"), "\(info.stdout)\(info.stderr)")

        try CLI.tool(["sox", d + "/in.wav", "-t", "raw", "-e", "signed", "-b", "16", d + "/in.raw"])
        let raw = try Self.sh(#"cat in.raw | "$T" render - -o fromraw.wav --input-format raw --input-rate 48000 --input-channels 2 --input-encoding pcm16 -q"#, cwd: d)
        #expect(raw.status == 0, "\(raw.stderr)")
        try CLI.tool(["sox", d + "/fromraw.wav", "-t", "raw", d + "/back.raw"])
        #expect(Self.bytes(d + "/back.raw") == Self.bytes(d + "/in.raw"), "raw PCM through standard input is not bit-exact")
        let headerless = try Self.sh(#"cat in.raw | "$T" render - -o x.wav"#, cwd: d)
        #expect(headerless.status == 2 && headerless.stderr.contains("standard input") && headerless.stderr.contains("--input-format raw"), "\(headerless.stderr)")
        let noFormat = try Self.sh(#"cat in.wav | "$T" render - -o - > /dev/null"#, cwd: d)
        #expect(noFormat.status == 1 && noFormat.stderr.contains("--format"), "\(noFormat.stderr)")
        // ffmpeg's streamed WAV (its size fields unset) reads in full, with no truncation warning.
        let ff = try Self.sh(#"ffmpeg -v error -i in.wav -f wav - | "$T" render - -o ff.wav -q"#, cwd: d)
        #expect(ff.status == 0 && !ff.stderr.contains("warning"), "\(ff.stderr)")
        #expect(try CLI.run(["info", d + "/ff.wav"]).stdout.contains("frames:    48000"))
    }

    /// A FIFO, /dev/null and /dev/stdout are written through and stay what they were; a link
    /// stays a link and its target gets the output.
    @Test func fifosDevicesAndLinks() throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/in.wav")
        let fifo = try Self.sh(#"mkfifo ff && (cat ff > fromfifo.wav &) && "$T" render in.wav -o ff --format wav -q && sleep 0.3 && test -p ff"#, cwd: d)
        #expect(fifo.status == 0, "the FIFO was replaced or not written: \(fifo.stderr)")
        #expect(Self.bytes(d + "/fromfifo.wav") == Self.bytes(d + "/in.wav"), "the FIFO's reader got other bytes")
        let null = try Self.sh(#""$T" render in.wav -o /dev/null --format wav -q && test -c /dev/null"#, cwd: d)
        #expect(null.status == 0, "\(null.stderr)")
        let stdout = try Self.sh(#""$T" render in.wav -o /dev/stdout --format wav -q > viastdout.wav"#, cwd: d)
        #expect(stdout.status == 0 && Self.bytes(d + "/viastdout.wav") == Self.bytes(d + "/in.wav"), "\(stdout.stderr)")
        let link = try Self.sh(#"mkdir t && ln -s t/target.wav link.wav && "$T" render in.wav -o link.wav -q && test -L link.wav && test -f t/target.wav"#, cwd: d)
        #expect(link.status == 0, "the link was replaced: \(link.stderr)")
        #expect(Self.bytes(d + "/t/target.wav") == Self.bytes(d + "/in.wav"))
        #expect(CLI.listing(d + "/t") == ["target.wav"], "a temporary file was left beside the target")
    }

    /// An output that is one of the inputs (by name, through a link, or in a --concat) is
    /// refused with exit 1 and the input untouched; --overwrite-input does it atomically.
    @Test func theInputIsProtected() throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/in.wav")
        let before = Self.bytes(d + "/in.wav")
        for args in [["in.wav", "-o", "in.wav"], ["in.wav", "-o", "./in.wav"], ["a.wav", "in.wav", "--concat", "-o", "in.wav"]] {
            try? FileManager.default.copyItem(atPath: d + "/in.wav", toPath: d + "/a.wav")
            let r = try CLI.run(["render"] + args.map { $0.hasSuffix(".wav") ? d + "/" + $0 : $0 } + ["--preset", "podcast-voice"])
            #expect(r.status == 1 && r.stderr.contains("--overwrite-input"), "\(args): \(r.stderr)")
            #expect(Self.bytes(d + "/in.wav") == before)
        }
        let link = try Self.sh(#"ln -s in.wav alias.wav && "$T" render in.wav -o alias.wav"#, cwd: d)
        #expect(link.status == 1 && Self.bytes(d + "/in.wav") == before, "\(link.stderr)")
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/in.wav", "--preset", "podcast-voice", "--overwrite-input", "-q"])
        #expect(r.status == 0 && Self.bytes(d + "/in.wav") != before, "\(r.stderr)")
        #expect(CLI.listing(d).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    /// SIGINT, SIGTERM and SIGHUP mid-render: exit 130/143/129, no output, no temporary file.
    /// A batch stopped by SIGTERM leaves no temporary file either and no output it did not finish.
    @Test(arguments: [("INT", Int32(130)), ("TERM", 143), ("HUP", 129)])
    func signalsLeaveNothingBehind(signal: String, status: Int32) throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/long.wav", seconds: 600)
        // Killed once its temporary file exists (mid-render), whatever the machine's speed.
        let r = try Self.sh(#""$T" render long.wav -o out.wav --preset podcast-voice -r 44100 -q & p=$!; until ls .out.wav.*.tmp >/dev/null 2>&1; do sleep 0.02; done; sleep 0.2; kill -\#(signal) $p; wait $p"#, cwd: d)
        #expect(r.status == status, "exit \(r.status): \(r.stderr)")
        #expect(CLI.listing(d) == ["long.wav"], "left behind: \(CLI.listing(d))")
        if signal == "TERM" {
            try FileManager.default.createDirectory(atPath: d + "/in", withIntermediateDirectories: true)
            for i in 0..<3 { try FileManager.default.copyItem(atPath: d + "/long.wav", toPath: d + "/in/\(i).wav") }
            let b = try Self.sh(#""$T" render in --recursive --output-dir out --jobs 2 --preset podcast-voice -r 44100 -q & p=$!; until ls out/.*.tmp >/dev/null 2>&1; do sleep 0.02; done; sleep 0.2; kill -TERM $p; wait $p"#, cwd: d)
            #expect(b.status == 143, "\(b.stderr)")
            let left = CLI.listing(d + "/out")
            #expect(left.filter { $0.hasSuffix(".tmp") }.isEmpty, "batch left \(left)")
        }
    }

    /// A file size limit (ulimit -f: EFBIG) and, where this machine lets the test mount one, a
    /// full tmpfs (ENOSPC): every format fails with exit 2 naming the cause, and nothing is left.
    @Test(arguments: ["wav", "flac", "ogg", "mp3", "opus"])
    func aFullDiskIsAnError(format: String) throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/in.wav", seconds: 5)
        let limited = try Self.sh(#"trap '' XFSZ; ulimit -f 64; "$T" render in.wav -o out.\#(format) -q"#, cwd: d)
        #expect(limited.status == 2 && limited.stderr.contains("File too large"), "\(format): exit \(limited.status): \(limited.stderr)")
        #expect(!CLI.listing(d).contains("out.\(format)") && CLI.listing(d).filter { $0.hasSuffix(".tmp") }.isEmpty)
        let small = d + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        guard try ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", small]).status == 0 else { return }
        defer { _ = try? ProcessRunner.run("/bin/umount", [small]) }
        let full = try CLI.run(["render", d + "/in.wav", "-o", small + "/out.\(format)", "-q"])
        #expect(full.status == 2 && full.stderr.contains("No space left on device"), "\(format): exit \(full.status): \(full.stderr)")
        #expect(CLI.listing(small).isEmpty, "left on the full disk: \(CLI.listing(small))")
    }

    /// A WAV cut short (its header promises 240,000 frames, it holds 124,993) and a cut FLAC:
    /// rendered to the last whole frame with a warning naming the shortfall; --strict makes it
    /// exit 2 with no output.
    @Test func truncatedInputsAreNamed() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", d + "/five.wav", "synth", "5", "sine", "440"])
        let whole = Self.bytes(d + "/five.wav")
        try whole.prefix(44 + 124_993 * 2).write(to: URL(fileURLWithPath: d + "/cut.wav"))
        let r = try CLI.run(["render", d + "/cut.wav", "-o", d + "/out.wav", "--json"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("240000 frames but the file holds 124993") && r.stderr.contains("115007 frames"), "\(r.stderr)")
        #expect(r.stdout.contains(#""frames":124993"#), "\(r.stdout)")
        let strict = try CLI.run(["render", d + "/cut.wav", "-o", d + "/strict.wav", "--strict"])
        #expect(strict.status == 2 && !CLI.listing(d).contains("strict.wav"), "\(strict.stderr)")
        try CLI.tool(["sox", d + "/five.wav", d + "/five.flac"])
        let flac = Self.bytes(d + "/five.flac")
        try flac.prefix(flac.count / 2).write(to: URL(fileURLWithPath: d + "/cut.flac"))
        let f = try CLI.run(["render", d + "/cut.flac", "-o", d + "/outf.wav"])
        #expect(f.status == 0 && f.stderr.contains("of the 240000 its header announced"), "\(f.stderr)")
        let info = try CLI.run(["info", d + "/cut.wav"])
        #expect(info.stdout.contains("truncated: 115007 frames"), "\(info.stdout)")
    }

    /// Two renders of the same input, more than a second apart, give the same bytes in every
    /// PCM container with every encoding and in FLAC (RF64 float, whose PEAK chunk carried the
    /// time of writing, included).
    @Test func rendersAreReproducible() throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/in.wav")
        let cases = ["wav", "rf64", "w64", "aiff", "caf", "au"].flatMap { f in ["pcm16", "pcm24", "float", "double"].map { (f, $0) } }
            + [("flac", "pcm16"), ("flac", "pcm24")]
        for run in 0..<2 {
            if run == 1 { Thread.sleep(forTimeInterval: 1.05) }  // a second later: a timestamp would differ
            for (format, encoding) in cases {
                let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/r\(run)-\(encoding).\(format)", "--encoding", encoding, "--preset", "podcast-voice", "-q"])
                #expect(r.status == 0, "\(r.stderr)")
            }
        }
        for (format, encoding) in cases {
            let first = Self.bytes(d + "/r0-\(encoding).\(format)")
            #expect(!first.isEmpty && first == Self.bytes(d + "/r1-\(encoding).\(format)"), "\(format) \(encoding): two renders differ")
        }
    }

    /// Times as people write them.
    @Test func timesAsPeopleWriteThem() throws {
        let d = try CLI.tempDir()
        try Self.soxNoise(d + "/in.wav", seconds: 100)
        for (start, frame) in [("90", 4_320_000), ("1:30", 4_320_000), ("00:01:30.250", 4_332_000), ("90s", 4_320_000), ("1500ms", 72_000), ("frames:123", 123)] {
            let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/t.wav", "--start", start, "--json", "-q"])
            #expect(r.status == 0, "\(start): \(r.stderr)")
            let info = try CLI.run(["info", d + "/t.wav", "--json"])
            #expect(info.stdout.contains(#""frames" : \#(4_800_000 - frame)"#), "\(start): \(info.stdout)")
        }
        for bad in ["1:60", "-1", "1:2:3:4", "abc", "1.5:00"] {
            let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/t.wav", "--start=\(bad)"])
            #expect(r.status == 1 && r.stderr.contains("is not a time"), "\(bad): \(r.stderr)")
        }
    }
}
