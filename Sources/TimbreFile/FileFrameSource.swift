import Foundation
import TimbreDSP

/// A sound file as a ``FrameSource``: libsndfile's frames, each block checked for NaN and
/// infinity (an error naming the frame, channel and time).
public final class FileFrameSource: TimelineSource {
    public let reader: SoundFileReader
    public var channelCount: Int { reader.channelCount }
    public var expectedFrames: Int64 { reader.frameCount }
    /// Frames read so far (the file's length once ``ended``).
    public private(set) var framesRead: Int64 = 0
    /// True once a read returned 0.
    public private(set) var ended = false

    public init(reader: SoundFileReader) { self.reader = reader }

    /// Starts reading at file frame `frame` (frames before it are not delivered or counted).
    public func skip(to frame: Int64) throws(AudioFileError) {
        try reader.seek(to: frame)
        skipped = frame
    }
    /// Frames skipped by ``skip(to:)`` (for error messages: file positions).
    private var skipped: Int64 = 0

    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
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
