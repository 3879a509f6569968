import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// Every TimbreDSP kernel keeps the one contract (``AudioKernel``): prepared through
/// `init(_:format:)`, `reset()` gives what a fresh kernel gives, `continueState(from:)` gives
/// what an uninterrupted kernel gives, and `clearNonFinite()` brings a kernel poisoned by NaN
/// and infinity back to finite output. Each check is exact (bit for bit), on stereo noise at
/// 48 kHz in blocks of 256 frames, through the kernels' own `process`.
@Suite struct KernelContractTests {
    static let format = KernelFormat(sampleRate: 48_000, channelCount: 2, maximumBlockFrames: 256)
    static func noise(_ frames: Int, seed: UInt64, amplitude: Float = 0.7) -> [[Float]] {
        [Signals.noise(frames, amplitude: amplitude, seed: seed), Signals.noise(frames, amplitude: amplitude, seed: seed + 100)]
    }

    /// What an in-place kernel leaves: the processed samples, then its readings.
    static func inPlace<K: InPlaceAudioKernel & ~Copyable>(_ readings: @escaping (borrowing K) -> [Double]) -> (borrowing K, [[Float]]) -> [Double] {
        { kernel, x in
            var out: [Double] = []
            Signals.forEachBlock(x, size: format.maximumBlockFrames) { p, n, _ in
                kernel.process(p, frameCount: n)
                for c in 0..<x.count { for i in 0..<n { out.append(Double(p[c][i])) } }
            }
            return out + readings(kernel)
        }
    }

    /// Bit-for-bit equality (NaN never equal).
    static func same(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { $0 == $1 } }
    static func finite(_ a: [Double]) -> Bool { a.allSatisfy(\.isFinite) }

    /// reset() after some signal == a fresh kernel.
    static func checkReset<K: AudioKernel & ~Copyable>(_ name: String, _ make: () -> K?, _ run: (borrowing K, [[Float]]) -> [Double]) throws {
        guard let used = make(), let fresh = make() else { Issue.record("\(name): not prepared"); return }
        _ = run(used, noise(4_000, seed: 1))
        used.reset()
        let x = noise(6_000, seed: 2)
        let a = run(used, x), b = run(fresh, x)
        let equal = same(a, b)
        #expect(equal, "\(name): reset differs from a fresh kernel (\(zip(a, b).filter { $0 != $1 }.count) of \(a.count) values)")
    }

    /// A kernel continuing another's state == the uninterrupted kernel.
    static func checkContinue<K: ContinuableAudioKernel & ~Copyable>(_ name: String, _ make: () -> K?, _ run: (borrowing K, [[Float]]) -> [Double]) throws {
        guard let whole = make(), let first = make(), let second = make() else { Issue.record("\(name): not prepared"); return }
        let x1 = noise(5_000, seed: 3), x2 = noise(7_000, seed: 4)
        _ = run(whole, x1)
        let uninterrupted = run(whole, x2)
        _ = run(first, x1)
        second.continueState(from: first)
        let continued = run(second, x2)
        let equal = same(uninterrupted, continued)
        #expect(equal,
                "\(name): continued state differs (\(zip(uninterrupted, continued).filter { $0 != $1 }.count) of \(continued.count) values)")
    }

    /// NaN and infinity in a block; after clearNonFinite() the next blocks are finite again.
    static func checkClearNonFinite<K: AudioKernel & ~Copyable>(_ name: String, _ make: () -> K?, _ run: (borrowing K, [[Float]]) -> [Double],
                                                               poisons: Bool = true) throws {
        guard let kernel = make() else { Issue.record("\(name): not prepared"); return }
        _ = run(kernel, noise(2_000, seed: 5))
        let cleanFound = kernel.clearNonFinite()
        #expect(!cleanFound, "\(name): found non-finite state in a clean kernel")
        var bad = noise(512, seed: 6)
        bad[0][100] = .nan; bad[1][200] = .infinity; bad[0][300] = -.infinity
        _ = run(kernel, bad)
        let cleared = kernel.clearNonFinite()
        if poisons { #expect(cleared, "\(name): non-finite input left no trace to clear") }
        let after = run(kernel, noise(12_000, seed: 7))
        let clean = finite(after)
        #expect(clean, "\(name): \(after.filter { !$0.isFinite }.count) non-finite values after clearNonFinite()")
        let foundAgain = kernel.clearNonFinite()
        #expect(!foundAgain, "\(name): non-finite state came back")
    }

    static func all<K: InPlaceAudioKernel & ContinuableAudioKernel & ~Copyable>(_ name: String, _ make: () -> K?,
                                                                                  readings: @escaping (borrowing K) -> [Double] = { _ in [] },
                                                                                  poisons: Bool = true) throws {
        let run: (borrowing K, [[Float]]) -> [Double] = inPlace(readings)
        try checkReset(name, make, run)
        try checkContinue(name, make, run)
        try checkClearNonFinite(name, make, run, poisons: poisons)
    }

    @Test func filtersAndDelays() throws {
        let sections = FilterDesign(type: .peak, frequencyHz: 1_000, gainDB: 6, q: 1).sections(sampleRate: 48_000)
            + FilterDesign(type: .highPass, frequencyHz: 80, slopeDBPerOctave: 24).sections(sampleRate: 48_000)
        try Self.all("BiquadCascade", { BiquadCascade(sections, format: Self.format) })
        try Self.all("DelayLine", { DelayLine(333, format: Self.format) })
        let taps = (0..<1_500).map { Float(($0 % 3 == 0 ? 0.4 : -0.3) * exp(-Double($0) / 300)) }
        let filter = ConvolutionFilter(responses: [taps], layout: PartitionLayout(length: taps.count, headTaps: 32, maximumPartition: 256))
        try Self.all("PartitionedConvolver", { PartitionedConvolver(filter, format: Self.format) })
        let lp = FilterDesign(type: .lowPass, frequencyHz: 3_000).sections(sampleRate: 48_000)[0]
        try Self.all("EchoDelay", { EchoDelay(.init(delayFrames: 777.25, feedback: 0.7, mix: 0.5, highCut: lp), format: Self.format) })
    }

    @Test func dynamics() throws {
        let curve = CompressorCurve(thresholdDB: -20, ratio: 4, kneeDB: 6)
        try Self.all("Compressor (RMS, lookahead)", {
            Compressor(Compressor.Settings(curve: curve, attackSeconds: 0.005, releaseSeconds: 0.05, detector: .rms(windowSeconds: 0.01),
                                           lookaheadSeconds: 0.003),
                       format: Self.format)
        })
        try Self.all("Compressor (peak, key filter)", {
            Compressor(Compressor.Settings(curve: curve, keyFilter: FilterDesign(type: .highPass, frequencyHz: 4_000, slopeDBPerOctave: 12).sections(sampleRate: 48_000)),
                       format: Self.format)
        })
        // (A gate's and a sample-peak limiter's state stays finite on NaN input: comparisons
        // pass it by; their output must still be finite after it.)
        try Self.all("Gate", { Gate(Gate.Settings(thresholdDB: -12, holdSeconds: 0.01), format: Self.format) }, poisons: false)
        try Self.all("TruePeakLimiter", { TruePeakLimiter(TruePeakLimiter.Settings(ceilingDB: -6), format: Self.format) })
        try Self.all("TruePeakLimiter (sample peak, unlinked)", {
            TruePeakLimiter(TruePeakLimiter.Settings(ceilingDB: -3, link: 0, samplePeak: true), format: Self.format)
        }, poisons: false)
    }

    @Test func meters() throws {
        // A meter's readings after the run: everything it reports.
        try Self.all("LevelMeter", { LevelMeter(format: Self.format) }, readings: { m in
            (0..<2).flatMap { c in [m.samplePeakDBFS(channel: c), m.rmsDBFS(channel: c), m.peakPower(channel: c), m.averagePower(channel: c)] }
        }, poisons: false)
        try Self.all("TruePeakMeter", { TruePeakMeter(format: Self.format) }, readings: { m in [Double(m.peak(channel: 0)), Double(m.peak(channel: 1))] })
        try Self.all("LoudnessMeter", { LoudnessMeter(format: Self.format) }, readings: { m in
            [m.momentaryLUFS, m.shortTermLUFS, m.maxMomentaryLUFS, m.integratedLUFS].map { $0.isFinite ? $0 : -1000 }
        })
        try Self.all("SpectrumKernel", { SpectrumKernel(1024, format: Self.format) }, readings: { s in
            (0..<s.binCount).map { Double(s.averagePower[$0]) } + [Double(s.frames)]
        })
    }

    /// The stream converters: reset and clearNonFinite (they are shared across plans, not continued).
    @Test func converters() throws {
        func pull<K: AudioKernel & ~Copyable>(need: @escaping (borrowing K, Int) -> Int,
                                              process: @escaping (borrowing K, UnsafePointer<UnsafePointer<Float>>, Int, UnsafePointer<UnsafeMutablePointer<Float>>, Int) -> Void)
            -> (borrowing K, [[Float]]) -> [Double] {
            { kernel, x in
                var out: [Double] = [], read = 0
                let outputs = PlanarBuffer(channelCount: 2, capacity: 256)
                while true {
                    let want = need(kernel, 256)
                    guard read + want <= x[0].count else { break }
                    let slice = x.map { Array($0[read..<(read + want)]) }
                    PlanarBuffer(channels: slice).withChannelPointers { input in
                        let constant = UnsafeRawPointer(input).assumingMemoryBound(to: UnsafePointer<Float>.self)
                        outputs.withChannelPointers { process(kernel, constant, want, $0, 256) }
                    }
                    read += want
                    for c in 0..<2 { out += outputs[c].map(Double.init) }
                }
                return out
            }
        }
        let ratio = RationalRatio(inputRate: 44_100, outputRate: 48_000)
        for quality in [ResamplerQuality.high, .fast] {
            let run: (borrowing Resampler, [[Float]]) -> [Double] = pull(need: { $0.inputFramesNeeded(forOutputFrames: $1) },
                                                                          process: { $0.process(input: $1, inputFrames: $2, output: $3, outputFrames: $4) })
            try Self.checkReset("Resampler \(quality)", { Resampler(Resampler.Setup(ratio: ratio, quality: quality), format: Self.format) }, run)
            // (The spectral engine's blocks have moved past the poisoned input by then.)
            try Self.checkClearNonFinite("Resampler \(quality)", { Resampler(Resampler.Setup(ratio: ratio, quality: quality), format: Self.format) }, run,
                                         poisons: quality == .fast)
        }
        let variable: (borrowing VariableResampler, [[Float]]) -> [Double] = pull(need: { $0.inputFramesNeeded(forOutputFrames: $1) },
                                                                                  process: { $0.process(input: $1, inputFrames: $2, output: $3, outputFrames: $4) })
        try Self.checkReset("VariableResampler", { VariableResampler(1.3, format: Self.format) }, variable)
        try Self.checkClearNonFinite("VariableResampler", { VariableResampler(1.3, format: Self.format) }, variable)

        let shift: (borrowing PitchShifter, [[Float]]) -> [Double] = { shifter, x in
            var out: [Double] = []
            Signals.forEachBlock(x, size: 256) { p, n, _ in
                shifter.process(input: UnsafeRawPointer(p).assumingMemoryBound(to: UnsafePointer<Float>.self), output: p, frameCount: n)
                for c in 0..<2 { for i in 0..<n { out.append(Double(p[c][i])) } }
            }
            return out
        }
        try Self.checkReset("PitchShifter", { PitchShifter(5, format: Self.format) }, shift)
        try Self.checkClearNonFinite("PitchShifter", { PitchShifter(5, format: Self.format) }, shift)

        let stretch: (borrowing TimeStretcher, [[Float]]) -> [Double] = { stretcher, x in
            var out: [Double] = []
            let outputs = PlanarBuffer(channelCount: 2, capacity: 8_192)
            Signals.forEachBlock(x, size: 256) { p, n, _ in
                stretcher.push(UnsafeRawPointer(p).assumingMemoryBound(to: UnsafePointer<Float>.self), frameCount: n)
                let ready = min(stretcher.availableFrames, 8_192)
                if ready > 0 {
                    outputs.withChannelPointers { stretcher.pull($0, frameCount: ready) }
                    for c in 0..<2 { out += outputs[c].prefix(ready).map(Double.init) }
                }
            }
            return out
        }
        try Self.checkReset("TimeStretcher", { TimeStretcher((rate: 1.25, options: .streaming), format: Self.format) }, stretch)
        try Self.checkClearNonFinite("TimeStretcher", { TimeStretcher((rate: 1.25, options: .streaming), format: Self.format) }, stretch)
    }

    /// A kernel held by a class: moved out once, freed with the box otherwise.
    @Test func kernelBoxHandsItsKernelOverOnce() throws {
        let box = KernelBox(LoudnessMeter(sampleRate: 48_000, channelCount: 1))
        #expect(box.withKernel { $0.channelCount } == 1)
        func holds(_ kernel: consuming LoudnessMeter?) -> Bool {
            switch consume kernel {
            case .some: true
            case .none: false
            }
        }
        #expect(box.holdsKernel)
        let first = holds(box.take())
        let emptied = !box.holdsKernel
        let second = holds(box.take())
        #expect(first && emptied && !second, "first take \(first), empty after \(emptied), second take \(second)")
    }
}
