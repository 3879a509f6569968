/// Planar audio a caller owns: `channelCount` channels of up to `capacity` frames, each
/// channel contiguous, allocated once in `init` and freed with the buffer. What
/// `RenderPlan.render(_:into:)` (TimbreEngine) reads and writes, so rendering a buffer needs no pointer
/// juggling. (A real-time callback renders from the host's own pointers instead:
/// `RealtimeRenderer.render(input:output:frameCount:)`.)
///
/// ```swift
/// let input = PlanarBuffer(channels: [leftSamples, rightSamples])
/// let output = PlanarBuffer(channelCount: plan.outputChannelCount, capacity: input.frameCount)
/// plan.render(input, into: output)
/// let left: [Float] = output.samples(channel: 0)
/// ```
public final class PlanarBuffer {
    public let channelCount: Int
    /// The most frames the buffer holds.
    public let capacity: Int
    /// Frames in use (set by `RenderPlan.render(_:into:)` (TimbreEngine) on its output).
    public var frameCount: Int {
        didSet { precondition(frameCount >= 0 && frameCount <= capacity, "frameCount \(frameCount) outside 0…\(capacity)") }
    }
    private let storage: UnsafeMutablePointer<Float>
    /// One pointer per channel (what the render entry points take).
    package let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// The pointers `withChannelPointers(from:)` hands out (allocated once: the call allocates nothing).
    private let offsetPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    /// A silent buffer of `capacity` frames, all in use.
    public init(channelCount: Int, capacity: Int) {
        precondition(channelCount >= 1 && capacity >= 0)
        self.channelCount = channelCount; self.capacity = capacity; frameCount = capacity
        storage = .allocate(capacity: max(1, channelCount * capacity))
        storage.initialize(repeating: 0, count: max(1, channelCount * capacity))
        pointers = .allocate(capacity: channelCount)
        for c in 0..<channelCount { pointers[c] = storage + c * capacity }
        offsetPointers = .allocate(capacity: channelCount)
        offsetPointers.initialize(from: pointers, count: channelCount)
    }

    /// A buffer holding `channels` (all the same length).
    public convenience init(channels: [[Float]]) {
        let frames = channels.first?.count ?? 0
        precondition(!channels.isEmpty && channels.allSatisfy { $0.count == frames }, "channels of equal length")
        self.init(channelCount: channels.count, capacity: frames)
        for (c, samples) in channels.enumerated() { _ = self[c].update(fromContentsOf: samples) }
    }

    deinit { storage.deallocate(); pointers.deallocate(); offsetPointers.deallocate() }

    /// Channel `c`'s frames in use, to read or write in place.
    public subscript(c: Int) -> UnsafeMutableBufferPointer<Float> {
        precondition(c >= 0 && c < channelCount, "channel \(c) outside 0..<\(channelCount)")
        return UnsafeMutableBufferPointer(start: pointers[c], count: frameCount)
    }

    /// A copy of channel `c`'s frames in use.
    public func samples(channel c: Int) -> [Float] { Array(self[c]) }

    /// Every channel's frames in use, copied out.
    public var channels: [[Float]] { (0..<channelCount).map { samples(channel: $0) } }

    /// Calls `body` with one pointer per channel, starting at frame `offset`: the form the
    /// kernels' and the plan's pointer entry points take. The pointers are valid in `body` only.
    public func withChannelPointers<R, E: Error>(from offset: Int = 0,
                                                 _ body: (UnsafePointer<UnsafeMutablePointer<Float>>) throws(E) -> R) throws(E) -> R {
        precondition(offset >= 0 && offset <= capacity, "offset \(offset) outside 0…\(capacity)")
        for c in 0..<channelCount { offsetPointers[c] = pointers[c] + offset }
        return try body(offsetPointers)
    }

    /// ``withChannelPointers(from:_:)`` with read-only pointers (an input).
    public func withInputPointers<R, E: Error>(from offset: Int = 0,
                                               _ body: (UnsafePointer<UnsafePointer<Float>>) throws(E) -> R) throws(E) -> R {
        try withChannelPointers(from: offset) { (p) throws(E) -> R in
            try p.withMemoryRebound(to: UnsafePointer<Float>.self, capacity: channelCount) { (q) throws(E) -> R in try body(q) }
        }
    }
}
