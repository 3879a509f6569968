import Foundation
import TimbreDSP

/// A sound file as a ``FrameSource``: libsndfile's frames, each block checked for NaN and
/// infinity (an error naming the frame, channel and time).
package final class FileFrameSource: TimelineSource {
    package let reader: SoundFileReader
    package var channelCount: Int { reader.channelCount }
    package var expectedFrames: Int64 { reader.frameCount }
    /// Frames read so far (the file's length once ``ended``).
    package private(set) var framesRead: Int64 = 0
    /// True once a read returned 0.
    package private(set) var ended = false

    package init(reader: SoundFileReader) { self.reader = reader }

    /// Starts reading at file frame `frame` (frames before it are not delivered or counted).
    package func skip(to frame: Int64) throws(AudioFileError) {
        try reader.seek(to: frame)
        skipped = frame
    }
    /// Frames skipped by ``skip(to:)`` (for error messages: file positions).
    private var skipped: Int64 = 0

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        let n = try reader.read(into: channels, maxFrames: maxFrames)
        if n == 0 && maxFrames > 0 { ended = true }
        for c in 0..<channelCount {
            if let i = NonFiniteScan.firstIndex(channels[c], count: n) {
                let frame = skipped + framesRead + Int64(i)
                throw AudioFileError(path: reader.path, String(
                    format: "frame %lld (channel %d, %.6f s) is %@: the input holds non-finite samples", frame, c + 1,
                    Double(frame) / reader.sampleRate, channels[c][i].isNaN ? "NaN" : "infinite"))
            }
        }
        framesRead += Int64(n)
        return n
    }
}
