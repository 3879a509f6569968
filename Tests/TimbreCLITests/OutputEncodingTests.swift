import Foundation
import Testing
import TimbreDSP
import TimbreFile
import TimbreTestSupport

/// Nothing lost on output: the encoding follows the input's when the container holds it,
/// clipping is counted and reported, and non-finite input is an error naming the frame.
@Suite(.serialized) struct OutputEncodingTests {
    /// Writes planar float samples with libsndfile (float WAV can hold values beyond ±1).
    static func writeFloatWAV(_ path: String, _ channels: [[Float]], rate: Int = 48000) throws {
        let w = try SoundFileWriter(path: path, format: .wav, encoding: .float, sampleRate: rate, channelCount: channels.count, dither: false)
        try w.write(PlanarBuffer(channels: channels))
        try w.commit()
    }

    static func info(_ path: String) throws -> [String: Any] {
        let r = try CLI.run(["info", path, "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        return list?.first ?? [:]
    }

    /// The issue's case: a float WAV peaking at +6 dBFS through `flat` stays float and keeps its peak.
    @Test func floatInputStaysFloat() throws {
        let d = try CLI.tempDir()
        let x = Signals.sine(48000, hz: 997, amplitude: 2)
        try Self.writeFloatWAV(d + "/hot.wav", [x, x])
        let r = try CLI.run(["render", d + "/hot.wav", "-o", d + "/out.wav", "--preset", "flat"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("wav float (as the input)") && r.stdout.contains("peak 6.02 dBFS"), "\(r.stdout)")
        #expect(!r.stderr.contains("clipped"))
        let out = try SoundFileReader(path: d + "/out.wav")
        #expect(out.encodingName == "float")
        let buffer = PlanarBuffer(channelCount: 2, capacity: 48000)
        let n = try out.read(into: buffer)
        #expect(n == 48000)
        let peak = buffer[0].map { abs($0) }.max() ?? 0
        #expect(abs(20 * log10(Double(peak)) - 20 * log10(Double(x.map { abs($0) }.max()!))) < 0.001, "peak kept: \(peak)")
    }

    /// 16-bit FLAC in, 16-bit FLAC out; 24-bit WAV in, 24-bit FLAC out; float WAV to FLAC is 24-bit.
    @Test func encodingFollowsInputWhenTheContainerHoldsIt() throws {
        let d = try CLI.tempDir()
        try CLI.tool(["sox", "-n", "-r", "44100", "-b", "16", d + "/in16.flac", "synth", "0.5", "sine", "440", "gain", "-3"])
        try CLI.tool(["sox", "-n", "-r", "44100", "-b", "24", d + "/in24.wav", "synth", "0.5", "sine", "440", "gain", "-3"])
        try Self.writeFloatWAV(d + "/inf.wav", [Signals.sine(4800, amplitude: 0.5)])
        for (input, output, want) in [("in16.flac", "o.flac", "pcm16"), ("in24.wav", "o24.flac", "pcm24"), ("inf.wav", "of.flac", "pcm24"),
                                      ("in16.flac", "o16.wav", "pcm16"), ("inf.wav", "of.aiff", "float")] {
            let r = try CLI.run(["render", d + "/" + input, "-o", d + "/" + output, "--preset", "flat", "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.info(d + "/" + output)["encoding"] as? String == want, "\(input) → \(output)")
        }
        // --encoding still overrides.
        #expect(try CLI.run(["render", d + "/in16.flac", "-o", d + "/x.flac", "--preset", "flat", "--encoding", "pcm24", "--quiet"]).status == 0)
        #expect(try Self.info(d + "/x.flac")["encoding"] as? String == "pcm24")
    }

    /// Forced into 24-bit, the +6 dBFS sine clips: every sample beyond full scale is counted,
    /// the JSON summary says how many and the gain that avoids it, and a warning says so.
    @Test func clippingIsCountedAndReported() throws {
        let d = try CLI.tempDir()
        let x = Signals.sine(48000, hz: 997, amplitude: 2)
        try Self.writeFloatWAV(d + "/hot.wav", [x, x])
        let r = try CLI.run(["render", d + "/hot.wav", "-o", d + "/out.wav", "--preset", "flat", "--encoding", "pcm24", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let top = Float(8_388_607) / 8_388_608
        let expected = 2 * x.filter { $0 > top || $0 < -1 }.count
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(json["clippedSamples"] as? Int == expected, "\(json)")
        #expect(abs((json["peakDBFS"] as? Double ?? 0) - 6.02) < 0.01)
        #expect((json["truePeakDBTP"] as? Double ?? 0) >= 6.0)
        #expect(json["gainToAvoidClippingDB"] as? Double == -6.1)
        #expect(r.stderr.contains("timbre: warning:") && r.stderr.contains("\(expected) samples clipped") && r.stderr.contains("-6.1 dB"), "\(r.stderr)")
        // Nothing clips at -6.1 dB: the advice holds.
        CLI.write(d + "/trim.json", #"{"version": 1, "name": "trim", "chain": [{"type": "gain", "gain": -6.1}]}"#)
        let trimmed = try CLI.run(["render", d + "/hot.wav", "-o", d + "/ok.wav", "--preset", d + "/trim.json", "--encoding", "pcm24", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(trimmed.stdout.utf8)) as? [String: Any])?["clippedSamples"] as? Int == 0)
    }

    /// A NaN in the input is an error naming its frame; no output file appears.
    @Test func nonFiniteInputIsAnError() throws {
        let d = try CLI.tempDir()
        var x = Signals.sine(9600, amplitude: 0.5)
        x[4321] = .nan
        var y = Signals.sine(9600, amplitude: 0.5)
        y[7000] = .infinity
        try Self.writeFloatWAV(d + "/nan.wav", [x, y])
        let r = try CLI.run(["render", d + "/nan.wav", "-o", d + "/out.wav", "--preset", "podcast-voice"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("nan.wav: frame 4321 (channel 1") && r.stderr.contains("NaN"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/out.wav"))
        #expect(CLI.listing(d) == ["nan.wav"], "no temporary file left: \(CLI.listing(d))")
    }
}
