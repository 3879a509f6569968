import Foundation
import Testing
import TimbreTestSignals
import TimbreDSP

/// ``PeakHold`` against the definition: the maximum of the last `span` values (earlier ones 0).
struct PeakHoldTests {
    /// Random values in blocks of random sizes, spans 1 to 300: every output equals a naive
    /// window maximum, bit for bit.
    @Test(arguments: [1, 2, 7, 64, 300])
    func holdsTheMaximumOfTheSpan(span: Int) {
        var rng = SeededRandom(seed: UInt64(span))
        let x = (0..<5_000).map { _ in Float.random(in: 0...1, using: &rng) }
        let hold = PeakHold(span: span)
        var out = [Float](repeating: -1, count: x.count), at = 0
        while at < x.count {
            let n = min(Int.random(in: 1...400, using: &rng), x.count - at)
            x.withUnsafeBufferPointer { xp in out.withUnsafeMutableBufferPointer { op in
                hold.process(xp.baseAddress! + at, into: op.baseAddress! + at, count: n)
            } }
            at += n
        }
        let naive = x.indices.map { i in x[max(0, i - span + 1)...i].max()! }
        #expect(out == naive)
    }

    /// `skipQuiet` after a quiet stretch changes no maximum above the limit: a stream whose
    /// quiet parts (under 0.5) are skipped where the hold is quiet gives the same maxima over
    /// 0.5 as the stream processed whole, and maxima at or under 0.5 where that one does.
    @Test func skippingQuietStretchesKeepsTheMaximaOverTheLimit() {
        var rng = SeededRandom(seed: 4)
        var x: [Float] = []
        for _ in 0..<20 {
            x += (0..<Int.random(in: 50...700, using: &rng)).map { _ in Float.random(in: 0...0.4, using: &rng) }
            x += (0..<Int.random(in: 1...40, using: &rng)).map { _ in Float.random(in: 0.6...1, using: &rng) }
        }
        let whole = PeakHold(span: 96), skipping = PeakHold(span: 96)
        var a = [Float](repeating: 0, count: x.count), b = a, at = 0, skipped = 0
        while at < x.count {
            let n = min(Int.random(in: 1...64, using: &rng), x.count - at)
            x.withUnsafeBufferPointer { xp in
                a.withUnsafeMutableBufferPointer { whole.process(xp.baseAddress! + at, into: $0.baseAddress! + at, count: n) }
                if skipping.isQuiet(under: 0.5) && xp[at..<(at + n)].allSatisfy({ $0 <= 0.5 }) {
                    skipping.skipQuiet(count: n); skipped += n
                    for i in at..<(at + n) { b[i] = 0 }
                } else {
                    b.withUnsafeMutableBufferPointer { skipping.process(xp.baseAddress! + at, into: $0.baseAddress! + at, count: n) }
                }
            }
            at += n
        }
        #expect(skipped > x.count / 4, "the test must skip: \(skipped) of \(x.count)")
        for i in x.indices { #expect(a[i] > 0.5 ? b[i] == a[i] : b[i] <= 0.5, "frame \(i): \(a[i]) \(b[i])") }
    }
}
