import CSndFile

/// Container formats Timbre writes, chosen from the output extension or `--format`.
public enum SoundFileFormat: String, CaseIterable, Sendable {
    case wav, aiff, flac, ogg, opus, caf, w64, rf64, au, mp3

    /// Format from a file extension (case-insensitive); nil if unknown.
    public init?(extension ext: String) {
        switch ext.lowercased() {
        case "wav", "wave": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        case "opus": self = .opus
        case "caf": self = .caf
        case "w64": self = .w64
        case "rf64": self = .rf64
        case "au", "snd": self = .au
        case "mp3": self = .mp3
        default: return nil
        }
    }

    var major: Int {
        switch self {
        case .wav: SF_FORMAT_WAV
        case .aiff: SF_FORMAT_AIFF
        case .flac: SF_FORMAT_FLAC
        case .ogg, .opus: SF_FORMAT_OGG
        case .caf: SF_FORMAT_CAF
        case .w64: SF_FORMAT_W64
        case .rf64: SF_FORMAT_RF64
        case .au: SF_FORMAT_AU
        case .mp3: SF_FORMAT_MPEG
        }
    }

    /// Encodings this container takes; the first is the default.
    public var encodings: [SampleEncoding] {
        switch self {
        case .flac: [.pcm24, .pcm16, .pcm8]
        case .ogg: [.vorbis, .opus]
        case .opus: [.opus]
        case .mp3: [.mp3]
        case .wav, .aiff, .caf, .w64, .rf64, .au: [.pcm24, .pcm16, .pcm32, .float, .double, .pcm8]
        }
    }
}

/// Sample encodings (`--encoding`).
public enum SampleEncoding: String, CaseIterable, Sendable {
    case pcm8, pcm16, pcm24, pcm32, float, double, vorbis, opus, mp3

    /// libsndfile's subtype in `format`: 8-bit PCM is unsigned in the WAV family, as the
    /// format requires, and signed elsewhere.
    func subtype(in format: SoundFileFormat) -> Int {
        self == .pcm8 && [.wav, .w64, .rf64].contains(format) ? SF_FORMAT_PCM_U8 : subtype
    }

    var subtype: Int {
        switch self {
        case .pcm8: SF_FORMAT_PCM_S8
        case .pcm16: SF_FORMAT_PCM_16
        case .pcm24: SF_FORMAT_PCM_24
        case .pcm32: SF_FORMAT_PCM_32
        case .float: SF_FORMAT_FLOAT
        case .double: SF_FORMAT_DOUBLE
        case .vorbis: SF_FORMAT_VORBIS
        case .opus: SF_FORMAT_OPUS
        case .mp3: SF_FORMAT_MPEG_LAYER_III
        }
    }

    /// The encoding of a file libsndfile opened (`SF_INFO.format`), if Timbre can write it.
    /// ADPCM, µ-law and A-law map to nil.
    public init?(libsndfileFormat code: Int32) {
        switch Int(code) & SF_FORMAT_SUBMASK {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: self = .pcm8
        case SF_FORMAT_PCM_16: self = .pcm16
        case SF_FORMAT_PCM_24: self = .pcm24
        case SF_FORMAT_PCM_32: self = .pcm32
        case SF_FORMAT_FLOAT: self = .float
        case SF_FORMAT_DOUBLE: self = .double
        case SF_FORMAT_VORBIS: self = .vorbis
        case SF_FORMAT_OPUS: self = .opus
        case SF_FORMAT_MPEG_LAYER_III: self = .mp3
        default: return nil
        }
    }

    /// Bits of an integer encoding (nil for float and lossy codecs).
    public var integerBits: Int? {
        switch self {
        case .pcm8: 8
        case .pcm16: 16
        case .pcm24: 24
        case .pcm32: 32
        default: nil
        }
    }
}

/// Names for libsndfile's major formats and subtypes, for `timbre info`.
enum SoundFileNames {
    static func format(_ code: Int32) -> String {
        let f = Int(code)
        var info = SF_FORMAT_INFO()
        info.format = Int32(f & SF_FORMAT_TYPEMASK)
        if sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let n = info.name {
            return String(cString: n)
        }
        return String(format: "0x%06x", f & SF_FORMAT_TYPEMASK)
    }

    static func encoding(_ code: Int32) -> String {
        let f = Int(code)
        switch f & SF_FORMAT_SUBMASK {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: return "pcm8"
        case SF_FORMAT_PCM_16: return "pcm16"
        case SF_FORMAT_PCM_24: return "pcm24"
        case SF_FORMAT_PCM_32: return "pcm32"
        case SF_FORMAT_FLOAT: return "float"
        case SF_FORMAT_DOUBLE: return "double"
        case SF_FORMAT_ULAW: return "ulaw"
        case SF_FORMAT_ALAW: return "alaw"
        case SF_FORMAT_IMA_ADPCM: return "ima-adpcm"
        case SF_FORMAT_MS_ADPCM: return "ms-adpcm"
        case SF_FORMAT_GSM610: return "gsm610"
        case SF_FORMAT_VORBIS: return "vorbis"
        case SF_FORMAT_OPUS: return "opus"
        case SF_FORMAT_ALAC_16, SF_FORMAT_ALAC_20, SF_FORMAT_ALAC_24, SF_FORMAT_ALAC_32: return "alac"
        case SF_FORMAT_MPEG_LAYER_I: return "mp1"
        case SF_FORMAT_MPEG_LAYER_II: return "mp2"
        case SF_FORMAT_MPEG_LAYER_III: return "mp3"
        default:
            var info = SF_FORMAT_INFO()
            info.format = Int32(f & SF_FORMAT_SUBMASK)
            if sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let n = info.name {
                return String(cString: n)
            }
            return "unknown"
        }
    }
}
