import Foundation
import TimbreDSP

/// Deterministic test signals, written here once for every suite.
public enum Signals {
    /// `amplitude · sin(2π hz n / rate)`, phase computed per sample in Double (no drift).
    public static func sine(_ count: Int, hz: Double = 1000, amplitude: Double = 0.1, rate: Double = 48000, phase: Double = 0) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * hz * Double($0) / rate + phase)) }
    }

    /// Uniform white noise in ±`amplitude` from a 64-bit LCG (Knuth's MMIX constants); the
    /// same seed gives the same samples on every machine.
    public static func noise(_ count: Int, amplitude: Float = 0.3, seed: UInt64 = 42) -> [Float] {
        var s = seed
        return (0..<count).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int32(truncatingIfNeeded: s >> 32)) / Float(Int32.max) * amplitude
        }
    }
}

/// A small seeded generator (SplitMix64) for fuzzing and random grids: reproducible from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Signals {
    /// Feeds planar `channels` to `body` in blocks of `size` frames (the last one shorter):
    /// `body(pointers, frameCount, framesDoneAfterThisBlock)`. The pointers are valid in `body` only.
    public static func forEachBlock(_ channels: [[Float]], size: Int,
                                    _ body: (UnsafePointer<UnsafeMutablePointer<Float>>, Int, Int) -> Void) {
        guard let n = channels.first?.count, n > 0 else { return }
        let buffer = PlanarBuffer(channels: channels)
        var start = 0
        while start < n {
            let k = min(size, n - start)
            buffer.withChannelPointers(from: start) { body($0, k, start + k) }
            start += k
        }
    }

    /// Planar `channels` after `body` has processed them in place, in blocks whose sizes cycle
    /// through `blocks` (the last one shorter): `body(pointers, frameCount)`.
    public static func processed(_ channels: [[Float]], blocks: [Int],
                                 _ body: (UnsafePointer<UnsafeMutablePointer<Float>>, Int) -> Void) -> [[Float]] {
        let buffer = PlanarBuffer(channels: channels)
        let n = channels.first?.count ?? 0
        var start = 0, k = 0
        while start < n {
            let count = min(blocks[k % blocks.count], n - start)
            buffer.withChannelPointers(from: start) { body($0, count) }
            start += count; k += 1
        }
        return buffer.channels
    }
}
