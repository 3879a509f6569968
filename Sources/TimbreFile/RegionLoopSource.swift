/// A file's region `start ..< end` as a stream: the first pass from `start + offset`, then
/// `loops` more passes from `start` (−1: forever), joined sample-exactly. Records where each
/// pass begins in the stream (``passStarts``) for `looped` events.
package final class RegionLoopSource: FrameSource {
    package let reader: SoundFileReader
    package let start: Int64, end: Int64, offset: Int64
    /// More passes after the first (−1: forever); may change while playing.
    package var loops: Int
    package var channelCount: Int { reader.channelCount }
    package var expectedFrames: Int64 {
        loops < 0 ? 0 : (end - start - offset) + Int64(loops) * (end - start)
    }
    /// Stream frames delivered so far.
    package private(set) var position: Int64 = 0
    /// Stream frame at which each pass after the first began.
    package private(set) var passStarts: [Int64] = []
    private var pass = 0
    private var cursor: Int64

    /// Frames of the file at its own rate. Throws when the region is empty or past the file's end.
    package init(reader: SoundFileReader, start: Int64, end: Int64?, offset: Int64, loops: Int) throws(AudioFileError) {
        let last = min(end ?? reader.frameCount, reader.frameCount)
        guard start < last else {
            throw AudioFileError(path: reader.path, "the region starts at frame \(start), at or past the end of the file (\(reader.frameCount) frames)")
        }
        guard start + offset < last else {
            throw AudioFileError(path: reader.path, "the offset puts the start at frame \(start + offset), past the region's end (frame \(last))")
        }
        self.reader = reader; self.start = start; self.end = last; self.offset = offset; self.loops = loops
        cursor = start + offset
        try reader.seek(to: cursor)
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        while true {
            let left = Int(min(Int64(maxFrames), end - cursor))
            if left > 0 {
                let n = try reader.read(into: channels, maxFrames: left)
                if n > 0 {
                    cursor += Int64(n); position += Int64(n)
                    return n
                }
                // The file is shorter than its header said (truncated while playing?): stop.
                throw AudioFileError(path: reader.path, "ended at frame \(cursor), before the \(reader.frameCount) frames its header announced (truncated while playing?)")
            }
            // The pass is over: loop or end.
            guard loops < 0 || pass < loops else { return 0 }
            pass += 1
            passStarts.append(position)
            cursor = start
            try reader.seek(to: start)
        }
    }

    /// Continues from file frame `frame` (within the region), in the current pass (a seek).
    package func reposition(to frame: Int64) throws(AudioFileError) {
        cursor = min(max(frame, start), end - 1)
        try reader.seek(to: cursor)
    }
}
