import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// Pause shortening (``PauseFinder``) on a synthetic take with known pauses: word-like bursts
/// (a 180 Hz tone whose envelope dips 28 dB four times a second, as syllables do) in white
/// noise 43 dB down. Every pause is found within 10 ms of where it is; long ones lose their
/// middles and keep 0.25 s each side, the edges keep 0.25 s, a short gap is left alone, and
/// every sample of every word comes out unchanged (the crossfades lie in the kept silence).
@Suite struct PauseFinderTests {
    static let rate = 48_000.0
    /// (speaking, seconds)
    static let script: [(Bool, Double)] = [(false, 0.8), (true, 1.0), (false, 0.3), (true, 1.2), (false, 2.0), (true, 0.7), (false, 1.5), (true, 1.0), (false, 1.0)]

    static func take() -> (x: [Float], segments: [(speaking: Bool, start: Int, end: Int)]) {
        var x: [Float] = [], segments: [(Bool, Int, Int)] = []
        for (speaking, seconds) in script {
            let n = Int(seconds * rate), start = x.count
            for i in 0..<n {
                let t = Double(i) / rate, envelope = 0.6 + 0.4 * sin(2 * Double.pi * 4 * t)
                x.append(speaking ? Float(0.2 * sin(2 * Double.pi * 180 * t) * envelope * envelope) : 0)
            }
            segments.append((speaking, start, x.count))
        }
        let noise = Signals.noise(x.count, amplitude: 0.0017, seed: 5)
        return (zip(x, noise).map(+), segments)
    }

    @Test func pausesFoundAndShortenedWordsKept() {
        let (x, segments) = Self.take()
        let settings = PauseFinder.Settings()
        let finder = PauseFinder(channels: [x], sampleRate: Self.rate, settings: settings)
        let tolerance = Int(0.010 * Self.rate)
        var worst = 0
        for s in segments where !s.speaking {
            let found = finder.pauses.min { abs($0.start - s.start) + abs($0.end - s.end) < abs($1.start - s.start) + abs($1.end - s.end) }!
            worst = max(worst, abs(found.start - s.start), abs(found.end - s.end))
        }
        print("pause edges found within \(String(format: "%.1f", Double(worst) / Self.rate * 1000)) ms; threshold \(String(format: "%.1f", finder.thresholdDB)) dBFS over a floor of \(String(format: "%.1f", finder.noiseFloorDB))")
        #expect(worst <= tolerance)
        #expect(finder.pauses.count == 5, "only the five pauses: no gap inside a word")
        // The cuts: the lead trimmed to 0.25 s, the 2 s and 1.5 s pauses to 0.5 s, the tail to 0.25 s; the 0.3 s gap kept.
        let half = Int(0.25 * Self.rate)
        let expected = [(0, segments[0].end - half), (segments[4].start + half, segments[4].end - half),
                        (segments[6].start + half, segments[6].end - half), (segments[8].start + half, x.count)]
        #expect(finder.cuts.count == expected.count)
        for (cut, e) in zip(finder.cuts, expected) {
            #expect(abs(cut.start - e.0) <= tolerance && abs(cut.end - e.1) <= tolerance, "cut \(cut) against \(e)")
        }
        // Every word's samples, unchanged and in order, in the output.
        let fade = Int(settings.crossfade * Self.rate)
        let y = finder.apply(to: [x], crossfadeFrames: fade)[0]
        var search = 0
        for s in segments where s.speaking {
            let word = Array(x[s.start..<s.end])
            var at: Int?
            for k in search...(y.count - word.count) where y[k] == word[0] && Array(y[k..<(k + word.count)]) == word { at = k; break }
            #expect(at != nil, "a word from \(Double(s.start) / Self.rate) s is not in the output unchanged")
            search = (at ?? search) + word.count
        }
        let removed = finder.cuts.reduce(0) { $0 + $1.end - $1.start } + 2 * fade
        #expect(y.count == x.count - removed)
    }

    @Test func silenceAloneIsLeftAlone() {
        let x = Signals.noise(Int(Self.rate), amplitude: 0.001, seed: 2)
        let finder = PauseFinder(channels: [x], sampleRate: Self.rate, settings: .init())
        #expect(finder.apply(to: [x], crossfadeFrames: 480)[0].count <= x.count)
    }
}
