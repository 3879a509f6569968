import Foundation
import Testing
import TimbreTestSupport

/// `timbre render --speed / --pitch` beside Rubber Band's finer engine (`rubberband -3`, Debian
/// rubberband-cli) on the same input in the same run. Our limits are the issue's; Rubber
/// Band's figures are printed beside ours, not judged.
@Suite(.serialized) struct StretchCLITests {
    static func write(_ d: String, _ name: String, _ channels: [[Float]]) throws -> String {
        let path = d + "/" + name
        try OutputEncodingTests.writeFloatWAV(path, channels)
        return path
    }

    /// Renders with timbre and with Rubber Band (tempo factor = speed); returns both outputs, mono.
    static func both(_ input: String, speed: Double, _ d: String) throws -> (ours: [Float], theirs: [Float]) {
        let ours = d + "/ours-\(speed).wav", theirs = d + "/rb-\(speed).wav"
        let r = try CLI.run(["render", input, "-o", ours, "--preset", "flat", "--speed", "\(speed)", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        try CLI.tool(["rubberband", "-3", "-q", "-T", "\(speed)", input, theirs])
        return (try RenderCLITests.readFloats(ours), try RenderCLITests.readFloats(theirs))
    }

    @Test(arguments: [440.0, 1234.5])
    func steadySinesBesideRubberBand(hz: Double) throws {
        let d = try CLI.tempDir(), fs = 48_000.0
        let input = try Self.write(d, "sine.wav", [Signals.sine(Int(4 * fs), hz: hz, amplitude: 0.5, rate: fs)])
        for speed in [0.5, 0.75, 1.5, 2.0] {
            let (ours, theirs) = try Self.both(input, speed: speed, d)
            #expect(abs(ours.count - Int(4 * fs / speed)) <= 1024)
            func measure(_ y: [Float]) -> (thdn: Double, levelDB: Double, hzError: Double) {
                let fit = SineFit.fit(y, hz: hz, rate: fs, margin: 8192)
                let f = StretchMeasures.measuredFrequency(y, near: hz, rate: fs, from: 8192, to: y.count - 8192 - 24_000, length: 24_000)
                return (fit.thdnDB, 20 * log10(fit.amplitude / 0.5), f - hz)
            }
            let a = measure(ours), b = measure(theirs)
            print(String(format: "stretch CLI %.1f Hz speed %.2f: timbre THD+N %.1f dB level %+.3f dB freq %+.4f Hz | rubberband -3 THD+N %.1f dB level %+.3f dB freq %+.4f Hz",
                         hz, speed, a.thdn, a.levelDB, a.hzError, b.thdn, b.levelDB, b.hzError))
            #expect(a.thdn <= -60 && abs(a.levelDB) <= 0.5 && abs(a.hzError) <= 0.5, "\(hz) Hz speed \(speed)")
        }
    }

    @Test func attacksBesideRubberBand() throws {
        let d = try CLI.tempDir(), fs = 48_000.0
        let (x, attacks) = StretchMeasures.bursts(rate: fs)
        let input = try Self.write(d, "bursts.wav", [x])
        for speed in [0.5, 0.75, 1.5, 2.0] {
            let (ours, theirs) = try Self.both(input, speed: speed, d)
            let a = StretchMeasures.attackLeads(ours, attacks: attacks, rate: speed, fs: fs)
            let b = StretchMeasures.attackLeads(theirs, attacks: attacks, rate: speed, fs: fs)
            print("stretch CLI attacks speed \(speed): timbre worst lead \(a.map(\.leadMs).max()!) ms (offsets \(a.map(\.offsetMs))) | rubberband -3 worst lead \(b.map(\.leadMs).max()!) ms (offsets \(b.map(\.offsetMs)))")
            #expect(a.allSatisfy { $0.leadMs < 5 && abs($0.offsetMs) <= 5 })
        }
    }

    @Test func speechBesideRubberBand() throws {
        let d = try CLI.tempDir(), fs = 48_000.0
        let (x, _) = StretchMeasures.speech(rate: fs)
        let input = try Self.write(d, "speech.wav", [x])
        for speed in [0.5, 0.75, 1.5, 2.0] {
            let (ours, theirs) = try Self.both(input, speed: speed, d)
            let a = StretchMeasures.speechTiming(ours, rate: speed, fs: fs), b = StretchMeasures.speechTiming(theirs, rate: speed, fs: fs)
            print(String(format: "stretch CLI speech speed %.2f: timbre step %.1f ms drift %.1f ms | rubberband -3 step %.1f ms drift %.1f ms",
                         speed, a.step * 1000, a.drift * 1000, b.step * 1000, b.drift * 1000))
            #expect(abs(ours.count - Int(Double(x.count) / speed)) <= 1024)
            #expect(a.step < 0.02 && a.drift < 0.05)
        }
    }

    /// ±12 semitones double or halve the frequency within 0.1 % at unchanged duration; 7
    /// semitones land on 2^(7/12); the two channels stay phase-coherent.
    @Test(arguments: [12.0, -12.0, 7.0])
    func pitchShift(semitones: Double) throws {
        let d = try CLI.tempDir(), fs = 48_000.0, n = Int(3 * fs)
        let left = Signals.sine(n, hz: 440, amplitude: 0.4, rate: fs), right = Signals.sine(n, hz: 440, amplitude: 0.4, rate: fs, phase: 0.5)
        let input = try Self.write(d, "tone.wav", [left, right])
        let r = try CLI.run(["render", input, "-o", d + "/shifted.wav", "--preset", "flat", "--pitch", "\(semitones)", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try RenderCLITests.readFloats(d + "/shifted.wav")
        #expect(out.count == 2 * n, "duration changed: \(out.count / 2) frames for \(n)")
        let l = stride(from: 0, to: out.count, by: 2).map { out[$0] }, rr = stride(from: 1, to: out.count, by: 2).map { out[$0] }
        let expected = 440 * pow(2, semitones / 12)
        let f = StretchMeasures.measuredFrequency(l, near: expected, rate: fs, from: 8192, to: l.count - 8192 - 24_000, length: 24_000)
        // THD+N at the measured frequency: the pitch factor is the nearest fraction with terms ≤ 1000
        // (2^(7/12) within 1.4e-6), enough for a fit at the exact 2^(7/12) to read it as distortion.
        let fitL = SineFit.fit(l, hz: f, rate: fs, margin: 8192), fitR = SineFit.fit(rr, hz: f, rate: fs, margin: 8192)
        var phase = fitR.phase - fitL.phase - 0.5
        phase -= 2 * Double.pi * (phase / (2 * Double.pi)).rounded()
        print(String(format: "pitch %+.0f: %.4f Hz (expected %.4f, %.4f %%), THD+N %.1f dB, inter-channel phase error %.5f rad",
                     semitones, f, expected, 100 * (f / expected - 1), fitL.thdnDB, phase))
        #expect(abs(f / expected - 1) < 0.001)
        #expect(fitL.thdnDB < -60)
        #expect(abs(phase) < 0.01)
    }
}
