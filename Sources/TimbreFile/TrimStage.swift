/// Frames `start ..< end` of the timeline of `upstream` (end nil: to its end), sample-exact.
/// A file is sought to `start` (libsndfile's `sf_seek`); any other source is read and the
/// frames before `start` discarded.
package final class TrimStage: TimelineSource {
    package let upstream: FrameSource
    package let start: Int64
    package let end: Int64?
    package var channelCount: Int { upstream.channelCount }
    package var expectedFrames: Int64 {
        let total = upstream.expectedFrames
        return max(0, min(end ?? total, total) - start)
    }
    package private(set) var framesRead: Int64 = 0
    package private(set) var ended = false
    private var toSkip: Int64
    private let scratch: PlanarStaging

    package init(upstream: FrameSource, start: Int64, end: Int64?, maximumFrames: Int) throws(AudioFileError) {
        self.upstream = upstream; self.start = start; self.end = end
        scratch = PlanarStaging(channelCount: upstream.channelCount, capacity: maximumFrames)
        if let file = upstream as? FileFrameSource, start > 0 {
            try file.skip(to: start)
            toSkip = 0
        } else {
            toSkip = start
        }
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        while toSkip > 0 {
            let n = try upstream.read(into: scratch.pointers, maxFrames: Int(min(Int64(maxFrames), toSkip)))
            if n == 0 { ended = true; return 0 }
            toSkip -= Int64(n)
        }
        var limit = maxFrames
        if let end { limit = Int(max(0, min(Int64(maxFrames), end - start - framesRead))) }
        let n = limit == 0 ? 0 : try upstream.read(into: channels, maxFrames: limit)
        if n == 0 { ended = true }
        framesRead += Int64(n)
        return n
    }
}
