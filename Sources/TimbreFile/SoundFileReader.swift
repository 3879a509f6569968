import CSndFile
import Foundation

/// Streaming reader over libsndfile: reads planar `Float` blocks with constant memory.
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Double
    public let channelCount: Int
    /// Frame count as libsndfile reports it (may be approximate for some compressed formats).
    public let frameCount: Int64
    /// libsndfile's format word.
    public let formatCode: Int32
    let file: OpaquePointer
    var interleaved: UnsafeMutablePointer<Float>
    var interleavedCapacity: Int

    public init(path: String) throws(AudioFileError) {
        self.path = path
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            throw AudioFileError(path: path, "no such file")
        }
        if isDir.boolValue { throw AudioFileError(path: path, "is a directory, not a sound file") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            throw AudioFileError(path: path, "cannot read as audio: the file is empty (0 bytes)")
        }
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, "cannot read as audio: \(String(cString: sf_strerror(nil)))")
        }
        guard info.channels >= 1, info.samplerate >= 1 else {
            sf_close(f)
            throw AudioFileError(path: path, "invalid header: \(info.channels) channels at \(info.samplerate) Hz")
        }
        file = f
        sampleRate = Double(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = info.frames
        formatCode = info.format
        interleavedCapacity = 0
        interleaved = .allocate(capacity: 1)
    }

    deinit {
        sf_close(file)
        interleaved.deallocate()
    }

    public var formatName: String { SoundFileNames.format(formatCode) }
    public var encodingName: String { SoundFileNames.encoding(formatCode) }
    public var durationSeconds: Double { Double(frameCount) / sampleRate }

    /// Reads up to `maxFrames` frames into `channels` (planar, `channelCount` buffers).
    /// Returns the frames read; 0 at the end of the file.
    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        let need = maxFrames * channelCount
        if need > interleavedCapacity {
            interleaved.deallocate()
            interleaved = .allocate(capacity: need)
            interleavedCapacity = need
        }
        let got = Int(sf_readf_float(file, interleaved, sf_count_t(maxFrames)))
        if got < 0 || (got == 0 && sf_error(file) != 0) {
            throw AudioFileError(path: path, "read failed: \(String(cString: sf_strerror(file)))")
        }
        let nc = channelCount
        for c in 0..<nc {
            let dst = channels[c]
            for n in 0..<got { dst[n] = interleaved[n * nc + c] }
        }
        return got
    }

    /// Moves to `frame` (0…frameCount) so the next read starts there (`sf_seek`); an error for
    /// files that cannot seek.
    public func seek(to frame: Int64) throws(AudioFileError) {
        if sf_seek(file, sf_count_t(frame), SEEK_SET) < 0 {
            throw AudioFileError(path: path, "cannot seek to frame \(frame): \(String(cString: sf_strerror(file)))")
        }
    }
}
