import TimbreDSP

/// Makes the rendered length exact: round(timeline frames × `framesPerTimelineFrame`), or for a
/// rate conversion alone ⌈N·L/M⌉ in integers (what ``Resampler`` promises: `exactRatio`).
/// Stretching and resampling each round their own lengths, so a chain of them can be a frame
/// long or short; this stage cuts the excess or pads silence once the timeline's length is
/// known (it is read ahead of the output, so it is known before the end is reached).
package final class ExactLengthStage: FrameSource {
    package let upstream: FrameSource
    package let timeline: TimelineSource
    package let framesPerTimelineFrame: Double
    package var channelCount: Int { upstream.channelCount }
    /// When set, the length is ⌈N·L/M⌉ for N timeline frames (a pure rate conversion).
    package let exactRatio: RationalRatio?
    package var expectedFrames: Int64 { length(timeline.expectedFrames) }
    private var produced: Int64 = 0
    private var upstreamEnded = false

    package init(upstream: FrameSource, timeline: TimelineSource, framesPerTimelineFrame: Double, exactRatio: RationalRatio? = nil) {
        self.upstream = upstream; self.timeline = timeline; self.framesPerTimelineFrame = framesPerTimelineFrame
        self.exactRatio = exactRatio
    }

    /// The output length for `n` timeline frames.
    func length(_ n: Int64) -> Int64 {
        if let r = exactRatio { return r.outputFrames(forInputFrames: n) }
        return Int64((Double(n) * framesPerTimelineFrame).rounded())
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        var limit = maxFrames
        if timeline.ended {
            limit = Int(max(0, min(Int64(maxFrames), length(timeline.framesRead) - produced)))
            if limit == 0 { return 0 }
        }
        var n = 0
        if !upstreamEnded {
            n = try upstream.read(into: channels, maxFrames: limit)
            if n == 0 { upstreamEnded = true }
        }
        if n == 0 && timeline.ended {
            // Short by a frame or two: silence up to the exact length (known now: the timeline
            // may have ended during this very read, so the limit above can be stale).
            n = Int(max(0, min(Int64(maxFrames), length(timeline.framesRead) - produced)))
            for c in 0..<channelCount { channels[c].update(repeating: 0, count: n) }
        }
        produced += Int64(n)
        return n
    }
}
