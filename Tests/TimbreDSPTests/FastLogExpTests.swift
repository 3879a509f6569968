import Foundation
import Testing
import TimbreDSP

/// The dynamics nodes' log₂ and 2^ against Foundation's, on dense grids: scalar and
/// eight-lane forms agree, and both stay within 5e-6 of a doubling (3e-5 dB) over the
/// levels a detector sees (1e-15…1e3) and the gains a compressor applies (2^−40…2^20).
struct FastLogExpTests {
    @Test func log2MatchesFoundation() {
        var worst = 0.0
        var x: Float = 1e-15
        var lanes = [Float](), wanted = [Double]()
        while x < 1e3 {
            let mine = FastLogExp.log2(x)
            worst = max(worst, abs(Double(mine) - Foundation.log2(Double(x))))
            lanes.append(x); wanted.append(Double(mine))
            x *= 1.000_37
        }
        var simdWorst: Float = 0
        for start in stride(from: 0, to: lanes.count - 8, by: 8) {
            let v = FastLogExp.log2(SIMD8<Float>(lanes[start..<(start + 8)]))
            for l in 0..<8 { simdWorst = max(simdWorst, abs(v[l] - Float(wanted[start + l]))) }
        }
        print("FastLogExp.log2 over 1e-15…1e3 (\(lanes.count) points): worst \(worst) (SIMD against scalar \(simdWorst))")
        #expect(worst < 5e-6 && simdWorst < 1e-6)  // the Float sum's own rounding near 2^±50: 3.8e-6
        #expect(FastLogExp.log2(0) == -126)
    }

    @Test func exp2MatchesFoundation() {
        var worst = 0.0, simdWorst: Float = 0
        var y: Float = -40
        while y < 20 {
            let v = SIMD8<Float>((0..<8).map { y + Float($0) * 0.000_93 })
            let simd = FastLogExp.exp2(v)
            for l in 0..<8 {
                let mine = FastLogExp.exp2(v[l]), exact = Foundation.exp2(Double(v[l]))
                worst = max(worst, abs(Foundation.log2(Double(mine) / exact)))
                simdWorst = max(simdWorst, abs(simd[l] / mine - 1))
            }
            y += 0.0077
        }
        print("FastLogExp.exp2 over -40…20: worst \(worst) of a doubling (SIMD against scalar \(simdWorst), relative)")
        #expect(worst < 2e-6 && simdWorst < 1e-6)
        #expect(FastLogExp.exp2(-200) == 0 && FastLogExp.exp2(SIMD8(repeating: -200)) == SIMD8(repeating: 0))
    }

    /// A non-finite level must not trap on the render path (a conversion to Int32 once did):
    /// NaN and −∞ give 0, +∞ the largest power, scalar and in eight lanes alike.
    @Test func exp2OfNonFiniteValuesDoesNotTrap() {
        #expect(FastLogExp.exp2(Float.nan) == 0)
        #expect(FastLogExp.exp2(-Float.infinity) == 0)
        #expect(FastLogExp.exp2(Float.infinity) == FastLogExp.exp2(Float(127)))
        let lanes = FastLogExp.exp2(SIMD8<Float>(.nan, -.infinity, .infinity, 0, 1, -1, 126.5, -126.5))
        #expect(lanes[3] == 1 && lanes[4] == 2 && lanes[5] == 0.5)
        #expect(lanes[2].isFinite)
        var row: [Float] = [.nan, 0, .infinity, -.infinity, 3]
        FastLogExp.exponentiate(&row, count: row.count)
        #expect(row[1] == 1 && row[4] == 8 && row[0] == 0 && row[3] == 0)
    }
}
