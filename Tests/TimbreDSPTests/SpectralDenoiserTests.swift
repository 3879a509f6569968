import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The spectral denoiser (``SpectralDenoiser``) against what it must do: with nothing taken
/// away, the input exactly, delayed by its stated latency (the analysis-synthesis frame adds
/// up); speech-like tone bursts in white noise kept within 1 dB while the noise between them
/// goes down by at least 15 dB, at 44.1, 48 and 96 kHz (the minimum-statistics estimate and its
/// bias hold at every rate); a learned profile used as it is; a profile's thresholds reading
/// the noise's spread (Gaussian noise's 5.85 dB for white noise, more for noise that comes and
/// goes) and taking such noise further down; the low cut turning rumble fully down even where
/// it stands out; the same bits for every block size. The scores on speech beside the peers
/// are `VoiceCleanupScoreTests`.
@Suite struct SpectralDenoiserTests {
    static func run(_ d: borrowing SpectralDenoiser, _ x: [[Float]], blocks: [Int] = [512]) -> [[Float]] {
        Signals.processed(x, blocks: blocks) { d.process($0, frameCount: $1) }
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

    /// White noise whose level jumps every 40 ms chunk between full and 20 dB down, at random.
    static func comingAndGoing(_ n: Int, seed: UInt64) -> [Float] {
        let chunk = 1_920
        var state = seed
        return Signals.noise(n, amplitude: 0.05, seed: seed).enumerated().map { i, x in
            if i % chunk == 0 { state = state &* 6364136223846793005 &+ 1442695040888963407 }
            return (state >> 33) & 1 == 0 ? x : x * 0.1
        }
    }

    @Test func profileThresholdsReadTheNoisesSpread() throws {
        let rate = 48_000.0
        func middle(_ p: NoiseProfile) throws -> (Double, Double) {
            let t = try #require(p.thresholdsDB)[20..<(p.frequencies.count - 20)]
            return (t.min()!, t.max()!)
        }
        let white = try #require(NoiseProfile.learn(from: [Signals.noise(Int(rate), amplitude: 0.01, seed: 5)], sampleRate: rate))
        let bursty = try #require(NoiseProfile.learn(from: [Self.comingAndGoing(Int(rate), seed: 5)], sampleRate: rate))
        let (w, b) = (try middle(white), try middle(bursty))
        print("profile thresholds: white noise \(String(format: "%.2f…%.2f", w.0, w.1)) dB, noise coming and going \(String(format: "%.2f…%.2f", b.0, b.1)) dB")
        // White noise: its dB levels' mean + 1.5 σ is 5.85 dB over its mean power (the floor);
        // the estimate from 1 s (184 overlapping frames) scatters a few tenths over it.
        #expect(w.0 >= NoiseProfile.gaussianThresholdDB && w.1 < 6.6)
        // Two levels 20 dB apart, half the time each: σ ≈ √(5.57² + 10²) = 11.4 dB, mean + 1.5 σ ≈ 7.6 dB.
        #expect(b.0 > 6.8 && b.1 < 9.5)
        // Too short a stretch for a spread: none, and the denoiser takes Gaussian noise's.
        #expect(NoiseProfile.learn(from: [Signals.noise(1024 + 10 * 256, seed: 5)], sampleRate: rate)?.thresholdsDB == nil)
    }

    @Test func noiseComingAndGoingTakenFurtherDownWithItsThresholds() throws {
        let rate = 48_000.0
        let learned = try #require(NoiseProfile.learn(from: [Self.comingAndGoing(Int(rate), seed: 11)], sampleRate: rate))
        var meanOnly = learned
        meanOnly.thresholdsDB = nil
        let noise = Self.comingAndGoing(Int(4 * rate), seed: 12)
        func reduction(_ profile: NoiseProfile) -> Double {
            let d = SpectralDenoiser(settings: .init(tracking: false, profile: profile), sampleRate: rate, channelCount: 1)
            let y = Self.run(d, [noise])[0]
            return -Self.db(Self.rms(y[Int(rate)...]), Self.rms(noise[Int(rate)...]))
        }
        let (with, without) = (reduction(learned), reduction(meanOnly))
        print("noise coming and going, profile fixed: down \(String(format: "%.1f", with)) dB with its thresholds, \(String(format: "%.1f", without)) dB with the mean alone")
        #expect(with > without + 2)  // 13.3 and 10.2 dB when written
    }

    @Test func lowCutTurnsRumbleDownWhereItStandsOut() {
        let rate = 48_000.0, n = Int(6 * rate), period = Int(0.5 * rate)
        // 25 Hz and 300 Hz bursts (250 ms on, 250 ms off) 40 dB over white noise.
        let rumble = (0..<n).map { i -> Float in (i % period) < period / 2 ? Float(0.1 * sin(2 * Double.pi * 25 * Double(i) / rate)) : 0 }
        let voice = (0..<n).map { i -> Float in (i % period) < period / 2 ? Float(0.1 * sin(2 * Double.pi * 300 * Double(i) / rate)) : 0 }
        let noise = Signals.noise(n, amplitude: Float(0.1 / 2.0.squareRoot() * 3.0.squareRoot() / 100), seed: 9)
        func level(_ tone: [Float], lowCut: Double) -> Double {
            let d = SpectralDenoiser(settings: .init(lowCutHz: lowCut), sampleRate: rate, channelCount: 1)
            let y = Self.run(d, [zip(tone, noise).map(+)])[0], lag = d.latencyFrames
            // The middle 150 ms of the bursts from 3 s on.
            var changes: [Double] = []
            var start = 6 * period
            while start + period + lag < n {
                let on = (start + Int(0.05 * rate))..<(start + Int(0.2 * rate))
                changes.append(Self.db(Self.rms(y[(on.lowerBound + lag)..<(on.upperBound + lag)]), Self.rms(tone[on])))
                start += period
            }
            return changes.reduce(0, +) / Double(changes.count)
        }
        let (cut, kept, voiceKept) = (level(rumble, lowCut: 60), level(rumble, lowCut: 0), level(voice, lowCut: 60))
        print(String(format: "25 Hz bursts: %.1f dB with the 60 Hz low cut, %.2f dB without; 300 Hz bursts %.2f dB", cut, kept, voiceKept))
        // The floor (22 dB) on bins 0 and 1 (0 and 47 Hz); 25 Hz leaks a little into bin 2.
        #expect(cut < -15)
        #expect(abs(kept) < 1 && abs(voiceKept) < 1)
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
