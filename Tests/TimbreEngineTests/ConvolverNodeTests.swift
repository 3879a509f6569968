import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreTestSupport

/// `convolver` nodes reading real sound files (written here with libsndfile) and `fir` nodes
/// reading coefficient files, through the whole engine (decode, the host's file reader,
/// resampling, the plan, the render), against a direct convolution in Double written here.
@Suite struct ConvolverNodeTests {
    /// A fresh folder holding `files` (name → planar samples at `rate`).
    static func folder(_ files: [String: [[Float]]], rate: Int = 48_000) throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-convolver-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        for (name, channels) in files {
            let writer = try SoundFileWriter(path: d + "/" + name, format: .wav, encoding: .float, sampleRate: rate, channelCount: channels.count, dither: false)
            try writer.write(PlanarBuffer(channels: channels))
            try writer.commit()
        }
        return d
    }

    static func render(_ nodes: String, in folder: String, input: [[Float]], block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [\#(nodes)]}"#.utf8))
        return try PresetRender.render(preset, input: input, block: block, registry: NodeStateRegistry(services: .files(in: folder))).output
    }

    /// Σ_routes x_in ∗ h in Double.
    static func direct(_ x: [Float], _ h: [Float]) -> [Double] { DirectConvolution.direct(x, h) }

    static func errorDB(_ y: [Float], _ reference: [Double]) -> Double {
        let peak = reference.map(abs).max() ?? 1
        let error = zip(y, reference).map { abs(Double($0) - $1) }.max() ?? 0
        return 20 * log10(max(error, 1e-30) / peak)
    }

    /// True stereo (a 4-channel file: L→L, L→R, R→L, R→R) on a stereo chain: each output is
    /// the sum of two convolutions, within −120 dB of the Double reference, from sample 0.
    @Test func trueStereoMatchesDirectConvolution() throws {
        let h = (0..<4).map { ResponseFileFixture.decaying(2_500, seed: UInt64(90 + $0)) }
        let d = try Self.folder(["ts.wav": h])
        let x = [Signals.noise(12_000, amplitude: 0.4, seed: 3), Signals.noise(12_000, amplitude: 0.4, seed: 4)]
        let y = try Self.render(#"{"type": "convolver", "file": "ts.wav"}"#, in: d, input: x)
        let left = zip(Self.direct(x[0], h[0]), Self.direct(x[1], h[2])).map { $0 + $1 }
        let right = zip(Self.direct(x[0], h[1]), Self.direct(x[1], h[3])).map { $0 + $1 }
        let e = (Self.errorDB(y[0], left), Self.errorDB(y[1], right))
        print(String(format: "convolver, true stereo 4 × 2,500 taps: error %.1f / %.1f dB of peak", e.0, e.1))
        #expect(e.0 < -120 && e.1 < -120)
    }

    /// A stereo response on a mono chain makes it stereo (x ∗ h_L, x ∗ h_R); a mono response on
    /// a stereo chain runs both channels through it.
    @Test func monoToStereoAndOneResponseForAll() throws {
        let h = [ResponseFileFixture.decaying(700, seed: 11) + [Float](repeating: 0, count: 200), ResponseFileFixture.decaying(900, seed: 12)]
        let d = try Self.folder(["st.wav": h, "mono.wav": [h[0]]])
        let x = Signals.noise(6_000, amplitude: 0.4, seed: 5)
        let y = try Self.render(#"{"type": "convolver", "file": "st.wav"}"#, in: d, input: [x])
        #expect(y.count == 2)
        #expect(Self.errorDB(y[0], Self.direct(x, h[0])) < -120 && Self.errorDB(y[1], Self.direct(x, h[1])) < -120)
        let x2 = [x, Signals.noise(6_000, amplitude: 0.4, seed: 6)]
        let z = try Self.render(#"{"type": "convolver", "file": "mono.wav"}"#, in: d, input: x2)
        #expect(Self.errorDB(z[0], Self.direct(x2[0], h[0])) < -120 && Self.errorDB(z[1], Self.direct(x2[1], h[0])) < -120)
    }

    /// The same output, bit for bit, for every host block size.
    @Test func outputDoesNotDependOnBlockSize() throws {
        let h = (0..<4).map { ResponseFileFixture.decaying(5_000, seed: UInt64(20 + $0)) }
        let d = try Self.folder(["ts.wav": h])
        let x = [Signals.noise(20_000, amplitude: 0.4, seed: 8), Signals.noise(20_000, amplitude: 0.4, seed: 9)]
        let node = #"{"type": "convolver", "file": "ts.wav", "mix": 40, "width": 150, "predelay": 3}"#
        let first = try Self.render(node, in: d, input: x, block: 1)
        for block in [7, 64, 333, 1_024, 4_096] {
            #expect(try Self.render(node, in: d, input: x, block: block) == first, "block \(block)")
        }
    }

    /// Predelay is exact in samples; energy and peak normalisation set Σh² = 1 and max |h| = 1;
    /// gain scales; the impulse response shows all of it.
    @Test func predelayNormalisationAndGain() throws {
        let h = ResponseFileFixture.decaying(1_000, seed: 30).map { $0 * 0.2 }
        let d = try Self.folder(["r.wav": [h]])
        var impulse = [Float](repeating: 0, count: 3_000); impulse[0] = 1
        let energy = try Self.render(#"{"type": "convolver", "file": "r.wav", "predelay": 10, "normalize": "energy", "gain": -6}"#, in: d, input: [impulse])[0]
        let delay = 480, g = pow(10, -6.0 / 20)
        // Before the predelay: nothing but FFT rounding (partitions straddle the silence).
        let norm = (h.reduce(0.0) { $0 + Double($1) * Double($1) }).squareRoot()
        #expect(energy[0..<delay].allSatisfy { abs($0) < 1e-7 })
        #expect(zip(energy[delay...], h).allSatisfy { abs(Double($0) - g * Double($1) / norm) < 1e-6 })
        let sumSquares = energy.reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(abs(sumSquares - g * g) < 1e-5, "\(sumSquares)")
        let peak = try Self.render(#"{"type": "convolver", "file": "r.wav", "normalize": "peak"}"#, in: d, input: [impulse])[0]
        #expect(abs((peak.map(abs).max() ?? 0) - 1) < 1e-6)
        let plain = try Self.render(#"{"type": "convolver", "file": "r.wav"}"#, in: d, input: [impulse])[0]
        #expect(zip(plain, h).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    /// mix m: (1 − m)·dry + m·wet; width 0: both sides the wet mid; 200: twice the side.
    @Test func mixAndWidth() throws {
        let h = [ResponseFileFixture.decaying(300, seed: 40), ResponseFileFixture.decaying(300, seed: 41)]
        let d = try Self.folder(["st.wav": h])
        let x = [Signals.noise(4_000, amplitude: 0.4, seed: 10), Signals.noise(4_000, amplitude: 0.4, seed: 12)]
        let wet = [Self.direct(x[0], h[0]), Self.direct(x[1], h[1])]
        let mixed = try Self.render(#"{"type": "convolver", "file": "st.wav", "mix": 25}"#, in: d, input: x)
        for c in 0..<2 {
            let want = (0..<4_000).map { 0.75 * Double(x[c][$0]) + 0.25 * wet[c][$0] }
            #expect(Self.errorDB(mixed[c], want) < -110)
        }
        let mono = try Self.render(#"{"type": "convolver", "file": "st.wav", "width": 0}"#, in: d, input: x)
        let mid = zip(wet[0], wet[1]).map { ($0 + $1) / 2 }
        #expect(Self.errorDB(mono[0], mid) < -110 && mono[0] == mono[1])
        let wide = try Self.render(#"{"type": "convolver", "file": "st.wav", "width": 200}"#, in: d, input: x)
        let left = zip(wet[0], wet[1]).map { ($0 + $1) / 2 + ($0 - $1) }
        #expect(Self.errorDB(wide[0], left) < -110)
    }

    /// trim cuts the silent start and the tail below the threshold (the same cut on every channel).
    @Test func trimCutsSilenceAndTail() throws {
        var h = [Float](repeating: 0, count: 200) + [Float](repeating: 0, count: 100)
        h[200] = 1; h[210] = 0.5; h[260] = 1e-6  // −120 dB: cut at −80
        let d = try Self.folder(["t.wav": [h]])
        var impulse = [Float](repeating: 0, count: 400); impulse[0] = 1
        let y = try Self.render(#"{"type": "convolver", "file": "t.wav", "trim": -80}"#, in: d, input: [impulse])[0]
        #expect(y[0] == 1 && y[10] == 0.5 && y.enumerated().allSatisfy { $0.offset == 0 || $0.offset == 10 || $0.element == 0 })
    }

    /// A response recorded at 44.1 kHz in a 48 kHz session: resampled and scaled, so the filter
    /// keeps its response — a windowed-sinc low-pass at 4 kHz passes 500 Hz at unity (within
    /// 0.05 dB) and stops 12 kHz (below −60 dB).
    @Test func responseAtAnotherRateKeepsItsResponse() throws {
        let taps = 401, fc = 4_000.0 / 44_100
        let lowpass: [Float] = (0..<taps).map { k in
            let m = Double(k - taps / 2)
            let sinc = m == 0 ? 2 * fc : sin(2 * .pi * fc * m) / (.pi * m)
            return Float(sinc * (0.42 - 0.5 * cos(2 * .pi * Double(k) / Double(taps - 1)) + 0.08 * cos(4 * .pi * Double(k) / Double(taps - 1))))
        }
        let d = try Self.folder(["lp.wav": [lowpass]], rate: 44_100)
        func level(_ hz: Double) throws -> Double {
            let x: [Float] = (0..<24_000).map { Float(0.5 * sin(2 * .pi * hz * Double($0) / 48_000)) }
            let y = try Self.render(#"{"type": "convolver", "file": "lp.wav"}"#, in: d, input: [x])[0]
            let rms = { (s: ArraySlice<Float>) in (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)).squareRoot() }
            return 20 * log10(rms(y[4_000...]) / rms(x[4_000...]))
        }
        let pass = try level(500), stop = try level(12_000)
        print(String(format: "convolver, 44.1 kHz low-pass response at 48 kHz: 500 Hz %+.3f dB, 12 kHz %.1f dB", pass, stop))
        #expect(abs(pass) < 0.05 && stop < -60)
    }

    /// Errors name the node's key and the file: a channel count that fits no routing, a
    /// missing file, a host that reads no files.
    @Test func errorsNameTheKeyAndFile() throws {
        let d = try Self.folder(["three.wav": [[1], [1], [1]]])
        let x = [[Float](repeating: 0, count: 16), [Float](repeating: 0, count: 16)]
        #expect { try Self.render(#"{"type": "convolver", "file": "three.wav"}"#, in: d, input: x) } throws: {
            "\($0)".contains("chain[0].file: 3 channels of impulse response for 2 chain channels")
        }
        #expect { try Self.render(#"{"type": "convolver", "file": "three.wav", "sampleRate": 44100}"#, in: d, input: x) } throws: {
            "\($0)".contains("chain[0].file: three.wav is a sound file, which states its own rate")
        }
        #expect { try Self.render(#"{"type": "convolver", "file": "missing.wav"}"#, in: d, input: x) } throws: {
            "\($0)".contains("chain[0].file") && "\($0)".contains("missing.wav")
        }
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [{"type": "convolver", "file": "three.wav"}]}"#.utf8))
        #expect { try PresetRender.render(preset, input: x, block: 16) } throws: { "\($0)".contains("needs a host that reads files") }
    }
}
