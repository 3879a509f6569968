import CSndFile
import CTimbreSupport
import Foundation
import TimbreDSP

/// Streaming writer over libsndfile with atomic output.
///
/// Where the bytes go follows ``OutputDestination``: a regular file (or a link's final target)
/// is written to a hidden temporary file beside it and renamed over it only in ``commit()``;
/// a stream (standard output, a FIFO, `/dev/null`, a terminal) is encoded into an unlinked
/// temporary file and copied to it in ``commit()``, never replaced. ``abort()`` (and `deinit`
/// without a commit) deletes the temporary file, and it is registered with `TemporaryFiles`
/// so a signal removes it too: a failed or interrupted render leaves no partial file and never
/// touches an existing one.
///
/// Every byte goes through `CheckedFileIO`: a failed write (a full disk, a file size limit)
/// is an error naming the cause, from the write or from ``commit()``, never a truncated file.
/// Clipping is enabled (`SFC_SET_CLIPPING`): without it libsndfile wraps out-of-range floats
/// in integer formats and silently writes nothing to FLAC. No timestamps are written (the
/// PEAK chunk is off, and RF64's, which libsndfile writes regardless, has its time zeroed), so
/// the same render gives the same bytes; Ogg streams carry a random serial number.
public final class SoundFileWriter {
    /// The path the user gave.
    public let path: String
    public let destination: OutputDestination
    /// The temporary file: beside the target for files, "" for streams (unlinked at once).
    public let temporaryPath: String
    public let channelCount: Int
    public let format: SoundFileFormat
    /// The channels are discrete (no positions): a WAVE_FORMAT_EXTENSIBLE mask is set to 0.
    private var discreteChannels = false
    public let encoding: SampleEncoding
    var file: OpaquePointer?
    let io: CheckedFileIO
    var temporarySlot: Int32 = -1
    var interleaved: UnsafeMutablePointer<Float>
    var capacity: Int
    var dither: TPDFDither?
    /// Requantisation to a shorter word or with a noise shape (instead of `dither`).
    var quantizer: NoiseShapedQuantizer?
    /// Dither only from the first block with a sample off the output's integer grid: audio
    /// nothing changed (a 16-bit copy) stays bit-exact.
    public var ditherOnlyOffGrid = false
    var ditherEngaged = false
    var committed = false
    /// 2^(bits−1) for 16- and 24-bit integer output, where the writer rounds itself.
    let quantizationScale: Float?
    /// Samples that did not fit the integer encoding and were clipped (0 for float and codecs).
    public private(set) var clippedSamples: Int64 = 0
    /// Tags the container could not hold (their keys), for a warning: refused when set, or
    /// missing when the finished file is read back in ``commit()``.
    public private(set) var droppedTags: [String] = []
    let tags: AudioTags
    /// The channel layout declared in the file (nil: none; the container could not hold it).
    public private(set) var writtenLayout: ChannelLayout?
    /// For each channel of the file, the channel given to ``write(_:frameCount:)`` it takes
    /// (nil: the same): Ogg Vorbis and Opus fix their own order for 3–8 channels.
    var sourceChannel: [Int]?

    /// Opens a temporary file for `format`/`encoding`. `dither` applies TPDF dither for
    /// integer encodings of 16 bits or fewer. `tags` are written to containers that hold them
    /// (see ``droppedTags``); `encoder` sets a lossy codec's quality or bitrate.
    ///
    /// `shape` other than `.tpdf` shapes the dithered requantisation noise (`NoiseShape`);
    /// `wordLength` (8 up to the encoding's bits, 24 at most) requantises to that many bits
    /// inside the container (20-bit audio in a 24-bit file). Either dithers whatever the
    /// word length (unless `dither` is false: then a shorter word is only rounded).
    public init(path: String, format: SoundFileFormat, encoding: SampleEncoding, sampleRate: Int, channelCount: Int, dither: Bool,
                shape: NoiseShape = .tpdf, wordLength: Int? = nil, layout: ChannelLayout? = nil,
                tags: AudioTags = AudioTags(), encoder: EncoderSettings = EncoderSettings()) throws(AudioFileError) {
        self.path = path
        self.channelCount = channelCount
        self.format = format
        self.encoding = encoding
        self.tags = tags
        destination = try OutputDestination.resolve(path)
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        // More than two channels in WAV: WAVE_FORMAT_EXTENSIBLE, which carries the channel mask
        // (as sox and ffmpeg write them).
        let major = format == .wav && channelCount > 2 ? SF_FORMAT_WAVEX : format.major
        info.format = Int32(major | encoding.subtype(in: format))
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(path: path, "libsndfile cannot write \(format.rawValue) with encoding \(encoding.rawValue) at \(sampleRate) Hz, \(channelCount) channels")
        }
        let descriptor: Int32
        switch destination {
        case .file(let target):
            let url = URL(fileURLWithPath: target)
            let dir = url.deletingLastPathComponent().path
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw AudioFileError(path: path, "output directory \(dir) does not exist")
            }
            temporaryPath = dir + "/." + url.lastPathComponent + ".timbre-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
            temporarySlot = TemporaryFiles.register(temporaryPath)
            descriptor = open(temporaryPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor < 0 {
                let why = String(cString: strerror(errno))
                TemporaryFiles.unregister(temporarySlot)
                throw AudioFileError(path: path, "cannot create output file: \(why)")
            }
        case .stream:
            temporaryPath = ""
            switch TemporaryFiles.anonymous(prefix: "timbre-stream") {
            case .success(let fd): descriptor = fd
            case .failure(let e): throw AudioFileError(path: path, e.message)
            }
        }
        // (Gathered into writes of 1 MiB: the temporary file counts only once renamed whole.)
        io = CheckedFileIO(descriptor: descriptor, bufferBytes: 1 << 20)
        capacity = 1
        interleaved = .allocate(capacity: 1)
        quantizationScale = encoding.integerBits.flatMap { $0 <= 24 ? Float(1 << ($0 - 1)) : nil }
        guard let f = io.open(mode: Int32(SFM_WRITE), info: &info) else {
            let why = String(cString: sf_strerror(nil))
            abort()
            throw AudioFileError(path: path, "cannot create output file: \(why)")
        }
        file = f
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk: it carries a timestamp, and renders must be byte-for-byte reproducible.
        sf_command(f, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        if let why = encoder.apply(to: f) {
            abort()
            throw AudioFileError(path: path, "\(format.rawValue) \(encoding.rawValue): \(why)")
        }
        droppedTags = tags.write(to: f, container: format)
        if encoding == .vorbis || encoding == .opus, let vorbis = ChannelLayout.vorbisOrder(channelCount: channelCount) {
            sourceChannel = (layout ?? .standard(channelCount: channelCount)).indices(for: vorbis)
            if sourceChannel != nil { writtenLayout = layout }
        } else if let layout, layout.channelCount == channelCount, channelCount > 1 || layout.positions != [.mono] {
            writtenLayout = layout.write(to: f) ? layout : nil
            discreteChannels = layout.positions.allSatisfy { $0 == .unknown }
        }
        if let wordLength {
            guard let bits = encoding.integerBits else {
                abort()
                throw AudioFileError(path: path, "\(wordLength)-bit words need integer PCM output, not \(encoding.rawValue) (--encoding pcm16 or pcm24)")
            }
            guard (8...min(24, bits)).contains(wordLength) else {
                abort()
                throw AudioFileError(path: path, "\(wordLength)-bit words do not fit \(encoding.rawValue) (allowed 8…\(min(24, bits)))")
            }
        }
        if shape != .tpdf || wordLength != nil, let bits = wordLength ?? encoding.integerBits, bits <= 24 {
            guard let q = NoiseShapedQuantizer(shape: dither ? shape : .tpdf, bits: bits, sampleRate: Double(sampleRate),
                                               channelCount: channelCount, dithered: dither) else {
                abort()
                throw AudioFileError(path: path, "the \(shape.rawValue) noise shape has no design for \(sampleRate) Hz (designs: \(shape.designRates.map { "\(Int($0)) Hz" }.joined(separator: ", ")), each used within 10 %)")
            }
            quantizer = q
        } else if let bits = encoding.integerBits, bits <= 16, dither { self.dither = TPDFDither(bits: bits) }
    }

    deinit {
        if !committed { abort() }
        interleaved.deallocate()
    }

    /// Bytes set aside for the audio of the temporary file (``reserve(frames:)``).
    var reservedBytes: Int64 = 0

    /// Sets aside disk blocks for `frames` frames of uncompressed audio in the temporary file
    /// (`fallocate`, keeping its size): a hint, ignored where the file system has no such
    /// call. Renaming a file whose blocks ext4 has not yet placed over an existing one makes
    /// it place and start writing them there and then ("auto_da_alloc"): 1.7 ms for a 1.6 MB
    /// file here, and the disk traffic lands in the next command's time; with the blocks set
    /// aside the rename takes 0.4 ms and the data goes out with the ordinary writeback.
    /// Codecs (their size is not known) and streams are left alone; blocks left over past
    /// the end (a render that stopped short) are released at ``commit()``.
    public func reserve(frames: Int64) {
        guard case .file = destination, frames > 0 else { return }
        let bytesPerSample: Int64
        switch encoding {
        case .pcm8: bytesPerSample = 1
        case .pcm16: bytesPerSample = 2
        case .pcm24: bytesPerSample = 3
        case .pcm32, .float: bytesPerSample = 4
        case .double: bytesPerSample = 8
        case .vorbis, .opus, .mp3: return
        }
        let bytes = frames.multipliedReportingOverflow(by: Int64(channelCount) * bytesPerSample)
        // (Up to 1 GiB: past it the rename's cost is nothing beside the writing, and a length
        // that is not known for sure — players that loop — reserves nothing.)
        guard !bytes.overflow, bytes.partialValue <= 1 << 30 else { return }
        if timbre_reserve_blocks(io.descriptor, bytes.partialValue) == 0 { reservedBytes = bytes.partialValue }
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
            let src = channels[sourceChannel?[c] ?? c]
            for n in 0..<frameCount { interleaved[n * nc + c] = src[n] }
        }
        if encoding.integerBits != nil {
            // Count what will not fit before dither (which adds at most 1 LSB) and clipping.
            let top: Float = quantizationScale.map { ($0 - 1) / $0 } ?? 1
            // (Counted only when the block reaches full scale: the peak is found eight at a time.)
            if LevelMeter.largestMagnitude(interleaved, count: need) > top {
                var clipped: Int64 = 0
                for i in 0..<need where interleaved[i] > top || interleaved[i] < -1 { clipped += 1 }
                clippedSamples += clipped
            }
        }
        if let q = quantizer.map({ Float(1 << ($0.bits - 1)) }) ?? quantizationScale, dither != nil || quantizer != nil, ditherOnlyOffGrid, !ditherEngaged {
            for i in 0..<need where Self.roundedHalfAway(interleaved[i] * q) != interleaved[i] * q { ditherEngaged = true; break }
        }
        if !ditherOnlyOffGrid || ditherEngaged { dither?.apply(interleaved, count: need); quantizer?.apply(interleaved, count: need) }
        if let q = quantizationScale {
            // Round to the integer grid here: libsndfile's float→int conversion on this
            // platform floors (measured: −0.1 LSB is stored as −1 LSB, +0.9 LSB as 0), which
            // would add a −½ LSB offset and bias the dither. Exact grid values pass unchanged.
            let top = (q - 1) / q
            for i in 0..<need {
                let v = Self.roundedHalfAway(interleaved[i] * q) / q
                interleaved[i] = v.isNaN ? 0 : min(top, max(-1, v))
            }
        }
        let wrote = sf_writef_float(file, interleaved, sf_count_t(frameCount))
        if let why = io.failureText {
            throw AudioFileError(path: path, "write failed: \(why)")
        }
        if wrote != sf_count_t(frameCount) {
            throw AudioFileError(path: path, "write failed after \(wrote) of \(frameCount) frames: \(String(cString: sf_strerror(file)))")
        }
    }

    /// `v.rounded()` (to nearest, halves away from zero) in arithmetic the compiler vectorises
    /// (`rounded()` is a call to `roundf` a sample): in `Double`, adding and taking away 1.5·2⁵²
    /// rounds to nearest with halves to even, exactly, for every `Float`; a half that went
    /// toward zero is moved one away. Same result for every input, NaN and infinities included.
    @inline(__always) static func roundedHalfAway(_ v: Float) -> Float {
        let x = Double(v), magic = 6_755_399_441_055_744.0
        let even = (x + magic) - magic
        let nearest = (x - even).magnitude == 0.5 ? x + (x > 0 ? 0.5 : -0.5) : even
        // (From 2⁵² on a Float is whole already — and infinities and NaN pass as they are.)
        return x.magnitude < 4_503_599_627_370_496 ? Float(nearest) : v
    }

    /// Closes the file and moves it into place: renamed over the target, or copied to the
    /// stream. Every step is checked; on failure nothing is left and the target is untouched.
    public func commit() throws(AudioFileError) {
        guard let f = file else { throw AudioFileError(path: path, "already closed") }
        file = nil
        let err = sf_close(f)
        io.flush()
        if let why = io.failureText {
            abort()
            throw AudioFileError(path: path, "write failed: \(why)")
        }
        if err != 0 {
            abort()
            throw AudioFileError(path: path, "closing failed: \(String(cString: sf_error_number(err)))")
        }
        if format == .rf64 { RF64PeakChunk.clearTimestamp(descriptor: io.descriptor) }
        if discreteChannels && channelCount > 2 && (format == .wav || format == .rf64) { WaveChannelMask.clear(descriptor: io.descriptor) }
        // Blocks reserved past the file's end (fewer frames than expected) go back.
        if reservedBytes > 0 { var st = stat(); if fstat(io.descriptor, &st) == 0 && Int64(st.st_size) < reservedBytes { _ = ftruncate(io.descriptor, st.st_size) } }
        verifyTags()
        switch destination {
        case .file(let target):
            // close(2) is checked (it reports what a file system deferred); ext4 and tmpfs
            // report a full disk at write(2), which `CheckedFileIO` caught.
            let closed = close(io.descriptor) == 0
            closedDescriptor = true
            if !closed {
                let why = String(cString: strerror(errno))
                unlink(temporaryPath)
                TemporaryFiles.unregister(temporarySlot)
                throw AudioFileError(path: path, "write failed: \(why)")
            }
            if rename(temporaryPath, target) != 0 {
                let why = String(cString: strerror(errno))
                unlink(temporaryPath)
                TemporaryFiles.unregister(temporarySlot)
                throw AudioFileError(path: path, "cannot move output into place: \(why)")
            }
            TemporaryFiles.unregister(temporarySlot)
        case .stream(let name, let given):
            let out = given ?? open(path, O_WRONLY | O_CLOEXEC)
            defer { close(io.descriptor); closedDescriptor = true; if given == nil && out >= 0 { close(out) } }
            guard out >= 0 else { throw AudioFileError(path: path, "cannot open \(name) for writing: \(String(cString: strerror(errno)))") }
            if let e = io.copy(to: out) {
                throw AudioFileError(path: path, "writing to \(name) failed: \(String(cString: strerror(e)))")
            }
        }
        committed = true
    }

    /// Reads the finished file's tags back: libsndfile accepts some keys a container then does
    /// not write (AIFF keeps title, artist, comment and copyright only; MP3's ID3 has no copyright).
    private func verifyTags() {
        guard !tags.text.isEmpty else { return }
        var info = SF_INFO()
        guard let f = sf_open("/proc/self/fd/\(io.descriptor)", Int32(SFM_READ), &info) else { return }
        defer { sf_close(f) }
        let back = AudioTags.read(from: f)
        for key in tags.text.keys.sorted() where back.text[key] == nil && !droppedTags.contains(key.rawValue) {
            droppedTags.append(key.rawValue)
        }
    }

    /// Closes and deletes the temporary file; the target is untouched.
    public func abort() {
        if let f = file { sf_close(f); file = nil }
        if !committed && io.descriptor >= 0 && !closedDescriptor {
            close(io.descriptor)
            closedDescriptor = true
            if !temporaryPath.isEmpty { unlink(temporaryPath) }
            TemporaryFiles.unregister(temporarySlot)
        }
    }
    private var closedDescriptor = false
}
