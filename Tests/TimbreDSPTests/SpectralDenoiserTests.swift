import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The spectral denoiser (``SpectralDenoiser``) against what it must do: with nothing taken
/// away, the input exactly, delayed by its stated latency (the analysis-synthesis frame adds
/// up); speech-like tone bursts in white noise kept within 1 dB while the noise between them
/// goes down by at least 15 dB, at 44.1, 48 and 96 kHz (the minimum-statistics estimate and its
/// bias hold at every rate); a learned profile used as it is; the same bits for every block
/// size. The scores on speech beside the peers are `VoiceCleanupScoreTests`.
@Suite struct SpectralDenoiserTests {
    static func run(_ d: borrowing SpectralDenoiser, _ x: [[Float]], blocks: [Int] = [512]) -> [[Float]] {
        let buffer = PlanarBuffer(channels: x)
        var start = 0, k = 0
        while start < x[0].count {
            let n = min(blocks[k % blocks.count], x[0].count - start)
            buffer.withChannelPointers(from: start) { d.process($0, frameCount: n) }
            start += n; k += 1
        }
        return buffer.channels
    }

    static func rms(_ x: ArraySlice<Float>) -> Double { (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }
    static func db(_ a: Double, _ b: Double) -> Double { 20 * log10(a / b) }

    /// 1 kHz bursts, 250 ms on and 250 ms off, plus white noise 40 dB below the bursts.
    static func bursts(rate: Double, seconds: Double) -> (signal: [Float], tone: [Float], noise: [Float]) {
        let n = Int(seconds * rate), period = Int(0.5 * rate)
        let tone = (0..<n).map { i -> Float in (i % period) < period / 2 ? Float(0.1 * sin(2 * Double.pi * 1000 * Double(i) / rate)) : 0 }
        // Uniform noise of amplitude a has RMS a/√3; the bursts' RMS is 0.1/√2: 40 dB above.
        let noise = Signals.noise(n, amplitude: Float(0.1 / 2.0.squareRoot() * 3.0.squareRoot() / 100), seed: 7)
        return (zip(tone, noise).map(+), tone, noise)
    }

    @Test func nothingTakenAwayIsTheInputDelayed() {
        let rate = 48_000.0
        let d = SpectralDenoiser(settings: .init(reductionDB: 0), sampleRate: rate, channelCount: 2)
        let x = [Signals.noise(20_000, seed: 1), Signals.sine(20_000, hz: 440, amplitude: 0.5)]
        let y = Self.run(d, x)
        #expect(d.latencyFrames == 2048)
        var worst: Float = 0
        for c in 0..<2 { for i in d.latencyFrames..<x[c].count { worst = max(worst, abs(y[c][i] - x[c][i - d.latencyFrames])) } }
        print("denoiser at reduction 0: worst difference from the input delayed by \(d.latencyFrames) frames \(worst)")
        #expect(worst < 2e-6)
    }

    @Test(arguments: [44_100.0, 48_000, 96_000])
    func burstsKeptNoiseRemoved(rate: Double) {
        let d = SpectralDenoiser(settings: .init(reductionDB: 30), sampleRate: rate, channelCount: 1)
        let (x, tone, noise) = Self.bursts(rate: rate, seconds: 8)
        let y = Self.run(d, [x])[0], lag = d.latencyFrames, period = Int(0.5 * rate)
        // From 3 s on: the middle 150 ms of every burst and of every gap.
        var toneChange: [Double] = [], gapReduction: [Double] = []
        var start = 6 * period
        while start + period + lag < x.count {
            let on = (start + Int(0.05 * rate))..<(start + Int(0.2 * rate)), off = (start + period / 2 + Int(0.05 * rate))..<(start + period / 2 + Int(0.2 * rate))
            toneChange.append(Self.db(Self.rms(y[(on.lowerBound + lag)..<(on.upperBound + lag)]), Self.rms(tone[on])))
            gapReduction.append(Self.db(Self.rms(y[(off.lowerBound + lag)..<(off.upperBound + lag)]), Self.rms(noise[off])))
            start += period
        }
        let worstTone = toneChange.map(abs).max()!, leastReduction = -gapReduction.max()!
        print("denoiser at \(Int(rate)) Hz: bursts changed by at most \(String(format: "%.2f", worstTone)) dB, noise between them down \(String(format: "%.1f", leastReduction)) dB or more")
        #expect(worstTone < 1)
        // Noise alone comes out about 19 dB down under the LSA rule (`learnedProfileUsedAsItIs`);
        // 50 ms after a burst the decision-directed estimate still remembers it a little.
        #expect(leastReduction > 15)
    }

    @Test func learnedProfileUsedAsItIs() {
        let rate = 48_000.0
        let noise = Signals.noise(Int(4 * rate), amplitude: 0.01, seed: 3)
        let profile = NoiseProfile.learn(from: [Array(noise[0..<Int(rate)])], sampleRate: rate)!
        // White noise of variance a²/3 reads 10·log₁₀(a²/3) at every frequency.
        let expected = 10 * log10(0.01 * 0.01 / 3)
        let mid = profile.levelsDB[10..<(profile.levelsDB.count - 10)]
        let spread = (mid.min()! - expected, mid.max()! - expected)
        print("learned profile of white noise: \(String(format: "%.2f…%.2f", spread.0, spread.1)) dB from its variance")
        #expect(abs(mid.reduce(0, +) / Double(mid.count) - expected) < 0.3)
        let d = SpectralDenoiser(settings: .init(reductionDB: 30, tracking: false, profile: profile), sampleRate: rate, channelCount: 1)
        let y = Self.run(d, [noise])[0]
        let reduction = -Self.db(Self.rms(y[Int(rate)...]), Self.rms(noise[Int(rate)...]))
        // The LSA rule leaves noise alone about 20 dB down (its gain follows each bin's
        // fluctuation); the floor only bounds it.
        print("fixed learned profile: noise down \(String(format: "%.1f", reduction)) dB (floor 30)")
        #expect(reduction > 15 && reduction < 31)
    }

    @Test func sameBitsForEveryBlockSize() {
        let rate = 48_000.0
        let (x, _, _) = Self.bursts(rate: rate, seconds: 2)
        let input = [x, Array(x.reversed())]
        let reference = Self.run(SpectralDenoiser(settings: .init(), sampleRate: rate, channelCount: 2), input, blocks: [4096])
        for blocks in [[1], [64], [1000], [7, 256, 33, 1024, 5]] {
            let y = Self.run(SpectralDenoiser(settings: .init(), sampleRate: rate, channelCount: 2), input, blocks: blocks)
            #expect(y == reference, "blocks \(blocks)")
        }
    }
}
