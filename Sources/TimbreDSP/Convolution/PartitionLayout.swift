/// How an impulse response is cut for zero-latency convolution (Gardner 1995, "Efficient
/// convolution without input-output delay"; the sizes after Wefers 2014, §5): the first
/// ``headTaps`` taps run as a direct-form FIR on every sample, the rest in levels of
/// FFT partitions whose sizes double (B, 2B, 4B, … up to `maximumPartition`), two partitions
/// a level, the last level as many as the length needs.
///
/// ```
/// taps:   [0, B)   [B, 3B)    [3B, 7B)    [7B, 15B) …   [s, L)
///          head    2 × B      2 × 2B      2 × 4B        k × N_max
/// ```
///
/// A level of partition size N starting at tap s ≥ N works at every N-th absolute sample b:
/// the FFT of the last 2N inputs (overlap-save) times each partition's spectrum, summed
/// over the level's partitions through a frequency-domain delay line, gives the outputs for
/// [b + s − N, b + s) — never earlier than b, so nothing waits and no latency is added. All
/// work happens at absolute positions, so the output does not depend on how the stream is
/// cut into blocks.
public struct PartitionLayout: Sendable, Equatable {
    /// One level: `count` partitions of `size` taps, the first at tap `start`.
    public struct Level: Sendable, Equatable {
        public let size: Int
        public let start: Int
        public let count: Int
    }

    /// Taps of the direct-form head (B).
    public let headTaps: Int
    public let levels: [Level]
    /// The impulse response's length the layout covers.
    public let length: Int

    /// The partition sizes a layout may use: powers of two.
    public static let partitionSizes = 16...65_536

    /// A layout for `length` taps with a head of `headTaps` (a power of two) and partitions up
    /// to `maximumPartition` (a power of two, at least the head).
    public init(length: Int, headTaps: Int = 64, maximumPartition: Int = 8_192) {
        precondition(length >= 1 && headTaps.nonzeroBitCount == 1 && maximumPartition.nonzeroBitCount == 1
                     && Self.partitionSizes.contains(headTaps) && Self.partitionSizes.contains(maximumPartition) && maximumPartition >= headTaps)
        self.length = length
        self.headTaps = min(headTaps, length)
        var levels: [Level] = [], start = headTaps, size = headTaps
        while start < length {
            let left = (length - start + size - 1) / size
            let count = size == maximumPartition ? left : min(2, left)
            levels.append(Level(size: size, start: start, count: count))
            start += count * size
            size = min(2 * size, maximumPartition)
        }
        self.levels = levels
    }

    /// The largest partition used (0 with none).
    public var largestPartition: Int { levels.map(\.size).max() ?? 0 }
    /// How far ahead of the sample in hand a level writes its outputs: its start.
    public var reach: Int { levels.map(\.start).max() ?? 0 }
}
