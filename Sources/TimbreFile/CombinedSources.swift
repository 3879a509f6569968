/// Several sources one after another (`render --concat`): A's frames, then B's, sample-exact.
/// All have the same channel count and rate (the renderer converts and matches them first).
package final class ConcatenatedSource: TimelineSource {
    package let parts: [FrameSource]
    package let channelCount: Int
    package var expectedFrames: Int64 { parts.reduce(0) { $0 + $1.expectedFrames } }
    package private(set) var framesRead: Int64 = 0
    package private(set) var ended = false
    private var current = 0

    package init(_ parts: [FrameSource]) {
        precondition(!parts.isEmpty && parts.allSatisfy { $0.channelCount == parts[0].channelCount })
        self.parts = parts; channelCount = parts[0].channelCount
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        while current < parts.count {
            let n = try parts[current].read(into: channels, maxFrames: maxFrames)
            if n > 0 { framesRead += Int64(n); return n }
            current += 1
        }
        ended = true
        return 0
    }
}

/// Several sources side by side (`render --mix`): their channels in order as one source's
/// channels, each padded with silence after it ends, until the longest ends.
package final class SideBySideSource: TimelineSource {
    package let parts: [FrameSource]
    package let channelCount: Int
    package var expectedFrames: Int64 { parts.map(\.expectedFrames).max() ?? 0 }
    package private(set) var framesRead: Int64 = 0
    package private(set) var ended = false
    private var partEnded: [Bool]
    private let views: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    package init(_ parts: [FrameSource]) {
        self.parts = parts
        channelCount = parts.reduce(0) { $0 + $1.channelCount }
        partEnded = parts.map { _ in false }
        views = .allocate(capacity: channelCount)
        scratch = .allocate(capacity: channelCount)
    }
    deinit { views.deallocate(); scratch.deallocate() }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        var longest = 0
        var first = 0
        var got: [Int] = []
        for (k, part) in parts.enumerated() {
            for c in 0..<part.channelCount { views[c] = channels[first + c] }
            var n = 0
            if !partEnded[k] {
                n = try part.readFully(into: views, frames: maxFrames, scratch: scratch)
                if n < maxFrames { partEnded[k] = true }
            }
            got.append(n)
            longest = max(longest, n)
            first += part.channelCount
        }
        // Silence after a part's end, up to the longest part's frames in this block.
        first = 0
        for (k, part) in parts.enumerated() {
            for c in 0..<part.channelCount where got[k] < longest {
                (channels[first + c] + got[k]).update(repeating: 0, count: longest - got[k])
            }
            first += part.channelCount
        }
        if longest == 0 { ended = true }
        framesRead += Int64(longest)
        return longest
    }
}

/// A mono source on `channelCount` channels (the same samples on each), so files of different
/// channel counts can be concatenated.
package final class UpmixStage: FrameSource {
    package let upstream: FrameSource
    package let channelCount: Int
    package var expectedFrames: Int64 { upstream.expectedFrames }

    package init(upstream: FrameSource, channelCount: Int) {
        precondition(upstream.channelCount == 1)
        self.upstream = upstream; self.channelCount = channelCount
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        let n = try upstream.read(into: channels, maxFrames: maxFrames)
        for c in 1..<channelCount { channels[c].update(from: channels[0], count: n) }
        return n
    }
}
