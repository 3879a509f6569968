import CSndFile
import Foundation

/// The file of a take, written in place (never through a temporary file: whatever happens to
/// the process, what reached the disk is in the file under its own name).
///
/// Created with `O_EXCL`: an existing file is never replaced. WAV is written as RF64 with
/// libsndfile's auto-downgrade (`SFC_RF64_AUTO_DOWNGRADE`): the header is a plain WAV header
/// (with a JUNK chunk holding room for ds64) while the file stays under 4 GiB, and becomes
/// RF64 past it. ``updateHeader()`` (called once a second by the disk thread) writes the
/// current sizes into the header (`SFC_UPDATE_HEADER_NOW`) and `fdatasync`s, so a crash,
/// SIGKILL or power cut loses at most the last second or two. Every write goes through
/// `CheckedFileIO`: a full disk or an unwritable file is an error, not a short file.
final class TakeFile {
    let path: String
    let format: SoundFileFormat
    let channelCount: Int
    let io: CheckedFileIO
    var file: OpaquePointer?
    var interleaved: UnsafeMutablePointer<Float>
    let capacity: Int
    private(set) var frames: Int64 = 0

    init(path: String, format: SoundFileFormat, encoding: SampleEncoding, sampleRate: Int, channelCount: Int, maximumFrames: Int) throws(AudioFileError) {
        self.path = path; self.format = format; self.channelCount = channelCount
        guard [.wav, .rf64, .w64, .caf, .flac, .aiff].contains(format) else {
            throw AudioFileError(path: path, "a take is written as wav, rf64, w64, caf, flac or aiff (not \(format.rawValue))")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32((format == .wav ? SF_FORMAT_RF64 : format.major) | encoding.subtype(in: format))
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(path: path, "libsndfile cannot write \(format.rawValue) with encoding \(encoding.rawValue) at \(sampleRate) Hz, \(channelCount) channels")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let why = errno == EEXIST ? "it exists already (a take never replaces a file)" : String(cString: strerror(errno))
            throw AudioFileError(path: path, "cannot create: \(why)")
        }
        io = CheckedFileIO(descriptor: fd)
        capacity = maximumFrames
        interleaved = .allocate(capacity: maximumFrames * channelCount)
        guard let f = io.open(mode: Int32(SFM_WRITE), info: &info) else {
            let why = String(cString: sf_strerror(nil))
            close(fd); unlink(path); interleaved.deallocate()
            throw AudioFileError(path: path, "cannot create: \(why)")
        }
        file = f
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        sf_command(f, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        if format == .wav { sf_command(f, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE)) }
        // The header on disk from the start: a file killed in its first second opens.
        sf_command(f, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
    }

    deinit { interleaved.deallocate() }

    var failureText: String? { io.failureText }

    /// Appends `count` (≤ `maximumFrames`) planar frames.
    func write(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int) throws(AudioFileError) {
        guard let file else { throw AudioFileError(path: path, "write after close") }
        let n = channelCount
        for c in 0..<n { let src = channels[c]; for i in 0..<count { interleaved[i * n + c] = src[i] } }
        let wrote = sf_writef_float(file, interleaved, sf_count_t(count))
        if let why = io.failureText { throw AudioFileError(path: path, "write failed: \(why)") }
        guard wrote == count else { throw AudioFileError(path: path, "write failed: \(String(cString: sf_strerror(file)))") }
        frames += Int64(count)
    }

    /// Brings the header's sizes up to date and flushes the data to the device.
    func updateHeader() {
        guard let file else { return }
        sf_command(file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
        fdatasync(io.descriptor)
    }

    /// Closes the file: final header, `cues` as a cue chunk (WAV, RF64), data flushed. On a
    /// write failure the sizes are then set from what is on disk (every whole frame), in place.
    func finish(cues: [(frame: Int64, label: String)] = []) -> String? {
        guard let f = file else { return nil }
        file = nil
        let err = sf_close(f)
        if io.failureText == nil, err == 0, !cues.isEmpty, format == .wav || format == .rf64 {
            if let why = RIFFCueChunk.append(cues, descriptor: io.descriptor) { return "writing the cue points failed: \(why)" }
        }
        var problem = io.failureText.map { "write failed: \($0)" } ?? (err != 0 ? "closing failed: \(String(cString: sf_error_number(err)))" : nil)
        if problem != nil, [.wav, .rf64, .w64].contains(format), let repair = try? WaveFileRepair(path: path), !repair.isIntact {
            if let why = repair.patchInPlace(descriptor: io.descriptor) { problem! += "; repairing the header failed: \(why)" }
        }
        if fsync(io.descriptor) != 0 && problem == nil { problem = "fsync failed: \(String(cString: strerror(errno)))" }
        if close(io.descriptor) != 0 && problem == nil { problem = "close failed: \(String(cString: strerror(errno)))" }
        return problem
    }

    /// Closes and deletes the file (`discard`).
    func delete() {
        if let f = file { sf_close(f); file = nil; close(io.descriptor) }
        unlink(path)
    }
}
