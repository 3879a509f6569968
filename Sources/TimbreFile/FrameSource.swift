/// A pull source of planar Float blocks: a file, or a processing stage over another source.
/// The offline renderer pulls blocks from the end of a chain of these.
package protocol FrameSource: AnyObject {
    var channelCount: Int { get }
    /// Output frames the source expects to deliver in all (0 if unknown), for progress.
    var expectedFrames: Int64 { get }
    /// Reads up to `maxFrames` frames (at most the block size the source was built for) into
    /// `channels`; fewer only at the end; 0 when done.
    func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int
}

/// The source whose frames define the render's timeline (a file, a trimmed file, files
/// concatenated or mixed): the stages after it (stretch, resampling) are held to an exact
/// length computed from how many frames it delivered (``ExactLengthStage``).
package protocol TimelineSource: FrameSource {
    /// Frames delivered so far (the whole length once ``ended``).
    var framesRead: Int64 { get }
    /// True once a read returned 0.
    var ended: Bool { get }
}

extension FrameSource {
    /// Reads until `frames` frames arrived or the source ended; returns how many arrived.
    func readFully(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, frames: Int, scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>) throws(AudioFileError) -> Int {
        var got = 0
        while got < frames {
            for c in 0..<channelCount { scratch[c] = channels[c] + got }
            let n = try read(into: scratch, maxFrames: frames - got)
            if n == 0 { break }
            got += n
        }
        return got
    }
}
