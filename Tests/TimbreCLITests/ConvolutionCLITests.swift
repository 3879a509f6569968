import Foundation
import Testing
import TimbreFile
import TimbreTestSupport

/// `fir` and `convolver` nodes through `timbre render` as a user runs them, against other
/// tools on the same files: sox's `fir` (REW-style text coefficients) and ffmpeg's `afir`
/// (a stereo impulse response as a WAV file).
@Suite struct ConvolutionCLITests {
    static func worstDB(_ a: [Float], _ b: [Float]) -> Double {
        let peak = Double(b.map(abs).max() ?? 1)
        let worst = zip(a, b).map { Double(abs($0 - $1)) }.max() ?? 0
        return 20 * log10(max(worst, 1e-30) / peak)
    }

    /// A REW text export (CRLF, header, sample interval) as a `fir` node equals sox's `fir`
    /// with the same coefficients, once sox's advance of (N − 1)/2 samples is taken out (sox
    /// assumes a linear-phase filter and centres it; Timbre applies the taps as given).
    @Test func firFileMatchesSox() throws {
        let d = try CLI.tempDir()
        // Levels well inside ±1: sox works in 32-bit integers and clips beyond full scale.
        let taps = ResponseFileFixture.decaying(1_001, seed: 5).map { $0 * 0.02 }
        let values = taps.map { String(format: "%.9g", $0) }
        let rew = ["* Impulse Response data saved by REW V5.20.13", "0.2 // Peak value before normalisation", "2.0833333E-5 // Sample interval (seconds)", "* Data start"] + values
        CLI.write(d + "/room.txt", rew.joined(separator: "\r\n") + "\r\n")
        CLI.write(d + "/sox.txt", values.joined(separator: "\n") + "\n")
        CLI.write(d + "/fir.json", #"{"version": 1, "name": "fir", "chain": [{"type": "fir", "file": "room.txt"}]}"#)
        let x = [Signals.noise(48_000, amplitude: 0.1, seed: 1), Signals.noise(48_000, amplitude: 0.1, seed: 2)]
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", x)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/timbre.wav", "--preset", d + "/fir.json", "--encoding", "float"])
        #expect(r.status == 0, "\(r.stderr)")
        _ = try CLI.tool(["sox", d + "/in.wav", "-e", "floating-point", "-b", "32", d + "/sox.wav", "fir", d + "/sox.txt"])
        let ours = try SoundFileSamples.read(d + "/timbre.wav"), theirs = try SoundFileSamples.read(d + "/sox.wav")
        let shift = 500
        for c in 0..<2 {
            let db = Self.worstDB(Array(ours[c][shift..<47_000]), Array(theirs[c][0..<(47_000 - shift)]))
            print(String(format: "fir from a REW text file vs sox fir (1,001 taps, channel %d): worst difference %.1f dB of peak", c, db))
            #expect(db < -100)
        }
    }

    /// A stereo impulse response file as a `convolver` equals ffmpeg's `afir` with no gain
    /// normalisation (its output needs no alignment; ffmpeg 5.1's `afir=gtype=none` returns
    /// twice the convolution — its dry and wet gains of 1 both land on the wet path — so the
    /// one gain between them is fitted and must be 2), and `presets validate --sample-rate`
    /// reads the files and states a linear-phase FIR's latency; a missing response is a
    /// usage error naming its path.
    @Test func convolverMatchesFFmpegAndValidates() throws {
        let d = try CLI.tempDir()
        let h = [ResponseFileFixture.decaying(3_000, seed: 8).map { $0 * 0.02 }, ResponseFileFixture.decaying(3_000, seed: 9).map { $0 * 0.02 }]
        try OutputEncodingTests.writeFloatWAV(d + "/ir.wav", h)
        let x = [Signals.noise(48_000, amplitude: 0.1, seed: 3), Signals.noise(48_000, amplitude: 0.1, seed: 4)]
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", x)
        CLI.write(d + "/room.json", #"{"version": 1, "name": "room", "chain": [{"type": "convolver", "file": "ir.wav"}]}"#)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/timbre.wav", "--preset", d + "/room.json", "--encoding", "float"])
        #expect(r.status == 0, "\(r.stderr)")
        _ = try CLI.tool(["ffmpeg", "-v", "error", "-y", "-i", d + "/in.wav", "-i", d + "/ir.wav", "-filter_complex", "[0:a][1:a]afir=gtype=none",
                          "-c:a", "pcm_f32le", d + "/ffmpeg.wav"])
        let ours = try SoundFileSamples.read(d + "/timbre.wav"), theirs = try SoundFileSamples.read(d + "/ffmpeg.wav")
        for c in 0..<2 {
            let a = Array(ours[c][0..<47_000]), b = Array(theirs[c][0..<47_000])
            let gain = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) } / a.reduce(0.0) { $0 + Double($1) * Double($1) }
            let db = Self.worstDB(a.map { Float(gain) * $0 }, b)
            print(String(format: "convolver vs ffmpeg afir (3,000 taps, channel %d): ffmpeg's gain %.6f, worst difference %.1f dB of peak", c, gain, db))
            #expect(abs(gain - 2) < 1e-4 && db < -100)
        }
        CLI.write(d + "/lin.json", #"{"version": 1, "name": "lin", "chain": [{"type": "fir", "graphicEQ": "GraphicEQ: 20 2; 1000 0; 20000 -1", "phase": "linear", "taps": 2000}, {"type": "convolver", "file": "ir.wav", "mix": 25}]}"#)
        let v = try CLI.run(["presets", "validate", d + "/lin.json", "--sample-rate", "48000"])
        #expect(v.status == 0 && v.stdout.contains("latency 1000 frames (20.83 ms) at 48000 Hz"), "\(v.stdout) \(v.stderr)")
        CLI.write(d + "/gone.json", #"{"version": 1, "name": "gone", "chain": [{"type": "convolver", "file": "hall.wav"}]}"#)
        let gone = try CLI.run(["presets", "validate", d + "/gone.json", "--sample-rate", "48000"])
        #expect(gone.status == 1 && gone.stderr.contains("chain[0].file") && gone.stderr.contains("hall.wav: no such file"), "\(gone.stderr)")
        let render = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "--preset", d + "/gone.json"])
        #expect(render.status == 1 && render.stderr.contains("hall.wav") && !FileManager.default.fileExists(atPath: d + "/out.wav"), "\(render.stderr)")
    }
}
