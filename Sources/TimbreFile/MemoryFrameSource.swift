import Foundation

/// Planar audio held in memory, read as a render's timeline: a ``RenderCapture`` times a gain,
/// or audio processed after it (``OfflineRenderer/write(_:frameCount:sampleRate:gain:request:presetName:renderedBy:progress:)``).
package final class MemoryFrameSource: TimelineSource {
    package let channelCount: Int
    let frameCount: Int
    let samples: [UnsafePointer<Float>]
    let gain: Float
    package private(set) var framesRead: Int64 = 0
    package private(set) var ended = false

    package init(_ samples: [UnsafePointer<Float>], frameCount: Int, gain: Float) {
        self.samples = samples; channelCount = samples.count; self.frameCount = frameCount; self.gain = gain
    }

    package var expectedFrames: Int64 { Int64(frameCount) }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        let position = Int(framesRead), n = min(maxFrames, frameCount - position)
        guard n > 0 else { ended = true; return 0 }
        for c in 0..<channelCount {
            let from = samples[c] + position, to = channels[c]
            if gain == 1 { to.update(from: from, count: n) } else { for i in 0..<n { to[i] = gain * from[i] } }
        }
        framesRead += Int64(n)
        return n
    }
}
