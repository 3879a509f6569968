/// Makes the rendered length exact: round(timeline frames × `framesPerTimelineFrame`). Stretching
/// and resampling each round their own lengths, so a chain of them can be a frame long or
/// short; this stage cuts the excess or pads silence once the timeline's length is known (it
/// is read ahead of the output, so it is known before the end is reached).
public final class ExactLengthStage: FrameSource {
    public let upstream: FrameSource
    public let timeline: TimelineSource
    public let framesPerTimelineFrame: Double
    public var channelCount: Int { upstream.channelCount }
    public var expectedFrames: Int64 { Int64((Double(timeline.expectedFrames) * framesPerTimelineFrame).rounded()) }
    private var produced: Int64 = 0
    private var upstreamEnded = false

    public init(upstream: FrameSource, timeline: TimelineSource, framesPerTimelineFrame: Double) {
        self.upstream = upstream; self.timeline = timeline; self.framesPerTimelineFrame = framesPerTimelineFrame
    }

    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        var limit = maxFrames
        if timeline.ended {
            let target = Int64((Double(timeline.framesRead) * framesPerTimelineFrame).rounded())
            limit = Int(max(0, min(Int64(maxFrames), target - produced)))
            if limit == 0 { return 0 }
        }
        var n = 0
        if !upstreamEnded {
            n = try upstream.read(into: channels, maxFrames: limit)
            if n == 0 { upstreamEnded = true }
        }
        if n == 0 && timeline.ended {
            // Short by a frame or two: silence up to the exact length.
            for c in 0..<channelCount { channels[c].update(repeating: 0, count: limit) }
            n = limit
        }
        produced += Int64(n)
        return n
    }
}
