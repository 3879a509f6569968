import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// The echo (``EchoDelay``) against what a delay must be: an impulse exactly at a whole
/// number of frames; between frames within −80 dB of the ideal delay e^(−jωD) up to 0.4 of the
/// rate (a naive DFT of the impulse response on a dense grid); feedback decaying by its factor
/// per echo; the same bits for every block size; no click while the time is swept.
@Suite struct EchoDelayTests {
    static let rate = 48_000.0

    static func run(_ delay: borrowing EchoDelay, _ x: [[Float]], block: Int, retune: (at: Int, values: EchoDelay.Values)? = nil,
                    sweep: ((Int) -> EchoDelay.Values)? = nil) -> [[Float]] {
        let buffer = PlanarBuffer(channels: x)
        var start = 0
        while start < x[0].count {
            if let retune, retune.at == start { delay.retune(retune.values) }
            if let sweep { delay.retune(sweep(start)) }
            let n = min(block, x[0].count - start)
            buffer.withChannelPointers(from: start) { delay.process($0, frameCount: n) }
            start += n
        }
        return buffer.channels
    }

    static func impulse(_ frames: Int, at position: Int = 0) -> [Float] {
        var x = [Float](repeating: 0, count: frames)
        x[position] = 1
        return x
    }

    @Test(arguments: [1.0, 2, 3, 37, 38, 39, 1_000, 48_000, 240_000])
    func aWholeFrameDelayIsExact(frames: Double) {
        let delay = EchoDelay(values: .init(delayFrames: frames, feedback: 0, mix: 1), sampleRate: Self.rate, channelCount: 1, maximumDelayFrames: 240_000)
        let n = Int(frames) + 200
        let y = Self.run(delay, [Self.impulse(n, at: 50)], block: 256)[0]
        let expected = (0..<n).map { $0 == 50 + Int(frames) ? Float(1) : 0 }
        #expect(y == expected, "\(frames) frames")
    }

    /// |H(f) − e^(−j2πfD/rate)| on 2,000 frequencies from 0 to 0.4 × rate, for fractional
    /// delays from the interpolator's reach (38 frames) up.
    @Test(arguments: [38.5, 40.25, 100.37, 1_000.5, 12_345.678])
    func aFractionalDelayIsWithinMinus80dB(frames: Double) {
        let delay = EchoDelay(values: .init(delayFrames: frames, feedback: 0, mix: 1), sampleRate: Self.rate, channelCount: 1, maximumDelayFrames: 20_000)
        let n = Int(frames) + 120
        let h = Self.run(delay, [Self.impulse(n)], block: 64)[0]
        var worst = 0.0
        for k in 0...2_000 {
            let f = 0.4 * Double(k) / 2_000  // cycles per sample
            var re = 0.0, im = 0.0
            for (i, v) in h.enumerated() where v != 0 { re += Double(v) * cos(2 * .pi * f * Double(i)); im -= Double(v) * sin(2 * .pi * f * Double(i)) }
            let ire = cos(2 * .pi * f * frames), iim = -sin(2 * .pi * f * frames)
            worst = max(worst, ((re - ire) * (re - ire) + (im - iim) * (im - iim)).squareRoot())
        }
        let db = 20 * log10(worst)
        print(String(format: "fractional delay %.3f frames: worst error %.1f dB up to 0.4 fs", frames, db))
        #expect(db < -80, "\(frames) frames: \(db) dB")
    }

    /// Echo k (k = 1, 2, …) of an impulse comes at k × D with amplitude feedback^(k−1): the set
    /// rate, exactly (identity loop filters), inverted for negative feedback.
    @Test(arguments: [0.5, -0.7, 1])
    func feedbackDecaysAtItsRate(feedback: Double) {
        let d = 100
        let delay = EchoDelay(values: .init(delayFrames: Double(d), feedback: feedback, mix: 1), sampleRate: Self.rate, channelCount: 1, maximumDelayFrames: 1_000)
        let y = Self.run(delay, [Self.impulse(20 * d + 1)], block: 77)[0]
        for i in 0..<y.count {
            let k = i / d
            let expected: Float = i % d == 0 && k >= 1 ? Float(pow(feedback, Double(k - 1))) : 0
            #expect(abs(y[i] - expected) <= 1e-6 * abs(expected), "frame \(i): \(y[i]), expected \(expected)")
        }
    }

    /// With loop filters a long feedback tail stays finite and falls: 100 % feedback through a
    /// 2 kHz high-cut loses the high frequencies echo by echo.
    @Test func theLoopFiltersShapeTheTail() {
        let lp = FilterDesign(type: .lowPass, frequencyHz: 2_000).sections(sampleRate: Self.rate)[0]
        let hp = FilterDesign(type: .highPass, frequencyHz: 100).sections(sampleRate: Self.rate)[0]
        let delay = EchoDelay(values: .init(delayFrames: 480, feedback: 1, mix: 1, lowCut: hp, highCut: lp), sampleRate: Self.rate, channelCount: 1, maximumDelayFrames: 1_000)
        let x = Signals.noise(480, amplitude: 0.5, seed: 3) + [Float](repeating: 0, count: 48_000)
        let y = Self.run(delay, [x], block: 128)[0]
        var energies: [Double] = []
        for from in [480, 4_800, 43_200] { energies.append(y[from..<(from + 480)].map { Double($0 * $0) }.reduce(0, +)) }
        #expect(energies[0] > energies[1] && energies[1] > energies[2], "\(energies)")
        let finite = y.allSatisfy { $0.isFinite }
        #expect(finite)
    }

    /// The same bits for every block size, in both change modes, with a time change taken
    /// at frame 8,192 (a multiple of every block) and ping-pong.
    @Test(arguments: [EchoDelay.TimeChange.crossfade, .glide])
    func everyBlockSizeGivesTheSameBits(change: EchoDelay.TimeChange) {
        let x = [Signals.noise(30_000, amplitude: 0.5, seed: 1), Signals.noise(30_000, amplitude: 0.5, seed: 2)]
        let lp = FilterDesign(type: .lowPass, frequencyHz: 5_000).sections(sampleRate: Self.rate)[0]
        for pingPong in [false, true] {
            var outputs: [[[Float]]] = []
            for block in [1, 64, 128, 512, 4_096] {
                let delay = EchoDelay(values: .init(delayFrames: 1_234.5, feedback: 0.6, mix: 0.4, highCut: lp), sampleRate: Self.rate, channelCount: 2,
                                      maximumDelayFrames: 10_000, change: change, pingPong: pingPong)
                outputs.append(Self.run(delay, x, block: block, retune: (8_192, .init(delayFrames: 3_000.25, feedback: -0.5, mix: 0.7, highCut: lp))))
            }
            #expect(outputs.allSatisfy { $0 == outputs[0] }, "\(change), ping-pong \(pingPong)")
        }
    }

    /// Ping-pong: an impulse in the left channel echoes left (mid), right, left, … every D.
    @Test func pingPongAlternatesTheSides() {
        let delay = EchoDelay(values: .init(delayFrames: 100, feedback: 0.5, mix: 1), sampleRate: Self.rate, channelCount: 2, maximumDelayFrames: 1_000, pingPong: true)
        let y = Self.run(delay, [Self.impulse(501), [Float](repeating: 0, count: 501)], block: 64)
        #expect(y[0][100] == 0.5 && y[1][100] == 0)
        #expect(y[0][200] == 0 && y[1][200] == 0.25)
        #expect(y[0][300] == 0.125 && y[1][300] == 0)
        #expect(y[1][400] == 0.0625)
    }

    /// A 1-second sweep of the time from 400 down to 100 ms (a new target every 64-frame block)
    /// on a 440 Hz sine: the largest step between samples against the sine's own largest step
    /// (2π·440/48,000 of its amplitude). A crossfade never exceeds it (two reads of the same
    /// tone fade in sum); a glide raises the pitch while the read moves forward (by the read's
    /// speed, 1 + 0.3 s per second here), never a jump.
    @Test(arguments: [EchoDelay.TimeChange.crossfade, .glide])
    func aTimeSweepHasNoClick(change: EchoDelay.TimeChange) {
        let frames = 96_000, amplitude: Float = 0.5
        let x = [(0..<frames).map { amplitude * Float(sin(2 * Double.pi * 440 * Double($0) / Self.rate)) }]
        let delay = EchoDelay(values: .init(delayFrames: 19_200, feedback: 0, mix: 1), sampleRate: Self.rate, channelCount: 1, maximumDelayFrames: 48_000, change: change)
        let y = Self.run(delay, x, block: 64, sweep: { start in
            let t = min(1, max(0, Double(start - 24_000) / 48_000))
            return .init(delayFrames: (0.4 - 0.3 * t) * Self.rate, feedback: 0, mix: 1)
        })[0]
        let own = Double(amplitude) * 2 * Double.pi * 440 / Self.rate
        let step = (20_000..<frames).map { Double(abs(y[$0] - y[$0 - 1])) }.max()!
        print(String(format: "time sweep 400 → 100 ms in 1 s, %@: largest step %.5f = %.2f × the sine's own", change.rawValue, step, step / own))
        #expect(step <= (change == .crossfade ? 1.01 : 1.35) * own)
    }
}
