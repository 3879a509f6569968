import Foundation
import TimbreDSP
import TimbreTestSignals

/// Test-side references, written independently of the library's design code.
enum Reference {
    /// Runs a unit impulse through the real kernel (one channel) until the tail has decayed
    /// below 1e-10 of the peak (or `maxFrames`), and returns the response.
    static func impulseResponse(_ sections: [BiquadCoefficients], channelCount: Int = 1, channel: Int = 0, maxFrames: Int = 2_000_000) -> [Float] {
        let kernel = BiquadCascade(sections: sections, channelCount: channelCount)
        let block = 8192
        var out: [Float] = []
        var peak: Float = 0
        var bufs = (0..<channelCount).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { bufs.forEach { $0.deallocate() } }
        var first = true
        while out.count < maxFrames {
            for b in bufs { b.initialize(repeating: 0, count: block) }
            if first { bufs[channel][0] = 1; first = false }
            kernel.process(&bufs, frameCount: block)
            var blockPeak: Float = 0
            for n in 0..<block { blockPeak = max(blockPeak, abs(bufs[channel][n])); out.append(bufs[channel][n]) }
            peak = max(peak, blockPeak)
            if blockPeak < 1e-10 * peak && out.count > block { break }
        }
        return out
    }

    /// Naive discrete-time Fourier transform magnitude in dB at `frequencyHz` (direct sum,
    /// Double accumulation, phasor re-anchored every 1024 samples to bound drift).
    static func dtftDB(_ x: [Float], frequencyHz: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequencyHz / sampleRate
        var re = 0.0, im = 0.0
        let stepC = cos(w), stepS = -sin(w)
        var c = 1.0, s = 0.0
        for n in 0..<x.count {
            if n & 1023 == 0 { c = cos(w * Double(n)); s = -sin(w * Double(n)) }
            let v = Double(x[n])
            re += v * c; im += v * s
            let nc = c * stepC - s * stepS
            s = c * stepS + s * stepC
            c = nc
        }
        return 10 * log10(re * re + im * im)
    }

    /// `count` log-spaced frequencies from `lo` to `hi`.
    static func logGrid(_ lo: Double, _ hi: Double, count: Int) -> [Double] {
        (0..<count).map { lo * pow(hi / lo, Double($0) / Double(count - 1)) }
    }

    /// Analog Butterworth magnitude in dB, order N, written from |H|² = 1 / (1 + (f/fc)^2N).
    static func butterworthDB(_ f: Double, cutoff: Double, order: Int, highPass: Bool) -> Double {
        let r = pow(highPass ? cutoff / f : f / cutoff, Double(2 * order))
        return -10 * log10(1 + r)
    }

    /// Analog RBJ peaking magnitude in dB: |H(jΩ)|² = ((1−Ω²)² + (AΩ/Q)²) / ((1−Ω²)² + (Ω/(AQ))²).
    static func peakingDB(_ f: Double, f0: Double, gainDB: Double, q: Double) -> Double {
        let a = pow(10, gainDB / 40), o = f / f0
        let d = (1 - o * o) * (1 - o * o)
        return 10 * log10((d + (a * o / q) * (a * o / q)) / (d + (o / (a * q)) * (o / (a * q))))
    }

    /// Analog RBJ low shelf in dB, A = 10^(g/40), Ω = f/f0:
    /// |H|² = A² ((A − Ω²)² + (√A Ω/Q)²) / ((1 − A Ω²)² + (√A Ω/Q)²).
    static func lowShelfDB(_ f: Double, f0: Double, gainDB: Double, q: Double) -> Double {
        let a = pow(10, gainDB / 40), o = f / f0, m = (a.squareRoot() * o / q) * (a.squareRoot() * o / q)
        return 10 * log10(a * a * ((a - o * o) * (a - o * o) + m) / ((1 - a * o * o) * (1 - a * o * o) + m))
    }

    /// Analog RBJ high shelf in dB: |H|² = A² ((1 − A Ω²)² + (√A Ω/Q)²) / ((A − Ω²)² + (√A Ω/Q)²).
    static func highShelfDB(_ f: Double, f0: Double, gainDB: Double, q: Double) -> Double {
        let a = pow(10, gainDB / 40), o = f / f0, m = (a.squareRoot() * o / q) * (a.squareRoot() * o / q)
        return 10 * log10(a * a * ((1 - a * o * o) * (1 - a * o * o) + m) / ((a - o * o) * (a - o * o) + m))
    }

    /// |H(e^{jω})| in dB of a cascade, evaluated here from the raw coefficients
    /// (H = Π (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)), not by the library.
    static func responseDB(_ sections: [BiquadCoefficients], frequencyHz: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequencyHz / sampleRate
        let c1 = cos(w), s1 = -sin(w), c2 = cos(2 * w), s2 = -sin(2 * w)
        var db = 0.0
        for c in sections {
            let nr = c.b0 + c.b1 * c1 + c.b2 * c2, ni = c.b1 * s1 + c.b2 * s2
            let dr = 1 + c.a1 * c1 + c.a2 * c2, di = c.a1 * s1 + c.a2 * s2
            db += 10 * log10((nr * nr + ni * ni) / (dr * dr + di * di))
        }
        return db
    }

    /// Plain scalar Double direct-form-I cascade (the check for the SIMD kernel).
    static func directFormI(_ x: [Float], _ sections: [BiquadCoefficients]) -> [Double] {
        var y = x.map(Double.init)
        for c in sections {
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            for n in 0..<y.count {
                let xn = y[n]
                let yn = c.b0 * xn + c.b1 * x1 + c.b2 * x2 - c.a1 * y1 - c.a2 * y2
                x2 = x1; x1 = xn; y2 = y1; y1 = yn
                y[n] = yn
            }
        }
        return y
    }

    /// Deterministic white noise in ±amplitude.
    static func noise(count: Int, amplitude: Float = 0.5, seed: UInt64 = 42) -> [Float] { Signals.noise(count, amplitude: amplitude, seed: seed) }
}
