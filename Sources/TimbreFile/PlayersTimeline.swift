import TimbreEngine

/// The timeline of a render with no input file: silence on one channel for as long as the
/// longest player plays (exactly: the render ends on the frame the last stream ends). The
/// renderer refills every player's ring before each read, so the plan always finds a block.
package final class PlayersTimeline: TimelineSource {
    package let feeders: [PlayerFeeder]
    package let channelCount = 1
    package var expectedFrames: Int64 { Int64(feeders.map { Int($0.region.expectedFrames) }.max() ?? 0) }
    package private(set) var framesRead: Int64 = 0
    package private(set) var ended = false

    package init(_ feeders: [PlayerFeeder]) { self.feeders = feeders }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        var n = maxFrames
        if feeders.allSatisfy(\.ended) {
            let remaining = feeders.map { ($0.state.endFrame ?? 0) - $0.state.framesPlayed }.max() ?? 0
            n = max(0, min(maxFrames, remaining))
        }
        channels[0].update(repeating: 0, count: n)
        if n == 0 { ended = true }
        framesRead += Int64(n)
        return n
    }
}
