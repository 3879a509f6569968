import Foundation
import Testing
import TimbreTestSupport

/// What the input had survives the render: tags written by ffmpeg read back by ffprobe in
/// every container that holds them (and a warning naming those a container cannot), WAV's
/// broadcast extension, codec bitrates as ffprobe measures them, and a flat 16-bit copy
/// bit-exact.
@Suite struct TagsAndCodecTests {
    /// ffprobe's tags of a file (format and stream tags together, keys lower-cased).
    static func probeTags(_ path: String) throws -> [String: String] {
        let out = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", path])
        let o = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any] ?? [:]
        var tags: [String: String] = [:]
        let format = (o["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        let streams = (o["streams"] as? [[String: Any]] ?? []).compactMap { $0["tags"] as? [String: String] }
        for (k, v) in ([format] + streams).flatMap({ $0 }) { tags[k.lowercased()] = v }
        return tags
    }

    /// FLAC tagged by ffmpeg → every container: title and artist everywhere that holds them;
    /// album, date, genre, track and copyright where the container does; a --tag added; the
    /// ones a container cannot hold named in a warning, never silently dropped.
    @Test(arguments: ["flac", "wav", "ogg", "opus", "mp3", "caf", "aiff", "au"])
    func tagsRoundTrip(format: String) throws {
        let d = try CLI.tempDir()
        try CLI.tool(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000",
                      "-metadata", "title=Episode 12", "-metadata", "artist=Some Artist", "-metadata", "album=The Show",
                      "-metadata", "date=2026", "-metadata", "genre=Podcast", "-metadata", "track=3", "-metadata", "copyright=(c) Us",
                      "-sample_fmt", "s16", d + "/in.flac"])
        let r = try CLI.run(["render", d + "/in.flac", "-o", d + "/out.\(format)", "--preset", "podcast-voice", "--tag", "comment=mixed by timbre", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let tags = try Self.probeTags(d + "/out.\(format)")
        let expected = ["title": "Episode 12", "artist": "Some Artist", "album": "The Show", "date": "2026", "genre": "Podcast",
                        "track": "3", "copyright": "(c) Us", "comment": "mixed by timbre"]
        var missing: [String] = []
        for (key, value) in expected {
            // AIFF's artist is ffprobe's "author"; CAF and Vorbis comments name the track "tracknumber".
            let found = tags[key] ?? (key == "artist" ? tags["author"] : nil) ?? (key == "track" ? tags["tracknumber"] : nil)
            if found != value { missing.append(key == "track" ? "tracknumber" : key) }
        }
        for key in missing {
            #expect(r.stderr.contains("cannot hold the tags") && r.stderr.contains(key), "\(format): \(key) is neither in the output nor in a warning: \(tags) / \(r.stderr)")
        }
        if ["flac", "wav", "ogg", "opus", "caf"].contains(format) { #expect(missing.isEmpty, "\(format) lost \(missing)") }
        let noTags = try CLI.run(["render", d + "/in.flac", "-o", d + "/bare.\(format)", "--no-tags", "-q"])
        #expect(noTags.status == 0)
        #expect(try Self.probeTags(d + "/bare.\(format)")["title"] == nil)
    }

    /// WAV's broadcast extension: description and originator carried; the time reference moves
    /// with --start and scales with the rate; `info` shows the fields.
    @Test func broadcastExtension() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=48000",
                      "-write_bext", "1", "-metadata", "description=Take 3", "-metadata", "originator=Field Recorder",
                      "-metadata", "time_reference=172800000", "-sample_fmt", "s16", d + "/in.wav"])
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "--start", "0.5", "-r", "44100", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try CLI.run(["info", d + "/out.wav"])
        #expect(info.stdout.contains("description:    Take 3") && info.stdout.contains("originator:     Field Recorder"), "\(info.stdout)")
        // (172,800,000 + 24,000) × 44,100 / 48,000
        #expect(info.stdout.contains("time-reference: 158782050"), "\(info.stdout)")
        #expect(try Self.probeTags(d + "/out.wav")["time_reference"] == "158782050")
        let bad = try CLI.run(["render", d + "/in.wav", "-o", d + "/x.wav", "--tag", "colour=blue"])
        #expect(bad.status == 1 && bad.stderr.contains("allowed: title"), "\(bad.stderr)")
    }

    /// --bitrate gives the asked constant rate (ffprobe's reading within 3 %, Ogg's framing
    /// included); --quality orders sizes; a bitrate outside the codec's range or for Vorbis and
    /// a quality for PCM are usage errors.
    @Test func bitrateAndQuality() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", d + "/music.wav", "synth", "10", "pinknoise"])
        func kbps(_ path: String) throws -> Double {
            (Double(try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format=bit_rate", "-of", "csv=p=0", path]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) / 1000
        }
        for (format, rate) in [("mp3", 64.0), ("mp3", 192), ("opus", 64), ("opus", 128)] {
            let out = d + "/b\(Int(rate)).\(format)"
            let r = try CLI.run(["render", d + "/music.wav", "-o", out, "--bitrate", String(rate), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let measured = try kbps(out)
            #expect(abs(measured - rate) / rate < 0.03, "\(format) at \(rate) kb/s: ffprobe reads \(measured)")
        }
        for format in ["mp3", "ogg", "opus"] {
            var sizes: [Double] = []
            for q in [1, 5, 9] {
                let out = d + "/q\(q).\(format)"
                #expect(try CLI.run(["render", d + "/music.wav", "-o", out, "--quality", String(q), "-q"]).status == 0)
                sizes.append(try kbps(out))
            }
            #expect(sizes[0] < sizes[1] && sizes[1] < sizes[2], "\(format): quality 1, 5, 9 give \(sizes) kb/s")
        }
        for (args, text) in [(["-o", d + "/x.mp3", "--bitrate", "500"], "allowed 32…320"), (["-o", d + "/x.ogg", "--bitrate", "128"], "quality"),
                             (["-o", d + "/x.wav", "--quality", "5"], "no quality setting"), (["-o", d + "/x.mp3", "--quality", "11"], "allowed 0…10")] {
            let r = try CLI.run(["render", d + "/music.wav"] + args)
            #expect(r.status == 1 && r.stderr.contains(text), "\(args): \(r.stderr)")
        }
    }

    /// A 16-bit file through `flat` (and through no preset) is bit-exact: no dither where
    /// nothing changed the samples. A processed one is dithered (differs by noise).
    @Test func flatCopyIsBitExact() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", d + "/in.wav", "synth", "3", "pinknoise", "gain", "-12"])
        try CLI.tool(["sox", d + "/in.wav", "-t", "raw", d + "/in.raw"])
        for preset in [["--preset", "flat"], [], ["--preset", "flat", "-r", "44100"]] {
            let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "-q"] + preset)
            #expect(r.status == 0, "\(r.stderr)")
            try CLI.tool(["sox", d + "/out.wav", "-t", "raw", d + "/out.raw"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: d + "/out.raw")) == (try Data(contentsOf: URL(fileURLWithPath: d + "/in.raw"))), "\(preset): not bit-exact")
        }
        let processed = try CLI.run(["render", d + "/in.wav", "-o", d + "/p.wav", "-q", "--preset", "podcast-voice"])
        #expect(processed.status == 0)
        try CLI.tool(["sox", d + "/p.wav", "-t", "raw", d + "/p.raw"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: d + "/p.raw")) != (try Data(contentsOf: URL(fileURLWithPath: d + "/in.raw"))))
    }
}
