/// Makes the rendered length exact: round(timeline frames × `framesPerFileFrame`). Stretching
/// and resampling each round their own lengths, so a chain of them can be a frame long or
/// short; this stage cuts the excess or pads silence once the timeline's length is known (it
/// is read ahead of the output, so it is known before the end is reached).
public final class ExactLengthStage: FrameSource {
    public let upstream: FrameSource
    public let file: TimelineSource
    public let framesPerFileFrame: Double
    public var channelCount: Int { upstream.channelCount }
    public var expectedFrames: Int64 { Int64((Double(file.expectedFrames) * framesPerFileFrame).rounded()) }
    private var produced: Int64 = 0
    private var upstreamEnded = false

    public init(upstream: FrameSource, file: TimelineSource, framesPerFileFrame: Double) {
        self.upstream = upstream; self.file = file; self.framesPerFileFrame = framesPerFileFrame
    }

    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        var limit = maxFrames
        if file.ended {
            let target = Int64((Double(file.framesRead) * framesPerFileFrame).rounded())
            limit = Int(max(0, min(Int64(maxFrames), target - produced)))
            if limit == 0 { return 0 }
        }
        var n = 0
        if !upstreamEnded {
            n = try upstream.read(into: channels, maxFrames: limit)
            if n == 0 { upstreamEnded = true }
        }
        if n == 0 && file.ended {
            // Short by a frame or two: silence up to the exact length.
            for c in 0..<channelCount { channels[c].update(repeating: 0, count: limit) }
            n = limit
        }
        produced += Int64(n)
        return n
    }
}
