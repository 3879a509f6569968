import Foundation

/// Finds the pauses in speech and plans their shortening (offline): what `timbre
/// shorten-pauses` cuts.
///
/// Levels are read in 5 ms frames (RMS over the channels). The noise floor is the 10th
/// percentile of those levels and the speech level the 95th; a frame is silent below the floor
/// plus a third of the distance between them (at least 6 dB over the floor, at least 10 dB
/// under the speech), so the threshold follows the recording, not a fixed dBFS. A run of
/// silent frames is a pause; one shorter than `longest` is left alone (the gaps inside and
/// between words are far shorter), a longer one keeps `kept` seconds — half after the speech
/// before it, half before the speech after it — and loses its middle, joined by a
/// `crossfade` of equal power. The file's leading and trailing silence are cut to `edge`.
/// Nothing loud is ever cut: only frames under the threshold are.
public struct PauseFinder: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Pauses longer than this are shortened, seconds.
        public var longest: Double
        /// What a shortened pause keeps, seconds.
        public var kept: Double
        /// Silence kept before the first and after the last sound, seconds.
        public var edge: Double
        /// The crossfade at each cut, seconds.
        public var crossfade: Double
        public init(longest: Double = 1.0, kept: Double = 0.5, edge: Double = 0.25, crossfade: Double = 0.01) {
            self.longest = longest; self.kept = kept; self.edge = edge; self.crossfade = crossfade
        }
    }

    /// A stretch of the input, frames `[start, end)`.
    public struct Cut: Sendable, Equatable {
        public var start: Int
        public var end: Int
    }

    /// The pauses found (silent runs of any length), frames `[start, end)`.
    public let pauses: [Cut]
    /// What is cut: shortened pauses' middles and the trimmed edges, in order.
    public let cuts: [Cut]
    public let noiseFloorDB: Double
    public let speechLevelDB: Double
    public let thresholdDB: Double

    static let frameSeconds = 0.005

    public init(channels: [[Float]], sampleRate: Double, settings: Settings) {
        let length = channels.first?.count ?? 0, hop = max(1, Int((Self.frameSeconds * sampleRate).rounded()))
        let frames = length / hop
        var levels = [Double](repeating: -200, count: frames)
        for f in 0..<frames {
            var e = 0.0
            for c in channels { for i in (f * hop)..<((f + 1) * hop) { e += Double(c[i]) * Double(c[i]) } }
            levels[f] = 10 * log10(max(e / Double(hop * max(channels.count, 1)), 1e-20))
        }
        let sorted = levels.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? -200 : sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))] }
        let floor = percentile(0.10), speech = percentile(0.95)
        let threshold = min(max(floor + (speech - floor) / 3, floor + 6), speech - 10)
        noiseFloorDB = floor; speechLevelDB = speech; thresholdDB = threshold
        // Silent runs, in frames of the input.
        var pauses: [Cut] = [], f = 0
        while f < frames {
            guard levels[f] < threshold else { f += 1; continue }
            let start = f
            while f < frames, levels[f] < threshold { f += 1 }
            pauses.append(Cut(start: start * hop, end: f == frames ? length : f * hop))
        }
        self.pauses = pauses
        var cuts: [Cut] = []
        let longest = Int(settings.longest * sampleRate), half = Int(settings.kept / 2 * sampleRate), edge = Int(settings.edge * sampleRate)
        let fade = Int(settings.crossfade * sampleRate)
        for p in pauses {
            if p.start == 0 && p.end == length { break }  // nothing but silence: nothing to shorten
            if p.start == 0 {
                if p.end - edge > 0 { cuts.append(Cut(start: 0, end: p.end - edge)) }
            } else if p.end == length {
                if p.start + edge < length { cuts.append(Cut(start: p.start + edge, end: length)) }
            } else if p.end - p.start > longest {
                // The cut's crossfade lies inside the kept halves' silence.
                let start = p.start + half, end = p.end - half
                if end - start > fade { cuts.append(Cut(start: start, end: end)) }
            }
        }
        self.cuts = cuts
    }

    /// `channels` with the cuts taken out, each inner cut joined by an equal-power crossfade of
    /// `crossfadeFrames` (the frames before the cut fading out over the cut's first frames
    /// fading in).
    public func apply(to channels: [[Float]], crossfadeFrames: Int) -> [[Float]] {
        channels.map { x in
            var out: [Float] = []
            out.reserveCapacity(x.count)
            var position = 0
            for cut in cuts {
                out.append(contentsOf: x[position..<cut.start])
                position = cut.end
                // Inner cuts: the last `n` frames kept fade out while the frames after the cut fade in.
                let n = min(crossfadeFrames, cut.start, x.count - cut.end, out.count)
                guard cut.start > 0, cut.end < x.count, n > 0 else { continue }
                let base = out.count - n
                for i in 0..<n {
                    let t = (Double(i) + 0.5) / Double(n)
                    let a = Float(cos(t * Double.pi / 2)), b = Float(sin(t * Double.pi / 2))
                    out[base + i] = out[base + i] * a + x[cut.end + i] * b
                }
                position = cut.end + n
            }
            out.append(contentsOf: x[position...])
            return out
        }
    }
}
