import Foundation
import Testing
import TimbreDSP
import TimbreFile
import TimbreTestSupport

/// Noise-shaped dither (#40): `timbre render --dither lipshitz|wannamaker|shibata` at 44.1 and
/// 48 kHz. The requantisation error of a rendered 16-bit file (read back, minus the float
/// input) has the power spectrum of each shape's design curve, |NTF|² times the white total
/// error of TPDF dither (LSB²/4), band by band; sox's `dither -f` with the same published
/// coefficients gives the same spectrum; and the ITU-R 468-weighted noise of each shape is
/// stated beside TPDF's.
@Suite(.serialized) struct NoiseShapedDitherTests {
    static let seconds = 10.0

    /// The input: noise at −40 dBFS (never on the 16-bit grid, far from clipping).
    static func input(rate: Int) -> [Float] {
        Signals.noise(Int(seconds * Double(rate)), amplitude: 0.01, seed: 40)
    }

    /// Welch power spectrum of `e` (Hann, 4,096 points, half overlapping) through FFTW,
    /// normalised to the flat TPDF error: 1 where the error is white with variance LSB²/4.
    static func spectrumOverTPDF(_ e: [Double], lsb: Double) -> [Double] {
        let n = 4096, fft = FFTSpectrum(size: n)
        let window = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        let windowPower = window.reduce(0) { $0 + $1 * $1 }
        var sum = [Double](repeating: 0, count: n / 2 + 1), segments = 0
        var start = 0
        while start + n <= e.count {
            // In LSB, so single precision is ample.
            let m = fft.magnitudes(of: (0..<n).map { Float(e[start + $0] / lsb * window[$0]) })
            for k in sum.indices { sum[k] += Double(m[k]) * Double(m[k]) }
            segments += 1; start += n / 2
        }
        // E|X|² = Σw² · σ² for white noise of variance σ² (in LSB², 1/4 for TPDF's total error).
        return sum.map { $0 / Double(segments) / windowPower / 0.25 }
    }

    /// Sixth-octave bands from 200 Hz to 0.95 of Nyquist: (centre, first bin, last bin).
    static func bands(rate: Double, size: Int = 4096) -> [(Double, Int, Int)] {
        var out: [(Double, Int, Int)] = [], f = 200.0
        while f * pow(2, 1.0 / 12) < 0.95 * rate / 2 {
            let lo = Int((f * pow(2, -1.0 / 12) / rate * Double(size)).rounded(.up)), hi = Int((f * pow(2, 1.0 / 12) / rate * Double(size)).rounded(.down))
            if hi >= lo { out.append((f, lo, hi)) }
            f *= pow(2, 1.0 / 6)
        }
        return out
    }

    /// ITU-R BS.468-4 weighting, power (its defining formula: 0 dB at 1 kHz, +12.2 dB at 6.3 kHz).
    static func weight468(_ f: Double) -> Double {
        let h1 = -4.737338981378384e-24 * pow(f, 6) + 2.043828333606125e-15 * pow(f, 4) - 1.363894795463638e-7 * f * f + 1
        let h2 = 1.306612257412824e-19 * pow(f, 5) - 2.118150887518656e-11 * pow(f, 3) + 5.559488023498642e-4 * f
        let r = 1.246332637532143e-4 * f / (h1 * h1 + h2 * h2).squareRoot()
        return pow(10, (18.2 + 20 * log10(r)) / 10)
    }

    /// Renders `input` at `rate` to 16-bit with `--dither shape` (and with sox's `dither -f`
    /// when given) and returns the errors' spectra over flat TPDF.
    static func render(shape: String, rate: Int, sox: String?) throws -> (timbre: [Double], sox: [Double]?) {
        let d = try CLI.tempDir()
        let x = input(rate: rate)
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [x], rate: rate)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "--encoding", "pcm16", "--dither", shape, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let lsb = 1.0 / 32768
        func error(_ path: String) throws -> [Double] {
            let y = try SoundFileSamples.read(path)[0]
            return zip(y, x).map { Double($0) - Double($1) }
        }
        let ours = spectrumOverTPDF(try error(d + "/out.wav"), lsb: lsb)
        var theirs: [Double]?
        if let sox {
            try CLI.tool(["/usr/bin/sox", d + "/in.wav", "-b", "16", d + "/sox.wav", "dither"] + (sox.isEmpty ? [] : ["-f", sox]))
            theirs = spectrumOverTPDF(try error(d + "/sox.wav"), lsb: lsb)
        }
        try? FileManager.default.removeItem(atPath: d)
        return (ours, theirs)
    }

    @Test(arguments: [
        ("tpdf", 44100, ""), ("tpdf", 48000, ""),
        ("lipshitz", 44100, "lipshitz"), ("lipshitz", 48000, nil),
        ("wannamaker", 44100, "f-weighted"), ("wannamaker", 48000, "f-weighted"),
        ("shibata", 44100, "shibata"), ("shibata", 48000, "shibata"),
    ] as [(String, Int, String?)])
    func spectrumFollowsTheDesignCurve(shape: String, rate: Int, sox: String?) throws {
        let design = try #require(NoiseShape(rawValue: shape))
        let (ours, theirs) = try Self.render(shape: shape, rate: rate, sox: sox)
        let fs = Double(rate), binHz = fs / 4096
        var worstCurve = 0.0, worstSox = 0.0, worstAt = 0.0
        for (centre, lo, hi) in Self.bands(rate: fs) {
            let measured = (lo...hi).reduce(0) { $0 + ours[$1] } / Double(hi - lo + 1)
            let curve = (lo...hi).reduce(0) { $0 + design.noisePowerGain(at: Double($1) * binHz, sampleRate: fs) } / Double(hi - lo + 1)
            let off = 10 * log10(measured / curve)
            if abs(off) > abs(worstCurve) { worstCurve = off; worstAt = centre }
            if let theirs {
                let sox = (lo...hi).reduce(0) { $0 + theirs[$1] } / Double(hi - lo + 1)
                worstSox = max(worstSox, abs(10 * log10(measured / sox)))
            }
        }
        // ITU-R 468-weighted noise (20 Hz–20 kHz), measured, over the flat TPDF error's.
        let top = min(20000, fs / 2)
        let bins = Array(Int((20 / binHz).rounded(.up))...Int(top / binHz))
        let weighted = bins.reduce(0) { $0 + ours[$1] * Self.weight468(Double($1) * binHz) } / bins.reduce(0) { $0 + Self.weight468(Double($1) * binHz) }
        let total = ours[1..<ours.count - 1].reduce(0, +) / Double(ours.count - 2)
        print(String(format: "dither %@ at %.1f kHz: error spectrum within %.2f dB of the design curve (worst band %.0f Hz), %@; total noise %+.1f dB, ITU-R 468-weighted %+.1f dB re TPDF",
                     shape, fs / 1000, abs(worstCurve), worstAt, theirs == nil ? "no sox shape at this rate" : String(format: "within %.2f dB of sox's", worstSox),
                     10 * log10(total), 10 * log10(weighted)))
        // 10 s in 4,096-point halves: 230+ averages per bin and 4+ bins a band (about 0.15 dB
        // of scatter a band; sox's spectrum is a second estimate with its own scatter).
        #expect(abs(worstCurve) < 0.75, "worst band \(worstAt) Hz: \(worstCurve) dB off the design curve")
        if theirs != nil { #expect(worstSox < 1.25, "sox's spectrum differs by up to \(worstSox) dB") }
        if design != .tpdf { #expect(10 * log10(weighted) < -2, "the shape should lower the 468-weighted noise") }
    }

    /// `--bits 20` in 24-bit PCM: every sample on the 20-bit grid (its 4 low bits zero), the
    /// error white at the 20-bit TPDF level; a shape with no design near the rate, and words
    /// longer than the encoding, are refused naming what is allowed.
    @Test func shorterWordsAndRefusals() throws {
        let d = try CLI.tempDir()
        let x = Self.input(rate: 48000)
        try OutputEncodingTests.writeFloatWAV(d + "/in.wav", [x], rate: 48000)
        let r = try CLI.run(["render", d + "/in.wav", "-o", d + "/out.wav", "--encoding", "pcm24", "--bits", "20", "--dither", "shibata", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let y = try SoundFileSamples.read(d + "/out.wav")[0]
        let offGrid = y.filter { ($0 * 524288).rounded() != $0 * 524288 }.count
        #expect(offGrid == 0, "\(offGrid) samples off the 20-bit grid")
        let spectrum = Self.spectrumOverTPDF(zip(y, x).map { Double($0) - Double($1) }, lsb: 1.0 / 524288)
        let at3k = Int(3000 / (48000.0 / 4096)), designAt3k = NoiseShape.shibata.noisePowerGain(at: 3000, sampleRate: 48000)
        let near = (at3k - 8...at3k + 8).reduce(0) { $0 + spectrum[$1] } / 17
        #expect(abs(10 * log10(near / designAt3k)) < 1.5, "20-bit error at 3 kHz: \(10 * log10(near)) dB re TPDF, design \(10 * log10(designAt3k))")
        // 8-bit PCM (unsigned in WAV, as the format requires): on the 8-bit grid, shaped alike.
        let r8 = try CLI.run(["render", d + "/in.wav", "-o", d + "/out8.wav", "--encoding", "pcm8", "--dither", "shibata", "--quiet"])
        #expect(r8.status == 0, "\(r8.stderr)")
        let y8 = try SoundFileSamples.read(d + "/out8.wav")[0]
        #expect(y8.allSatisfy { ($0 * 128).rounded() == $0 * 128 }, "samples off the 8-bit grid")
        let s8 = Self.spectrumOverTPDF(zip(y8, x).map { Double($0) - Double($1) }, lsb: 1.0 / 128)
        let near8 = (at3k - 8...at3k + 8).reduce(0) { $0 + s8[$1] } / 17
        print(String(format: "dither shibata, 20-bit words in pcm24 at 3 kHz: %.2f dB from the design; 8-bit WAV: %.2f dB", 10 * log10(near / designAt3k), 10 * log10(near8 / designAt3k)))
        #expect(abs(10 * log10(near8 / designAt3k)) < 1.5, "8-bit error at 3 kHz: \(10 * log10(near8)) dB re TPDF")
        try OutputEncodingTests.writeFloatWAV(d + "/in32.wav", [Array(x.prefix(32000))], rate: 32000)
        let refused = try CLI.run(["render", d + "/in32.wav", "-o", d + "/o32.wav", "--encoding", "pcm16", "--dither", "lipshitz"])
        #expect(refused.status == 2 && refused.stderr.contains("44100 Hz") && !FileManager.default.fileExists(atPath: d + "/o32.wav"), "\(refused.stderr)")
        let long = try CLI.run(["render", d + "/in.wav", "-o", d + "/o.wav", "--encoding", "pcm16", "--bits", "20"])
        #expect(long.status != 0 && long.stderr.contains("allowed 8…16"), "\(long.stderr)")
        let unknown = try CLI.run(["render", d + "/in.wav", "-o", d + "/o.wav", "--dither", "gesemann"])
        #expect(unknown.status == 1 && unknown.stderr.contains("shibata"), "\(unknown.stderr)")
        try? FileManager.default.removeItem(atPath: d)
    }
}
