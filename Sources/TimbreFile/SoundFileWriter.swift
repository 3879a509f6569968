import CSndFile
import Foundation

/// Streaming writer over libsndfile with atomic output.
///
/// Writes to a hidden temporary file beside the target and renames it over the target
/// only in ``commit()``; ``abort()`` (and `deinit` without a commit) deletes the temporary
/// file, so a failed render leaves no partial file and never touches an existing one.
/// Clipping is enabled (`SFC_SET_CLIPPING`): without it libsndfile wraps out-of-range floats
/// in integer formats and silently writes nothing to FLAC. Every write's count is checked.
public final class SoundFileWriter {
    public let path: String
    public let temporaryPath: String
    public let channelCount: Int
    public let encoding: SampleEncoding
    var file: OpaquePointer?
    var interleaved: UnsafeMutablePointer<Float>
    var capacity: Int
    var dither: TPDFDither?
    var committed = false
    /// 2^(bits−1) for 16- and 24-bit integer output, where the writer rounds itself.
    let quantizationScale: Float?
    /// Samples that did not fit the integer encoding and were clipped (0 for float and codecs).
    public private(set) var clippedSamples: Int64 = 0

    /// Opens a temporary file for `format`/`encoding`. `dither` applies TPDF dither for
    /// integer encodings of 16 bits or fewer.
    public init(path: String, format: SoundFileFormat, encoding: SampleEncoding, sampleRate: Int, channelCount: Int, dither: Bool) throws(AudioFileError) {
        self.path = path
        self.channelCount = channelCount
        self.encoding = encoding
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw AudioFileError(path: path, "output directory \(dir) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw AudioFileError(path: path, "is a directory")
        }
        temporaryPath = dir + "/." + url.lastPathComponent + ".timbre-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(format.major | encoding.subtype)
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(path: path, "libsndfile cannot write \(format.rawValue) with encoding \(encoding.rawValue) at \(sampleRate) Hz, \(channelCount) channels")
        }
        guard let f = sf_open(temporaryPath, Int32(SFM_WRITE), &info) else {
            let why = String(cString: sf_strerror(nil))
            unlink(temporaryPath)
            throw AudioFileError(path: path, "cannot create output file: \(why)")
        }
        file = f
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk: it carries a timestamp, and renders must be byte-for-byte reproducible.
        sf_command(f, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        if let bits = encoding.integerBits, bits <= 16, dither { self.dither = TPDFDither(bits: bits) }
        quantizationScale = encoding.integerBits.flatMap { $0 <= 24 ? Float(1 << ($0 - 1)) : nil }
        capacity = 1
        interleaved = .allocate(capacity: 1)
    }

    deinit {
        if !committed { abort() }
        interleaved.deallocate()
    }

    /// Writes `frameCount` planar frames.
    public func write(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) throws(AudioFileError) {
        guard let file else { throw AudioFileError(path: path, "write after close") }
        let need = frameCount * channelCount
        if need > capacity {
            interleaved.deallocate(); interleaved = .allocate(capacity: need); capacity = need
        }
        let nc = channelCount
        for c in 0..<nc {
            let src = channels[c]
            for n in 0..<frameCount { interleaved[n * nc + c] = src[n] }
        }
        if encoding.integerBits != nil {
            // Count what will not fit before dither (which adds at most 1 LSB) and clipping.
            let top: Float = quantizationScale.map { ($0 - 1) / $0 } ?? 1
            var clipped: Int64 = 0
            for i in 0..<need where interleaved[i] > top || interleaved[i] < -1 { clipped += 1 }
            clippedSamples += clipped
        }
        dither?.apply(interleaved, count: need)
        if let q = quantizationScale {
            // Round to the integer grid here: libsndfile's float→int conversion on this
            // platform floors (measured: −0.1 LSB is stored as −1 LSB, +0.9 LSB as 0), which
            // would add a −½ LSB offset and bias the dither. Exact grid values pass unchanged.
            let top = (q - 1) / q
            for i in 0..<need {
                let v = (interleaved[i] * q).rounded() / q
                interleaved[i] = v.isNaN ? 0 : min(top, max(-1, v))
            }
        }
        let wrote = sf_writef_float(file, interleaved, sf_count_t(frameCount))
        if wrote != sf_count_t(frameCount) {
            throw AudioFileError(path: path, "write failed after \(wrote) of \(frameCount) frames: \(String(cString: sf_strerror(file)))")
        }
    }

    /// Closes the file and renames it over the target.
    public func commit() throws(AudioFileError) {
        guard let f = file else { throw AudioFileError(path: path, "already closed") }
        file = nil
        let err = sf_close(f)
        if err != 0 {
            unlink(temporaryPath)
            throw AudioFileError(path: path, "closing failed: \(String(cString: sf_error_number(err)))")
        }
        if rename(temporaryPath, path) != 0 {
            let why = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw AudioFileError(path: path, "cannot move output into place: \(why)")
        }
        committed = true
    }

    /// Closes and deletes the temporary file; the target is untouched.
    public func abort() {
        if let f = file { sf_close(f); file = nil }
        unlink(temporaryPath)
    }
}
