import CSndFile
import Foundation

/// A file's metadata as libsndfile reads and writes it: the text tags of WAV (LIST INFO),
/// AIFF, FLAC and Ogg (Vorbis comments) and MP3 (ID3), and WAV's broadcast extension (BWF
/// `bext`: description, originator, time reference…).
public struct AudioTags: Equatable, Sendable {
    /// Text tags, by key.
    public var text: [Key: String] = [:]
    /// The BWF `bext` chunk, kept whole (so fields Timbre does not name survive a copy).
    public var broadcast: BroadcastExtension?

    public init() {}

    public var isEmpty: Bool { text.isEmpty && broadcast == nil }

    /// The text tags libsndfile knows, by the names `--tag` and `timbre info` use.
    public enum Key: String, CaseIterable, Sendable, Comparable {
        case title, artist, album, date, comment, genre, tracknumber, copyright, software, license

        var libsndfileType: Int32 {
            switch self {
            case .title: Int32(SF_STR_TITLE)
            case .copyright: Int32(SF_STR_COPYRIGHT)
            case .software: Int32(SF_STR_SOFTWARE)
            case .artist: Int32(SF_STR_ARTIST)
            case .comment: Int32(SF_STR_COMMENT)
            case .date: Int32(SF_STR_DATE)
            case .album: Int32(SF_STR_ALBUM)
            case .license: Int32(SF_STR_LICENSE)
            case .tracknumber: Int32(SF_STR_TRACKNUMBER)
            case .genre: Int32(SF_STR_GENRE)
            }
        }

        public static func < (a: Key, b: Key) -> Bool { a.rawValue < b.rawValue }
    }

    /// Every tag as `key → value`, text tags then the broadcast fields (`description`,
    /// `originator`, `originator-reference`, `time-reference`), sorted by key.
    public var fields: [(key: String, value: String)] {
        var out = text.map { ($0.key.rawValue, $0.value) }
        if let b = broadcast {
            for (k, v) in [("description", b.description), ("originator", b.originator), ("originator-reference", b.originatorReference)] where !v.isEmpty {
                out.append((k, v))
            }
            if b.timeReference != 0 { out.append(("time-reference", String(b.timeReference))) }
        }
        return out.sorted { $0.0 < $1.0 }.map { (key: $0.0, value: $0.1) }
    }

    /// Sets a tag by its `--tag` name (a text key, or a broadcast field: `description`,
    /// `originator`, `originator-reference`, `time-reference` in frames). An empty value removes
    /// a text tag. Throws a message naming the allowed keys.
    public mutating func set(_ key: String, to value: String) throws(AudioTagError) {
        if let k = Key(rawValue: key.lowercased()) {
            text[k] = value.isEmpty ? nil : value
            return
        }
        var b = broadcast ?? BroadcastExtension()
        switch key.lowercased() {
        case "description": b.description = value
        case "originator": b.originator = value
        case "originator-reference": b.originatorReference = value
        case "time-reference":
            guard let frames = UInt64(value) else { throw AudioTagError("time-reference \(value) is not a frame count (a whole number ≥ 0)") }
            b.timeReference = frames
        default:
            throw AudioTagError("\(key) is not a tag Timbre writes (allowed: \((Key.allCases.map(\.rawValue) + ["description", "originator", "originator-reference", "time-reference"]).joined(separator: ", ")))")
        }
        broadcast = b
    }

    /// The tags of an open file.
    static func read(from file: OpaquePointer) -> AudioTags {
        var tags = AudioTags()
        for key in Key.allCases {
            if let s = sf_get_string(file, key.libsndfileType) {
                let value = String(cString: s).trimmingCharacters(in: .whitespacesAndNewlines)
                if !value.isEmpty { tags.text[key] = value }
            }
        }
        var info = SF_BROADCAST_INFO()
        if sf_command(file, Int32(SFC_GET_BROADCAST_INFO), &info, Int32(MemoryLayout<SF_BROADCAST_INFO>.size)) == SF_TRUE {
            tags.broadcast = BroadcastExtension(info)
        }
        return tags
    }

    /// Writes the tags to a file just opened for writing; returns the keys the container
    /// could not hold.
    func write(to file: OpaquePointer, container: SoundFileFormat) -> [String] {
        var dropped: [String] = []
        for (key, value) in text.sorted(by: { $0.key < $1.key }) where sf_set_string(file, key.libsndfileType, value) != 0 {
            dropped.append(key.rawValue)
        }
        if var info = broadcast?.info {
            if !container.holdsBroadcastExtension
                || sf_command(file, Int32(SFC_SET_BROADCAST_INFO), &info, Int32(MemoryLayout<SF_BROADCAST_INFO>.size)) != SF_TRUE {
                dropped.append("bext (broadcast extension)")
            }
        }
        return dropped
    }
}

/// A tag that cannot be set.
public struct AudioTagError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ message: String) { description = message }
}

/// WAV's broadcast extension (EBU Tech 3285 `bext`), kept as libsndfile's struct so every field
/// is carried; the ones a user edits are properties.
public struct BroadcastExtension: Equatable, Sendable {
    var info: SF_BROADCAST_INFO

    public init() {
        info = SF_BROADCAST_INFO()
        info.version = 1
    }

    init(_ info: SF_BROADCAST_INFO) { self.info = info }

    public static func == (a: BroadcastExtension, b: BroadcastExtension) -> Bool {
        withUnsafeBytes(of: a.info) { x in withUnsafeBytes(of: b.info) { y in x.elementsEqual(y) } }
    }

    public var description: String {
        get { Self.string(\.description, size: 256, in: info) }
        set { Self.set(newValue, \.description, size: 256, in: &info) }
    }
    public var originator: String {
        get { Self.string(\.originator, size: 32, in: info) }
        set { Self.set(newValue, \.originator, size: 32, in: &info) }
    }
    public var originatorReference: String {
        get { Self.string(\.originator_reference, size: 32, in: info) }
        set { Self.set(newValue, \.originator_reference, size: 32, in: &info) }
    }
    /// Samples since midnight of the first sample (BWF's time reference).
    public var timeReference: UInt64 {
        get { UInt64(info.time_reference_high) << 32 | UInt64(info.time_reference_low) }
        set { info.time_reference_high = UInt32(newValue >> 32); info.time_reference_low = UInt32(newValue & 0xFFFF_FFFF) }
    }

    private static func string<T>(_ field: WritableKeyPath<SF_BROADCAST_INFO, T>, size: Int, in info: SF_BROADCAST_INFO) -> String {
        let offset = MemoryLayout<SF_BROADCAST_INFO>.offset(of: field)!
        return withUnsafeBytes(of: info) { raw in
            let bytes = raw[offset..<offset + size]
            let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
            return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
    }

    private static func set<T>(_ value: String, _ field: WritableKeyPath<SF_BROADCAST_INFO, T>, size: Int, in info: inout SF_BROADCAST_INFO) {
        let offset = MemoryLayout<SF_BROADCAST_INFO>.offset(of: field)!
        let utf8 = Array(value.utf8.prefix(size))
        withUnsafeMutableBytes(of: &info) { raw in
            for i in 0..<size { raw[offset + i] = i < utf8.count ? utf8[i] : 0 }
        }
    }
}

extension SoundFileFormat {
    /// Containers libsndfile writes a `bext` chunk to.
    var holdsBroadcastExtension: Bool { self == .wav || self == .rf64 || self == .w64 }
}
