import CSndFile
import Foundation
import TimbreDSP

/// Headerless audio (`--input-format raw`): what a file's header would have said.
public struct RawAudioFormat: Equatable, Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    public var encoding: SampleEncoding
    public init(sampleRate: Int, channelCount: Int, encoding: SampleEncoding) {
        self.sampleRate = sampleRate; self.channelCount = channelCount; self.encoding = encoding
    }
}

/// Streaming reader over libsndfile: reads planar `Float` blocks with constant memory.
///
/// `-` reads standard input: it is copied to an unlinked temporary file first (FLAC, Ogg and
/// MP3 need to seek, and the frame count is known before rendering starts), then read as a file.
public final class SoundFileReader {
    /// The path given, or `standard input` for `-` (errors name it).
    public let path: String
    public let sampleRate: Double
    public let channelCount: Int
    /// Frame count as libsndfile reports it (may be approximate for some compressed formats).
    public let frameCount: Int64
    /// libsndfile's format word.
    public let formatCode: Int32
    /// The file's tags (title, artist… and WAV's broadcast extension).
    public let tags: AudioTags
    /// The channel layout the file declares (a WAVE_FORMAT_EXTENSIBLE mask, a CAF layout),
    /// nil when it declares none.
    public let declaredLayout: ChannelLayout?
    /// The declared layout, else the usual one for the channel count.
    public var channelLayout: ChannelLayout { declaredLayout ?? .standard(channelCount: channelCount) }
    /// The frame count the header announced when the file holds fewer (a truncated file):
    /// WAV/RF64/W64 `data` and AIFF `SSND` sizes beyond the file's end, AIFF's `COMM` count,
    /// FLAC's STREAMINFO total. nil when the header and the file agree or the header cannot say
    /// (a streamed WAV with an unset size).
    public let promisedFrames: Int64?
    let file: OpaquePointer
    /// For each channel delivered, the channel of the file it comes from (nil: the same).
    let sourceChannel: [Int]?
    var interleaved: UnsafeMutablePointer<Float>
    var interleavedCapacity: Int
    /// Frames delivered from the file's start (seeks included).
    public private(set) var position: Int64 = 0
    /// Set when decoding stopped early (a truncated or damaged compressed stream): the decoder's text.
    public private(set) var decodingStopped: String?

    public convenience init(path: String) throws(AudioFileError) { try self.init(path: path, raw: nil) }

    /// Opens `path` (`-`: standard input); `raw` describes a headerless file.
    public init(path: String, raw: RawAudioFormat?) throws(AudioFileError) {
        var info = SF_INFO()
        if let raw {
            info.samplerate = Int32(raw.sampleRate)
            info.channels = Int32(raw.channelCount)
            info.format = Int32(SF_FORMAT_RAW | raw.encoding.subtype)
            guard sf_format_check(&info) != 0 else {
                throw AudioFileError(path: path, "raw input cannot be \(raw.encoding.rawValue) (allowed: pcm16, pcm24, pcm32, float, double)")
            }
        }
        let opened: OpaquePointer?
        if path == "-" {
            self.path = "standard input"
            let fd: Int32
            switch TemporaryFiles.anonymous(prefix: "timbre-stdin") {
            case .success(let d): fd = d
            case .failure(let e): throw AudioFileError(path: "standard input", e.message)
            }
            let copy = CheckedFileIO(descriptor: STDIN_FILENO)
            if let e = copy.copy(to: fd, rewind: false) {
                close(fd)
                throw AudioFileError(path: "standard input", "cannot read: \(String(cString: strerror(e)))")
            }
            var st = stat()
            if fstat(fd, &st) == 0 && st.st_size == 0 {
                close(fd)
                throw AudioFileError(path: "standard input", "cannot read as audio: nothing arrived (0 bytes)")
            }
            lseek(fd, 0, SEEK_SET)
            opened = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_TRUE))
        } else {
            self.path = path
            // One stat (FileManager's attributes would also look up the owner's and group's
            // names in /etc/passwd and /etc/group: a millisecond on every render).
            var st = stat()
            guard stat(path, &st) == 0 else { throw AudioFileError(path: path, "no such file") }
            if st.st_mode & S_IFMT == S_IFDIR { throw AudioFileError(path: path, "is a directory, not a sound file") }
            if st.st_mode & S_IFMT == S_IFREG && st.st_size == 0 {
                throw AudioFileError(path: path, "cannot read as audio: the file is empty (0 bytes)")
            }
            opened = sf_open(path, Int32(SFM_READ), &info)
        }
        guard let f = opened else {
            throw AudioFileError(path: self.path, "cannot read as audio: \(String(cString: sf_strerror(nil)))\(path == "-" && raw == nil ? " (headerless audio needs --input-format raw with its rate, channels and encoding)" : "")")
        }
        guard info.channels >= 1, info.samplerate >= 1 else {
            sf_close(f)
            throw AudioFileError(path: self.path, "invalid header: \(info.channels) channels at \(info.samplerate) Hz")
        }
        file = f
        sampleRate = Double(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = info.frames
        formatCode = info.format
        tags = AudioTags.read(from: f)
        declaredLayout = ChannelLayout.read(from: f, channelCount: Int(info.channels))
        // Ogg Vorbis and Opus store 3–8 channels in their own fixed order: read in WAV's.
        if Int(info.format) & SF_FORMAT_TYPEMASK == SF_FORMAT_OGG, let vorbis = ChannelLayout.vorbisOrder(channelCount: Int(info.channels)) {
            sourceChannel = vorbis.indices(for: .standard(channelCount: Int(info.channels)))
        } else {
            sourceChannel = nil
        }
        promisedFrames = HeaderPromise.frames(file: f, info: info)
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

    /// Frames the header announced that the file does not hold (0 when whole), known once the
    /// reader reached the end.
    public var missingFrames: Int64 {
        guard let promised = promisedFrames ?? (decodingStopped != nil ? frameCount : nil) else { return 0 }
        return max(0, promised - position)
    }

    /// Reads up to `maxFrames` frames into `channels` (planar, `channelCount` buffers).
    /// Returns the frames read; 0 at the end of the file. A compressed stream whose decoder
    /// gives up before the frame count its header announced ends there (``decodingStopped``
    /// says why); a PCM read error is thrown.
    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        let need = maxFrames * channelCount
        if need > interleavedCapacity {
            interleaved.deallocate()
            interleaved = .allocate(capacity: need)
            interleavedCapacity = need
        }
        if decodingStopped != nil { return 0 }
        var got = Int(sf_readf_float(file, interleaved, sf_count_t(maxFrames)))
        if got < 0 || (got < maxFrames && sf_error(file) != 0) {
            let why = String(cString: sf_strerror(file))
            guard isCompressed, frameCount > position + Int64(max(got, 0)) else {
                throw AudioFileError(path: path, "read failed: \(why)")
            }
            decodingStopped = why
            got = max(got, 0)
        }
        let nc = channelCount
        for c in 0..<nc {
            let dst = channels[c], from = sourceChannel?[c] ?? c
            for n in 0..<got { dst[n] = interleaved[n * nc + from] }
        }
        position += Int64(got)
        return got
    }

    /// FLAC, Ogg, MP3: formats whose decoder can stop mid-file on damage.
    var isCompressed: Bool {
        switch Int(formatCode) & SF_FORMAT_TYPEMASK {
        case SF_FORMAT_FLAC, SF_FORMAT_OGG, SF_FORMAT_MPEG: true
        default: false
        }
    }

    /// Moves to `frame` (0…frameCount) so the next read starts there (`sf_seek`); an error for
    /// files that cannot seek.
    public func seek(to frame: Int64) throws(AudioFileError) {
        if sf_seek(file, sf_count_t(frame), SEEK_SET) < 0 {
            throw AudioFileError(path: path, "cannot seek to frame \(frame): \(String(cString: sf_strerror(file)))")
        }
        position = frame
    }
}

/// What a file's header announced, read from libsndfile's parse log (`SFC_GET_LOG_INFO`),
/// which notes every chunk whose size runs past the end of the file.
enum HeaderPromise {
    static func frames(file: OpaquePointer, info: SF_INFO) -> Int64? {
        var buffer = [CChar](repeating: 0, count: 8192)
        sf_command(file, Int32(SFC_GET_LOG_INFO), &buffer, Int32(buffer.count))
        let log = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytesPerFrame: Int64? = {
            let b: Int64
            switch Int(info.format) & SF_FORMAT_SUBMASK {
            case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_ULAW, SF_FORMAT_ALAW: b = 1
            case SF_FORMAT_PCM_16: b = 2
            case SF_FORMAT_PCM_24: b = 3
            case SF_FORMAT_PCM_32, SF_FORMAT_FLOAT: b = 4
            case SF_FORMAT_DOUBLE: b = 8
            default: return nil
            }
            return b * Int64(info.channels)
        }()
        for line in log.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            // "Frame count read from 'COMM' chunk (240000) not equal to…" (AIFF)
            if let r = text.range(of: "Frame count read from 'COMM' chunk ("), let end = text[r.upperBound...].firstIndex(of: ")"),
               let n = Int64(text[r.upperBound..<end]), n > info.frames {
                return n
            }
            // "data : 480000 (should be 249986)" (WAV, W64, RF64), "SSND : 480008 (should be …)" (AIFF)
            for (chunk, overhead) in [("data :", Int64(0)), ("SSND :", Int64(8))] where text.hasPrefix(chunk) && text.contains("(should be") {
                let fields = text.dropFirst(chunk.count).split(separator: " ")
                guard let bpf = bytesPerFrame, let size = fields.first.flatMap({ Int64($0) }),
                      size != 0xFFFF_FFFF, size != 0, size != -1 else { continue }
                let n = (size - overhead) / bpf
                if n > info.frames { return n }
            }
        }
        return nil
    }
}
