/// Planar audio a caller owns: `channelCount` channels of up to `capacity` frames, each
/// channel contiguous, allocated once in `init` and freed with the buffer. What
/// ``RenderPlan/render(_:into:)`` reads and writes, so rendering a buffer needs no pointer
/// juggling. (A real-time callback renders from the host's own pointers instead:
/// ``RealtimeRenderer/render(input:output:frameCount:)``.)
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
    /// Frames in use (set by ``RenderPlan/render(_:into:)`` on its output).
    public var frameCount: Int {
        didSet { precondition(frameCount >= 0 && frameCount <= capacity, "frameCount \(frameCount) outside 0…\(capacity)") }
    }
    private let storage: UnsafeMutablePointer<Float>
    /// One pointer per channel (what the render entry points take).
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    /// A silent buffer of `capacity` frames, all in use.
    public init(channelCount: Int, capacity: Int) {
        precondition(channelCount >= 1 && capacity >= 0)
        self.channelCount = channelCount; self.capacity = capacity; frameCount = capacity
        storage = .allocate(capacity: max(1, channelCount * capacity))
        storage.initialize(repeating: 0, count: max(1, channelCount * capacity))
        pointers = .allocate(capacity: channelCount)
        for c in 0..<channelCount { pointers[c] = storage + c * capacity }
    }

    /// A buffer holding `channels` (all the same length).
    public convenience init(channels: [[Float]]) {
        let frames = channels.first?.count ?? 0
        precondition(!channels.isEmpty && channels.allSatisfy { $0.count == frames }, "channels of equal length")
        self.init(channelCount: channels.count, capacity: frames)
        for (c, samples) in channels.enumerated() { self[c].update(fromContentsOf: samples) }
    }

    deinit { storage.deallocate(); pointers.deallocate() }

    /// Channel `c`'s frames in use, to read or write in place.
    public subscript(c: Int) -> UnsafeMutableBufferPointer<Float> {
        precondition(c >= 0 && c < channelCount, "channel \(c) outside 0..<\(channelCount)")
        return UnsafeMutableBufferPointer(start: pointers[c], count: frameCount)
    }

    /// A copy of channel `c`'s frames in use.
    public func samples(channel c: Int) -> [Float] { Array(self[c]) }
}

extension RenderPlan {
    /// Renders all of `input`'s frames into `output` (its ``PlanarBuffer/frameCount`` becomes
    /// the input's). `input` has ``RenderFormat/inputChannelCount`` channels, `output` at least
    /// ``outputChannelCount`` and room for the frames. Returns the number of blocks output as
    /// silence because NaN or infinity reached the output.
    @discardableResult
    public func render(_ input: PlanarBuffer, into output: PlanarBuffer) -> Int {
        precondition(input.channelCount == format.inputChannelCount, "the plan takes \(format.inputChannelCount) input channels, the buffer has \(input.channelCount)")
        precondition(output.channelCount >= outputChannelCount && output.capacity >= input.frameCount,
                     "the output needs \(outputChannelCount) channels of \(input.frameCount) frames")
        output.frameCount = input.frameCount
        return input.pointers.withMemoryRebound(to: UnsafePointer<Float>.self, capacity: input.channelCount) { ins in
            render(input: ins, output: output.pointers, frameCount: input.frameCount)
        }
    }
}
