import TimbreEngine

extension SoundFileWriter {
    /// Writes the buffer's frames in use (its channel count is the file's).
    public func write(_ buffer: PlanarBuffer) throws(AudioFileError) {
        precondition(buffer.channelCount == channelCount, "the file has \(channelCount) channels, the buffer \(buffer.channelCount)")
        try buffer.withChannelPointers { (p) throws(AudioFileError) in try write(p, frameCount: buffer.frameCount) }
    }
}

extension SoundFileReader {
    /// Reads up to the buffer's capacity; its `PlanarBuffer/frameCount` becomes the frames
    /// read (0 at the end of the file), which it returns.
    @discardableResult
    public func read(into buffer: PlanarBuffer) throws(AudioFileError) -> Int {
        precondition(buffer.channelCount == channelCount, "the file has \(channelCount) channels, the buffer \(buffer.channelCount)")
        let n = try buffer.withChannelPointers { (p) throws(AudioFileError) in try read(into: p, maxFrames: buffer.capacity) }
        buffer.frameCount = n
        return n
    }

    /// Every remaining frame, planar.
    public func readAll() throws(AudioFileError) -> [[Float]] {
        var channels = [[Float]](repeating: [], count: channelCount)
        let buffer = PlanarBuffer(channelCount: channelCount, capacity: 8192)
        while try read(into: buffer) > 0 {
            for c in 0..<channelCount { channels[c] += buffer[c] }
        }
        return channels
    }
}
