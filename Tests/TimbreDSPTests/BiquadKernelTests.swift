import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The SIMD biquad kernel against a plain scalar Double direct-form-I reference written in
/// the test, across channel counts and block splits.
@Suite struct BiquadKernelTests {
    static let sections = [
        FilterDesign(type: .highPass, frequencyHz: 40, slopeDBPerOctave: 24),
        FilterDesign(type: .peak, frequencyHz: 1200, gainDB: 6, q: 2),
        FilterDesign(type: .highShelf, frequencyHz: 9000, gainDB: -4, q: 0.7),
    ].flatMap { $0.sections(sampleRate: 48000) }

    /// Runs `channels` through `sections` in `blocks`; `kernel` nil: the dispatched one.
    func process(_ channels: [[Float]], _ sections: [BiquadCoefficients], blocks: [Int], kernel: BiquadCascade.Kernel? = nil) -> [[Float]] {
        let cascade = BiquadCascade(sections: sections, channelCount: channels.count), choice = kernel
        let data = PlanarBuffer(channels: channels)
        let n = channels[0].count
        var start = 0, b = 0
        while start < n {
            let len = min(blocks[b % blocks.count], n - start)
            data.withChannelPointers(from: start) { ptrs in
                if let choice { cascade.process(ptrs, frameCount: len, kernel: choice) } else { cascade.process(ptrs, frameCount: len) }
            }
            start += len; b += 1
        }
        return data.channels
    }

    /// SIMD output equals the scalar reference within Float rounding, relative to the signal's
    /// RMS (``Tolerance/Name/kernelVsScalarReference``: the kernel rounds to Float once per
    /// sample, the reference never).
    @Test(arguments: [1, 2, 3, 5, 8])
    func simdMatchesScalarReference(channelCount: Int) {
        let input = (0..<channelCount).map { Reference.noise(count: 20000, seed: UInt64(7 + $0)) }
        let out = process(input, Self.sections, blocks: [20000])
        for c in 0..<channelCount {
            let ref = Reference.directFormI(input[c], Self.sections)
            let rms = (ref.reduce(0) { $0 + $1 * $1 } / Double(ref.count)).squareRoot()
            var worst = 0.0
            for n in 0..<ref.count { worst = max(worst, abs(Double(out[c][n]) - ref[n])) }
            print(String(format: "Kernel vs scalar reference, %d channels, channel %d: worst %.3g of RMS (limit %.3g)", channelCount, c, worst / rms, Tolerance[.kernelVsScalarReference].limit))
            #expect(worst / rms <= Tolerance[.kernelVsScalarReference].limit, "channel \(c): worst \(worst), rms \(rms)")
        }
    }

    /// Every kernel this CPU runs — the portable loop, the AVX2+FMA wavefront, and the same with
    /// AVX-512VL's 32 registers where available — against the Double reference, for cascades
    /// of odd length (one identity pad), of 11 sections (a high-pass and ten bells), of 17, and
    /// longer than one wavefront pass (40 sections: passes of 16 vectors one after another),
    /// mono to 3 channels.
    @Test(arguments: [1, 3, 11, 17, 40])
    func bothPathsMatchTheReference(sectionCount: Int) {
        let designs = (0..<sectionCount).map { k in
            FilterDesign(type: .peak, frequencyHz: 30 * pow(1.2, Double(k % 36)), gainDB: k % 2 == 0 ? 3 : -2.5, q: 1.5)
        }
        let sections = designs.flatMap { $0.sections(sampleRate: 48000) }
        for channelCount in [1, 2, 3] {
            let input = (0..<channelCount).map { Reference.noise(count: 6000, seed: UInt64(40 + $0)) }
            for kernel in BiquadCascade.availableKernels {
                let out = process(input, sections, blocks: [333], kernel: kernel)
                for c in 0..<channelCount {
                    let ref = Reference.directFormI(input[c], sections)
                    let rms = (ref.reduce(0) { $0 + $1 * $1 } / Double(ref.count)).squareRoot()
                    var worst = 0.0
                    for n in 0..<ref.count { worst = max(worst, abs(Double(out[c][n]) - ref[n])) }
                    #expect(worst / rms <= Tolerance[.kernelVsScalarReference].limit,
                            "\(sectionCount) sections, \(channelCount) ch, channel \(c), \(kernel): worst \(worst / rms) of RMS")
                }
            }
        }
        if sectionCount == 11 {
            print("Biquad cascade: kernels here \(BiquadCascade.availableKernels.map(\.description)), dispatched: \(BiquadCascade.kernel)")
        }
    }

    /// Every kernel is bit-identical across block splits (each is the path on some CPU), for
    /// a short cascade, 11 sections (6 vectors), 20 (10 vectors) and 40 (two wavefront passes).
    /// The wavefront kernels run blocks of at least 2V − 1 frames of up to 8 vectors through
    /// fill and drain steps unrolled at compile time, anything else through the general loop:
    /// splits just below, at and above 2V − 1 compare the two.
    @Test func everyKernelIsBitIdenticalAcrossBlockSplits() {
        let input = [Reference.noise(count: 5000, seed: 4), Reference.noise(count: 5000, seed: 5), Reference.noise(count: 5000, seed: 6)]
        func bells(_ count: Int) -> [BiquadCoefficients] {
            (0..<count).flatMap { k in
                FilterDesign(type: .peak, frequencyHz: 40 * pow(1.4, Double(k % 20)), gainDB: k % 2 == 0 ? 2 : -3, q: 1).sections(sampleRate: 48000)
            }
        }
        for kernel in BiquadCascade.availableKernels {
            for sections in [Self.sections, bells(11), bells(20), bells(40)] {
                let depth = 2 * ((sections.count + 1) / 2) - 1
                let whole = process(input, sections, blocks: [5000], kernel: kernel)
                for blocks in [[1], [17], [256], [1, 7, 300, 2], [max(1, depth - 1)], [depth], [depth + 1, depth]] {
                    #expect(process(input, sections, blocks: blocks, kernel: kernel) == whole, "\(kernel), \(sections.count) sections, blocks \(blocks)")
                }
            }
        }
    }

    @Test func blockSplitsAreBitIdentical() {
        let input = [Reference.noise(count: 9000, seed: 1), Reference.noise(count: 9000, seed: 2), Reference.noise(count: 9000, seed: 3)]
        let whole = process(input, Self.sections, blocks: [9000])
        for blocks in [[1], [17], [64], [256], [4096], [1, 7, 300, 2]] {
            #expect(process(input, Self.sections, blocks: blocks) == whole, "blocks \(blocks)")
        }
    }

    /// Short cascades (1–4 sections) run up to four stereo pairs side by side on the wavefront
    /// kernels: each pair's output is bit-identical to that pair run alone as a 2-channel
    /// cascade (so the side-by-side loop changes nothing but speed), for 4 to 9 channels, on
    /// every kernel, in blocks of mixed sizes.
    @Test(arguments: [1, 2, 3, 4])
    func pairsSideBySideEqualPairsAlone(sectionCount: Int) {
        let sections = (0..<sectionCount).flatMap { k in
            FilterDesign(type: .peak, frequencyHz: 100 * pow(3, Double(k)), gainDB: k % 2 == 0 ? 4 : -3, q: 0.8).sections(sampleRate: 48000)
        }
        for kernel in BiquadCascade.availableKernels {
            for channelCount in [4, 5, 6, 8, 9] {
                let input = (0..<channelCount).map { Reference.noise(count: 3000, seed: UInt64(60 + $0)) }
                let together = process(input, sections, blocks: [700, 1, 64], kernel: kernel)
                for c in stride(from: 0, to: channelCount, by: 2) {
                    let alone = process(Array(input[c..<min(c + 2, channelCount)]), sections, blocks: [700, 1, 64], kernel: kernel)
                    #expect(Array(together[c..<min(c + 2, channelCount)]) == alone, "\(kernel), \(channelCount) channels, pair from channel \(c)")
                }
            }
        }
    }

    /// Channels are independent: a signal in one channel leaves silent neighbours silent.
    @Test func channelsDoNotLeak() {
        var input = [[Float]](repeating: [Float](repeating: 0, count: 4000), count: 3)
        input[1] = Reference.noise(count: 4000)
        let out = process(input, Self.sections, blocks: [512])
        #expect(out[0].allSatisfy { $0 == 0 } && out[2].allSatisfy { $0 == 0 })
    }

    /// reset() returns the kernel to its initial state.
    @Test func resetClearsState() {
        let kernel = BiquadCascade(sections: Self.sections, channelCount: 1)
        var a = Reference.noise(count: 1000), b = a
        a.withUnsafeMutableBufferPointer { p in var ptrs = [p.baseAddress!]; kernel.process(&ptrs, frameCount: 1000) }
        kernel.reset()
        b.withUnsafeMutableBufferPointer { p in var ptrs = [p.baseAddress!]; kernel.process(&ptrs, frameCount: 1000) }
        #expect(a == b)
    }

    /// The check: a 10-band EQ rendered through the kernel deviates from its
    /// Double-precision design (the sections' exact response) by at most 0.01 dB, 20 Hz–20 kHz.
    @Test(arguments: [44100.0, 48000, 96000])
    func tenBandEQMatchesItsDesign(sampleRate: Double) {
        let centers = [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
        let gains = [6.0, -4, 3, -12, 2, 9, -6, 4, -3, 12]
        let sections = zip(centers, gains).flatMap { f, g in
            FilterDesign(type: .peak, frequencyHz: f, gainDB: g, q: 1.4).sections(sampleRate: sampleRate)
        }
        let ir = Reference.impulseResponse(sections)
        var worst = 0.0
        for f in Reference.logGrid(20, 20000, count: 200) {
            worst = max(worst, abs(Reference.dtftDB(ir, frequencyHz: f, sampleRate: sampleRate) - sections.magnitudeDB(at: f, sampleRate: sampleRate)))
        }
        print(String(format: "10-band EQ rendered vs design @ %.0f Hz: worst %.6f dB (limit %.4f)", sampleRate, worst, Tolerance[.eqKernelVsDesign].limit))
        #expect(worst <= Tolerance[.eqKernelVsDesign].limit)
    }

    /// After a loud tail, silence decays to exact zeros once FTZ/DAZ is on (the render
    /// threads set it): no subnormal state or output remains.
    @Test func silenceAfterLoudTailFlushesToZero() {
        let previous = DenormalGuard.enable()
        defer { DenormalGuard.restore(previous) }
        #expect(DenormalGuard.isEnabled)
        let sections = FilterDesign(type: .peak, frequencyHz: 1000, gainDB: 12, q: 1).sections(sampleRate: 48000)
        let kernel = BiquadCascade(sections: sections, channelCount: 2)
        var l = Reference.noise(count: 4800, amplitude: 1), r = Reference.noise(count: 4800, amplitude: 1, seed: 9)
        l.withUnsafeMutableBufferPointer { lp in r.withUnsafeMutableBufferPointer { rp in
            var ptrs = [lp.baseAddress!, rp.baseAddress!]; kernel.process(&ptrs, frameCount: 4800)
        } }
        var silenceL = [Float](repeating: 0, count: 48000), silenceR = silenceL
        silenceL.withUnsafeMutableBufferPointer { lp in silenceR.withUnsafeMutableBufferPointer { rp in
            var ptrs = [lp.baseAddress!, rp.baseAddress!]; kernel.process(&ptrs, frameCount: 48000)
        } }
        #expect((silenceL + silenceR).allSatisfy { $0 == 0 || $0.isNormal }, "no subnormal output")
        #expect(silenceL.suffix(1000).allSatisfy { $0 == 0 } && silenceR.suffix(1000).allSatisfy { $0 == 0 }, "decayed to exact zero")
    }
}
