import Foundation
import Testing
import CTimbreSupport
import TimbreDSP
import TimbreTestSignals

/// The resampler through its streaming code, against analytic sines: THD+N by a sine fit at
/// the exact output frequency, alias rejection, passband flatness, alignment, block-size
/// independence and length.
@Suite struct ResamplerTests {
    @Test(arguments: [(44_100, 48_000), (48_000, 44_100), (48_000, 96_000), (96_000, 48_000)])
    func highQualityTHDN(rates: (Int, Int)) throws {
        let (fin, fout) = rates
        let input = Signals.sine(fin / 2, hz: 1000, amplitude: 0.5, rate: Double(fin))
        let out = try #require(Resampler.convert([input], ratio: RationalRatio(inputRate: fin, outputRate: fout), quality: .high))[0]
        let fit = SineFit.fit(out, hz: 1000, rate: Double(fout), margin: 400)
        // Issue #8: THD+N ≤ −140 dB for a 1 kHz sine at −6 dBFS with Float I/O.
        #expect(fit.thdnDB <= -140, "\(fin)→\(fout): THD+N \(fit.thdnDB) dB")
        // Aligned: output frame n is the input at n·M/L (no delay, no phase shift).
        #expect(abs(fit.phase) < 1e-6, "\(fin)→\(fout): phase \(fit.phase) rad")
        #expect(abs(20 * log10(fit.amplitude / 0.5)) < 0.001)
        print("resampler high \(fin)→\(fout): THD+N \(String(format: "%.1f", fit.thdnDB)) dB")
    }

    @Test func fastModeTHDN() throws {
        let input = Signals.sine(22_050, hz: 1000, amplitude: 0.5, rate: 44_100)
        let out = try #require(Resampler.convert([input], ratio: RationalRatio(inputRate: 44_100, outputRate: 48_000), quality: .fast))[0]
        let fit = SineFit.fit(out, hz: 1000, rate: 48_000, margin: 400)
        #expect(fit.thdnDB <= -95, "fast 44.1→48: THD+N \(fit.thdnDB) dB")
    }

    /// A tone above the output Nyquist must vanish: ≥ 140 dB below its input level.
    @Test(arguments: [(96_000, 48_000, 25_000.0), (48_000, 24_000, 20_000.0), (48_000, 44_100, 23_000.0)])
    func aliasRejection(rates: (Int, Int, Double)) throws {
        let (fin, fout, hz) = rates
        let input = Signals.sine(fin / 2, hz: hz, amplitude: 0.5, rate: Double(fin))
        let out = try #require(Resampler.convert([input], ratio: RationalRatio(inputRate: fin, outputRate: fout), quality: .high))[0]
        let middle = out[1000..<(out.count - 1000)]
        let rms = (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
        let rejection = 20 * log10(rms / (0.5 / 2.0.squareRoot()))
        #expect(rejection <= -140, "\(hz) Hz at \(fin)→\(fout): \(rejection) dB")
        print("resampler alias \(hz) Hz \(fin)→\(fout): \(String(format: "%.1f", rejection)) dB")
    }

    /// Passband: gain within ±0.01 dB from 20 Hz to 0.9 of the lower Nyquist.
    @Test(arguments: [(44_100, 48_000), (48_000, 44_100), (96_000, 48_000)])
    func passbandFlat(rates: (Int, Int)) throws {
        let (fin, fout) = rates
        let edge = 0.9 * Double(min(fin, fout)) / 2
        var worst = 0.0
        for hz in [20.0, 100, 1000, 5000, 10_000, 15_000, 18_000, edge * 0.97, edge] {
            let input = Signals.sine(fin, hz: hz, amplitude: 0.5, rate: Double(fin))
            let out = try #require(Resampler.convert([input], ratio: RationalRatio(inputRate: fin, outputRate: fout), quality: .high))[0]
            let fit = SineFit.fit(out, hz: hz, rate: Double(fout), margin: 1000)
            worst = max(worst, abs(20 * log10(fit.amplitude / 0.5)))
        }
        #expect(worst <= 0.01, "\(fin)→\(fout): passband deviation \(worst) dB")
    }

    @Test func sameOutputForEveryBlockSize() throws {
        let left = Signals.noise(20_000, seed: 3), right = Signals.noise(20_000, seed: 4)
        let ratio = RationalRatio(inputRate: 44_100, outputRate: 48_000)
        let reference = try #require(Resampler.convert([left, right], ratio: ratio, blockFrames: 4096))
        for block in [1, 7, 64, 1000] {
            let other = try #require(Resampler.convert([left, right], ratio: ratio, blockFrames: block))
            #expect(other == reference, "block \(block) differs")
        }
    }

    @Test(arguments: [(44_100, 48_000), (48_000, 44_100), (8_000, 192_000), (192_000, 8_000), (11_025, 96_000), (96_000, 22_050)])
    func lengthAndDC(rates: (Int, Int)) throws {
        let (fin, fout) = rates
        let n = 12_345
        let ratio = RationalRatio(inputRate: fin, outputRate: fout)
        let out = try #require(Resampler.convert([[Float](repeating: 0.25, count: n)], ratio: ratio, quality: .fast))[0]
        #expect(out.count == Int((Int64(n) * Int64(fout) + Int64(fin) - 1) / Int64(fin)))
        // A constant stays that constant once the filter is inside the signal.
        let m = out.count / 2
        #expect(abs(out[m] - 0.25) < 1e-6)
    }

    /// `high` runs the block-FFT engine for common rates and ratios with large coprime terms
    /// (varispeed's 137/100, a prime 997/1000): it must agree with the polyphase engine, an
    /// independent implementation of the same filter (direct dot products per output frame),
    /// to the Float output's rounding. Three channels exercise the packed pair and the odd
    /// channel; blocks of 1, 333 and 4096 frames the pull model.
    @Test(arguments: [(44_100, 48_000), (48_000, 44_100), (48_000, 96_000), (96_000, 48_000), (8_000, 192_000),
                      (192_000, 8_000), (11_025, 96_000), (100, 137), (1000, 997)])
    func spectralEngineMatchesPolyphase(rates: (Int, Int)) throws {
        let ratio = RationalRatio(inputRate: rates.0, outputRate: rates.1)
        guard let probe = Resampler(ratio: ratio, channelCount: 3, quality: .high, maximumOutputFrames: 64) else {
            Issue.record("no resampler for \(ratio)"); return
        }
        #expect(probe.engineKind == .spectral)
        let channels = (0..<3).map { Signals.noise(6_000, amplitude: 0.5, seed: UInt64(20 + $0)) }
        let direct = try #require(Resampler.convert(channels, ratio: ratio, quality: .high, engine: .polyphase))
        var worst = 0.0
        for block in [1, 333, 4096] {
            let spectral = try #require(Resampler.convert(channels, ratio: ratio, quality: .high, blockFrames: block))
            #expect(spectral.map(\.count) == direct.map(\.count))
            for c in 0..<3 {
                for i in 0..<direct[c].count { worst = max(worst, abs(Double(spectral[c][i]) - Double(direct[c][i]))) }
            }
        }
        // Both compute the same Double sum to ~1e-15; the Float outputs differ by rounding and
        // by the FFT's trigonometric interpolation of the kernel (its stopband, −145 dB).
        let differenceDB = 20 * log10(max(worst, 1e-30) / 0.5)
        #expect(differenceDB <= -135, "\(ratio): worst difference \(worst)")
        print("resampler spectral vs polyphase \(ratio): worst difference \(String(format: "%.1f", differenceDB)) dB re full-scale noise")
    }

    /// A constant converts to the same constant through the block engine too.
    @Test(arguments: [(44_100, 48_000), (192_000, 8_000), (11_025, 96_000)])
    func highQualityDC(rates: (Int, Int)) throws {
        let out = try #require(Resampler.convert([[Float](repeating: 0.25, count: 30_000)],
                                                 ratio: RationalRatio(inputRate: rates.0, outputRate: rates.1), quality: .high))[0]
        let m = out.count / 2
        #expect(abs(out[m] - 0.25) < 1e-6, "\(rates): \(out[m])")
    }

    @Test func rationalApproximation() {
        #expect(RationalRatio(approximating: 1.5) == RationalRatio(3, 2))
        #expect(RationalRatio(approximating: 0.25) == RationalRatio(1, 4))
        let r = RationalRatio(approximating: Double.pi, limit: 1000)
        #expect(r == RationalRatio(355, 113))
        #expect(RationalRatio(inputRate: 44_100, outputRate: 48_000) == RationalRatio(160, 147))
    }
}

/// The dispatched dot-product kernel (AVX2+FMA on CPUs that have it) against the portable one
/// and a plain Double loop: they may differ only by rounding.
@Suite struct DotProductKernelTests {
    @Test func dispatchedMatchesPortableAndReference() {
        var random = SeededRandom(seed: 11)
        for n in [8, 64, 192, 384, 1024] {
            let c = (0..<n).map { _ in Double.random(in: -1...1, using: &random) }
            let x0 = (0..<n).map { _ in Double.random(in: -1...1, using: &random) }
            let x1 = (0..<n).map { _ in Double.random(in: -1...1, using: &random) }
            var a0 = 0.0, a1 = 0.0, p0 = 0.0, p1 = 0.0
            timbre_dot2_f64(c, x0, x1, n, &a0, &a1)
            timbre_dot2_f64_portable(c, x0, x1, n, &p0, &p1)
            let r0 = zip(c, x0).reduce(0.0) { $0 + $1.0 * $1.1 }, r1 = zip(c, x1).reduce(0.0) { $0 + $1.0 * $1.1 }
            let single = timbre_dot_f64(c, x0, n)
            // Σ|cᵢxᵢ| ≤ n, so n·2⁻⁵² bounds any summation order's error.
            let bound = Double(n) * 0x1p-50
            #expect(abs(a0 - r0) <= bound && abs(a1 - r1) <= bound && abs(p0 - r0) <= bound && abs(p1 - r1) <= bound, "n \(n)")
            #expect(abs(single - r0) <= bound)
        }
        print("dot kernels: AVX2+FMA \(timbre_cpu_has_avx2_fma() == 1 ? "in use" : "not available (portable in use)")")
    }
}
