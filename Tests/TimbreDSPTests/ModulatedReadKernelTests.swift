import CTimbreSupport
import Testing
import TimbreDSP
import TimbreTestSignals

/// The chorus/flanger voice kernel (`timbre_modulated_voice`, AVX2+FMA gathers when the CPU has
/// them, else portable) against a Double reference of four-point Lagrange interpolation
/// (Laakso et al. 1996) and against itself cut into chunks anywhere.
@Suite struct ModulatedReadKernelTests {
    static let capacity = 4096, mask = capacity - 1

    /// A ring of noise, an oscillator's boundary values and a chunk's centre and depth rows
    /// (with the 8 frames of padding either side the kernel may read).
    struct Case {
        var ring: [Float]
        var us: [Float]
        var centres: [Float]
        var depths: [Float]
        let t0: Int
        let n: Int
    }

    static func makeCase(seed: UInt64, t0: Int, n: Int, wholeFrames: Bool = false) -> Case {
        var random = SeededRandom(seed: seed)
        let ring = (0..<capacity).map { _ in Float.random(in: -1...1, using: &random) }
        let segments = (t0 + n - (t0 - (t0 & 7)) + 7) / 8
        let us = (0...segments).map { _ in wholeFrames ? 0.5 : Float.random(in: 0...1, using: &random) }
        let centres = (0..<(n + 16)).map { _ in wholeFrames ? Float(Int.random(in: 3...3000, using: &random)) : Float.random(in: 100...3000, using: &random) }
        let depths = (0..<(n + 16)).map { _ in Float.random(in: 0...90, using: &random) }
        return Case(ring: ring, us: us, centres: centres, depths: depths, t0: t0, n: n)
    }

    static func run(_ c: Case, portable: Bool, from: Int = 0, count: Int? = nil) -> [Float] {
        let n = count ?? c.n
        var taps = [Float](repeating: 0, count: n)
        // A chunk from frame `from`: its rows and boundary values start where it does.
        let t0 = c.t0 + from
        let firstBoundary = ((t0 - (t0 & 7)) - (c.t0 - (c.t0 & 7))) / 8
        let us = Array(c.us[firstBoundary...])
        c.centres.withUnsafeBufferPointer { cs in c.depths.withUnsafeBufferPointer { ds in
            let centres = cs.baseAddress! + 8 + from, depths = ds.baseAddress! + 8 + from
            if portable {
                timbre_modulated_voice_portable(c.ring, Int64(mask), Int64(t0), Int32(n), us, centres, depths, Float(capacity - 4), &taps)
            } else {
                timbre_modulated_voice(c.ring, Int64(mask), Int64(t0), Int32(n), us, centres, depths, Float(capacity - 4), &taps)
            }
        } }
        return taps
    }

    /// Frame i's read in Double: the delay from the same Float formula, the weights and sum in Double.
    static func reference(_ c: Case, _ i: Int) -> Double {
        let t = c.t0 + i, start = t - (t & 7), j = (start - (c.t0 - (c.t0 & 7))) / 8, k = Float(t - start)
        let u = c.us[j] + (c.us[j + 1] - c.us[j]) * 0.125 * k
        let delay = min(max(c.centres[i + 8] + c.depths[i + 8] * (2 * u - 1), 2), Float(capacity - 4))
        let whole = Int(delay), p = 1 - (Double(delay) - Double(whole)), base = t - whole - 1
        let y = [-1, 0, 1, 2].map { Double(c.ring[(base + $0) & mask]) }
        return -p * (p - 1) * (p - 2) / 6 * y[0] + (p + 1) * (p - 1) * (p - 2) / 2 * y[1]
            - (p + 1) * p * (p - 2) / 2 * y[2] + (p + 1) * p * (p - 1) / 6 * y[3]
    }

    @Test(arguments: [(1, 5, 64), (2, 8, 64), (3, 1_000_003, 57), (4, 123, 1), (5, 7, 9)])
    func bothPathsMatchTheReference(seed: UInt64, t0: Int, n: Int) {
        let c = Self.makeCase(seed: seed, t0: t0, n: n)
        let fast = Self.run(c, portable: false), plain = Self.run(c, portable: true)
        var worst = 0.0
        for i in 0..<n {
            let r = Self.reference(c, i)
            worst = max(worst, abs(Double(fast[i]) - r), abs(Double(plain[i]) - r))
        }
        // Float weights of magnitude ≤ 1.2 on samples ≤ 1: a few ulps of 1.
        #expect(worst < 2e-6, "worst \(worst) (AVX2+FMA \(timbre_cpu_has_avx2_fma() == 1 ? "in use" : "not available"))")
    }

    /// A whole delay reads its frame: the weights are exactly 0, 1, 0, 0.
    @Test func wholeDelaysReadTheirFrameExactly() {
        let c = Self.makeCase(seed: 9, t0: 4_000, n: 64, wholeFrames: true)
        for portable in [false, true] {
            let taps = Self.run(c, portable: portable)
            for i in 0..<c.n {
                let delay = Int(c.centres[i + 8])  // u = 0.5: no swing
                #expect(taps[i] == c.ring[(c.t0 + i - delay) & Self.mask], "frame \(i), portable \(portable)")
            }
        }
    }

    /// Cut into two chunks at every point, the same bits as one chunk (the lanes of a segment
    /// are the same arithmetic whether or not the chunk covers them).
    @Test func anyChunkingGivesTheSameBits() {
        let c = Self.makeCase(seed: 12, t0: 1_000_005, n: 64)
        for portable in [false, true] {
            let whole = Self.run(c, portable: portable)
            for cut in 1..<c.n {
                let a = Self.run(c, portable: portable, from: 0, count: cut), b = Self.run(c, portable: portable, from: cut, count: c.n - cut)
                #expect(a + b == whole, "cut at \(cut), portable \(portable)")
            }
        }
    }
}
