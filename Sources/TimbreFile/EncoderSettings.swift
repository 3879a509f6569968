import CSndFile

/// How a lossy codec (MP3, Opus, Vorbis) trades size for quality: libsndfile's compression
/// level and bitrate mode (`SFC_SET_COMPRESSION_LEVEL`, `SFC_SET_BITRATE_MODE`).
public struct EncoderSettings: Equatable, Sendable {
    /// libsndfile's compression level, 0 (best quality, largest) … 1 (smallest); nil: the codec's default.
    public var compressionLevel: Double?
    public var bitrateMode: BitrateMode?

    public enum BitrateMode: String, CaseIterable, Sendable {
        case constant, average, variable
        var libsndfileValue: Int32 {
            switch self {
            case .constant: Int32(SF_BITRATE_MODE_CONSTANT)
            case .average: Int32(SF_BITRATE_MODE_AVERAGE)
            case .variable: Int32(SF_BITRATE_MODE_VARIABLE)
            }
        }
    }

    public init(compressionLevel: Double? = nil, bitrateMode: BitrateMode? = nil) {
        self.compressionLevel = compressionLevel
        self.bitrateMode = bitrateMode
    }

    /// Quality on the 0 (smallest) … 10 (best) scale of `oggenc -q` and `--quality`.
    public init(quality: Double) {
        // LAME's VBR quality must stay below 10: the smallest level is 0.99, not 1.
        self.init(compressionLevel: min(0.99, 1 - min(10, max(0, quality)) / 10), bitrateMode: nil)
    }

    /// The constant bitrates (kb/s) libsndfile can give `encoding` at this rate and channel
    /// count; nil when the codec has no bitrate control (Vorbis in libsndfile is quality-only).
    public static func bitrateRange(for encoding: SampleEncoding, sampleRate: Int, channelCount: Int) -> ClosedRange<Double>? {
        switch encoding {
        // MPEG-1 (≥ 32 kHz) 32…320 kb/s, MPEG-2 (≥ 16 kHz) 8…160, MPEG-2.5 8…64.
        case .mp3: sampleRate >= 32000 ? 32...320 : sampleRate >= 16000 ? 8...160 : 8...64
        // libsndfile's Opus: 6 kb/s … 256 kb/s per channel.
        case .opus: 6 * Double(channelCount)...256 * Double(channelCount)
        default: nil
        }
    }

    /// A constant bitrate within `range` (``bitrateRange(for:sampleRate:channelCount:)``), as
    /// libsndfile derives it from the compression level: a straight line from the largest rate
    /// (level 0) to the smallest (level 1), its `mpeg_l3_encoder_set_quality` and Opus encoder.
    public init(constantBitrate kbps: Double, in range: ClosedRange<Double>) {
        self.init(compressionLevel: (range.upperBound - kbps) / (range.upperBound - range.lowerBound), bitrateMode: .constant)
    }

    /// Applies the settings to a file just opened for writing; an error names what was refused.
    func apply(to file: OpaquePointer) -> String? {
        if let mode = bitrateMode {
            var m = mode.libsndfileValue
            // libsndfile returns 0 from a successful SFC_SET_BITRATE_MODE: its error state says.
            sf_command(file, Int32(SFC_SET_BITRATE_MODE), &m, Int32(MemoryLayout<Int32>.size))
            if sf_error(file) != 0 {
                return "the codec does not take bitrate mode \(mode.rawValue)"
            }
        }
        if var level = compressionLevel {
            if sf_command(file, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size)) != SF_TRUE {
                return "the codec does not take a compression level"
            }
        }
        return nil
    }
}
