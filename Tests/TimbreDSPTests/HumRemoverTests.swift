import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The hum remover (``HumRemover``) against what #39 asks: the hum's harmonics down at least
/// 40 dB and tones below 300 Hz between them changed by less than 0.5 dB; 50 and 60 Hz mains
/// found by themselves; a mains off by 0.4 Hz followed; one drifting by 0.002 Hz/s followed
/// with its harmonics at least 30 dB down (not 40: the first-order loop lags); the same bits for
/// every block size. Levels are read by a Hann-windowed DFT at each frequency over 8 s after
/// 2 s of settling.
@Suite struct HumRemoverTests {
    static let rate = 48_000.0
    static let speechTones = [73.0, 87, 133, 171, 217, 263, 281]

    static func run(_ h: borrowing HumRemover, _ x: [Float], blocks: [Int] = [256]) -> [Float] {
        Signals.processed([x], blocks: blocks) { h.process($0, frameCount: $1) }[0]
    }

    /// A sine's amplitude at `hz` in `x[from...]` (Hann window, so neighbours 10 Hz off leak less than −100 dB).
    static func amplitude(_ x: [Float], hz: Double, from: Int) -> Double {
        var re = 0.0, im = 0.0, sum = 0.0
        let n = x.count - from
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            let phase = 2 * Double.pi * hz * Double(i + from) / rate
            re += w * Double(x[i + from]) * cos(phase); im += w * Double(x[i + from]) * sin(phase)
            sum += w
        }
        return 2 * (re * re + im * im).squareRoot() / sum
    }

    /// Hum on `fundamental(t)` with 8 harmonics (1/k), plus the speech-band tones.
    static func signal(seconds: Double, fundamental: (Double) -> Double) -> (x: [Float], tones: [Float]) {
        let n = Int(seconds * rate)
        var phase = 0.0, x = [Float](repeating: 0, count: n), tones = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let t = Double(i) / rate
            var hum = 0.0
            for k in 1...8 { hum += 0.05 / Double(k) * sin(2 * Double.pi * Double(k) * phase + 0.3 * Double(k)) }
            phase += fundamental(t) / rate
            let tone = speechTones.reduce(0.0) { $0 + 0.02 * sin(2 * Double.pi * $1 * t) }
            tones[i] = Float(tone); x[i] = Float(hum + tone)
        }
        return (x, tones)
    }

    static func check(_ name: String, mains: HumRemover.Mains, fundamental: @escaping (Double) -> Double, expectFundamental: Double,
                      least: Double = 40) {
        let h = HumRemover(settings: .init(mains: mains), sampleRate: rate, channelCount: 1)
        let (x, tones) = signal(seconds: 10, fundamental: fundamental)
        let y = run(h, x), from = Int(2 * rate)
        var worstHum = -Double.infinity
        let f0 = fundamental(10)
        for k in 1...8 {
            let before = amplitude(x, hz: Double(k) * f0, from: from), after = amplitude(y, hz: Double(k) * f0, from: from)
            worstHum = max(worstHum, 20 * log10(after / before))
        }
        var worstTone = 0.0
        for hz in speechTones {
            worstTone = max(worstTone, abs(20 * log10(amplitude(y, hz: hz, from: from) / amplitude(tones, hz: hz, from: from))))
        }
        print("hum remover, \(name): harmonics down \(String(format: "%.1f", -worstHum)) dB or more, tones below 300 Hz within \(String(format: "%.3f", worstTone)) dB, fundamental \(String(format: "%.3f", h.fundamentalHz)) Hz")
        #expect(worstHum < -least, "\(name)")
        #expect(worstTone < 0.5, "\(name)")
        let deciding = h.deciding
        #expect(!deciding)
        #expect(abs(h.fundamentalHz - expectFundamental) < 0.05, "\(name)")
    }

    @Test func fiftyFound() { Self.check("50 Hz, found", mains: .automatic, fundamental: { _ in 50 }, expectFundamental: 50) }
    @Test func sixtyFound() { Self.check("60 Hz, found", mains: .automatic, fundamental: { _ in 60 }, expectFundamental: 60) }
    @Test func offsetFollowed() { Self.check("50.4 Hz", mains: .fifty, fundamental: { _ in 50.4 }, expectFundamental: 50.4) }
    @Test func driftFollowed() {
        // 59.99 → 60.01 Hz over 10 s: 0.002 Hz/s, as fast as a grid's frequency moves outside
        // of a fault (it wanders by about ±0.05 Hz over minutes).
        Self.check("59.99 → 60.01 Hz drifting", mains: .automatic, fundamental: { 59.99 + 0.002 * $0 }, expectFundamental: 60.01,
                   least: 30)  // measured 34.7 dB: the loop follows 0.002 Hz behind, which the 8th harmonic's notch feels
    }

    /// No hum (pink-ish noise and a voice-like glide through the harmonics): none is found
    /// after the first second, and from then on the signal passes bit for bit.
    @Test func noHumFoundNothingTaken() {
        let n = Int(4 * Self.rate)
        var phase = 0.0
        let glide = (0..<n).map { i -> Float in
            let t = Double(i) / Self.rate
            phase += (120 + 40 * sin(2 * Double.pi * 0.7 * t)) / Self.rate
            return Float(0.1 * sin(2 * Double.pi * phase) + 0.05 * sin(4 * Double.pi * phase))
        }
        let x = zip(glide, Signals.noise(n, amplitude: 0.02, seed: 9)).map(+)
        let h = HumRemover(settings: .init(), sampleRate: Self.rate, channelCount: 1)
        let y = Self.run(h, x)
        let removing = h.removing, from = Int(1.01 * Self.rate)
        #expect(!removing)
        #expect(Array(y[from...]) == Array(x[from...]))
    }

    /// A voice on the harmonics themselves (100 and 200 Hz, in syllables of 0.3 s every 0.6 s,
    /// 26 dB over the hum) is kept: while it sounds the residual stands over its floor and the
    /// weights hold the hum they learnt in the gaps, so they subtract the hum and leave the
    /// voice. What is left besides the voice and the noise, within the syllables after the
    /// first 2 s, is measured against the voice: 49.6 dB under it (with the step always whole,
    /// as before, the notches took the syllables' 100 and 200 Hz away: 5.4 dB under it).
    @Test func voiceOnTheHarmonicsKept() {
        let n = Int(8 * Self.rate)
        let noise = Signals.noise(n, amplitude: 0.0005, seed: 5)
        var x = [Float](repeating: 0, count: n), voice = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let t = Double(i) / Self.rate
            var hum = 0.0
            for k in 1...8 { hum += 0.005 / Double(k) * sin(2 * Double.pi * 50 * Double(k) * t + 0.3 * Double(k)) }
            // Syllables from 1.5 s (after the mains is found), raised-cosine shaped.
            let cycle = t - 1.5 - 0.6 * ((t - 1.5) / 0.6).rounded(.down)
            let envelope = t >= 1.5 && cycle < 0.3 ? 0.5 - 0.5 * cos(2 * Double.pi * cycle / 0.3) : 0
            let v = envelope * (0.1 * sin(2 * Double.pi * 100 * t) + 0.05 * sin(2 * Double.pi * 200 * t + 1))
            voice[i] = Float(v); x[i] = Float(hum + v) + noise[i]
        }
        let h = HumRemover(settings: .init(), sampleRate: Self.rate, channelCount: 1)
        let y = Self.run(h, x)
        var error = 0.0, energy = 0.0
        for i in Int(2 * Self.rate)..<n where voice[i] != 0 {
            let e = Double(y[i]) - Double(voice[i]) - Double(noise[i])
            error += e * e; energy += Double(voice[i]) * Double(voice[i])
        }
        let left = 10 * log10(error / energy), removing = h.removing
        print("hum remover, a voice on the 2nd and 4th harmonics: all but the voice \(String(format: "%.1f", left)) dB under it")
        #expect(removing)
        #expect(left < -30)
    }

    /// A hum that starts after 3 s of digital silence (`mains` 50 given: `auto` decides in the
    /// first second) is taken down as one from the start is: after digital silence the
    /// residual's floor starts 30 dB under the residual instead of at nothing, so the step is
    /// not held (without that, the harmonics came out 0.0 dB down: the weights never moved).
    @Test func humAfterDigitalSilence() {
        let (hum, _) = Self.signal(seconds: 8, fundamental: { _ in 50 })
        let silence = Int(3 * Self.rate)
        let x = [Float](repeating: 0, count: silence) + hum
        let h = HumRemover(settings: .init(mains: .fifty), sampleRate: Self.rate, channelCount: 1)
        let y = Self.run(h, x), from = silence + Int(2 * Self.rate)
        var worst = -Double.infinity
        for k in 1...8 {
            worst = max(worst, 20 * log10(Self.amplitude(y, hz: 50 * Double(k), from: from) / Self.amplitude(x, hz: 50 * Double(k), from: from)))
        }
        print("hum remover, 50 Hz after 3 s of digital silence: harmonics down \(String(format: "%.1f", -worst)) dB or more")
        #expect(worst < -40)
    }

    @Test func sameBitsForEveryBlockSize() {
        let (x, _) = Self.signal(seconds: 2, fundamental: { _ in 50.2 })
        let reference = Self.run(HumRemover(settings: .init(), sampleRate: Self.rate, channelCount: 1), x, blocks: [4096])
        for blocks in [[1], [64], [1000], [7, 256, 33, 1024, 5]] {
            let same = Self.run(HumRemover(settings: .init(), sampleRate: Self.rate, channelCount: 1), x, blocks: blocks) == reference
            #expect(same, "blocks \(blocks)")
        }
    }
}
