import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// Peak, AES17 RMS, clip count and ballistics against values computed here.
@Suite struct LevelMeterTests {
    static func run(_ x: [Float], rate: Double = 48000, block: Int = 256) -> LevelMeter {
        let m = LevelMeter(sampleRate: rate, channelCount: 1)
        Signals.forEachBlock([x], size: block) { p, k, _ in m.process(p, frameCount: k) }
        return m
    }

    /// AES17: a full-scale sine reads 0 dBFS RMS (peak 0 dBFS); a −20 dBFS sine −20.
    @Test func aes17SineReadsItsLevel() {
        for db in [0.0, -20, -60] {
            let m = Self.run(Signals.sine(3 * 48000, hz: 997, amplitude: pow(10, db / 20)))  // 10 time constants of averagePower
            #expect(abs(m.rmsDBFS(channel: 0) - db) < 0.01, "\(db): \(m.rmsDBFS(channel: 0))")
            #expect(abs(m.samplePeakDBFS(channel: 0) - db) < 0.01)
            #expect(abs(m.averagePower(channel: 0) - db) < 0.05, "averagePower settles on the RMS")
        }
    }

    /// Clipped samples: exactly those with |x| ≥ 1.
    @Test func clipsAreCounted() {
        let x = Signals.sine(48000, hz: 440, amplitude: 1.5)
        let m = Self.run(x, block: 333)
        #expect(m.clippedSamples(channel: 0) == x.filter { abs($0) >= 1 }.count)
    }

    /// Peak hold 1.5 s, then a 20 dB/s fall: after a 0 dBFS click and 2.5 s of silence the
    /// held peak reads −20 dB (1 s of fall).
    @Test func peakHoldAndFall() {
        var x = [Float](repeating: 0, count: 48000 * 3)
        x[480] = 1  // in tick 1
        let m = Self.run(Array(x[..<(480 + 48000 * 5 / 2)]))
        // Tick 1 holds until 1.51 s, then falls 0.2 dB per tick.
        let ticksFalling = Double((480 + 48000 * 5 / 2) / 480) - 2 - LevelMeter.peakHoldSeconds * 100
        #expect(abs(m.peakPower(channel: 0) - (-0.2 * ticksFalling)) < 0.01, "\(m.peakPower(channel: 0))")
    }

    /// Every reading is bit-identical whatever the block sizes.
    @Test func blockSizeDoesNotMatter() {
        let x = Signals.noise(48000 * 2, amplitude: 0.8, seed: 4)
        let a = Self.run(x, block: 1), b = Self.run(x, block: 4096), c = Self.run(x, block: 37)
        func same(_ m: borrowing LevelMeter) -> Bool {
            m.rmsDBFS(channel: 0) == a.rmsDBFS(channel: 0) && m.averagePower(channel: 0) == a.averagePower(channel: 0)
                && m.peakPower(channel: 0) == a.peakPower(channel: 0) && m.samplePeakDBFS(channel: 0) == a.samplePeakDBFS(channel: 0)
        }
        #expect(same(b) && same(c))
    }
}
