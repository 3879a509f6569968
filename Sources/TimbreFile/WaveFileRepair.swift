import Foundation

/// Finds and fixes the size fields of a WAV, RF64 or W64 file that a recorder left stale: a
/// data size of 0 (or 0xFFFFFFFF) as written at the start of a take, one that stops short of
/// the audio on disk, or one that runs past the end of the file.
///
/// The chunk walk follows the containers' specifications (RIFF/WAVE: Microsoft and IBM,
/// "Multimedia Programming Interface and Data Specifications 1.0", 1991; RF64: EBU Tech 3306;
/// Sony Wave64: 16-byte GUIDs and 64-bit sizes that include the chunk's 24-byte header, chunks
/// aligned to 8 bytes). The audio kept is every whole frame from the start of the data chunk
/// to the end of the file (or to the next chunk, when a valid one follows the declared data):
/// a partial last frame is left out. Reading writes nothing; ``repairedHeader()`` gives the
/// fixed header and ``write(to:)`` writes the repaired file.
public struct WaveFileRepair: Sendable {
    public enum Container: String, Sendable { case wav = "WAV", rf64 = "RF64", w64 = "W64" }

    public let path: String
    public let container: Container
    public let fileBytes: Int64
    public let channels: Int
    public let sampleRate: Int
    public let bitsPerSample: Int
    public let blockAlign: Int
    /// Where the audio starts, bytes from the start of the file.
    public let dataOffset: Int64
    /// The data size the header declares (for RF64 the ds64 value).
    public let declaredDataBytes: Int64
    /// The data size found: whole frames on disk.
    public let dataBytes: Int64
    /// Bytes of a partial last frame left out.
    public let partialFrameBytes: Int64
    /// Bytes after the data that belong to chunks kept as they are (a cue or LIST chunk).
    public let trailingBytes: Int64

    public var frames: Int64 { dataBytes / Int64(blockAlign) }
    public var declaredFrames: Int64 { declaredDataBytes / Int64(blockAlign) }
    /// True when the declared sizes are already right.
    public var isIntact: Bool { declaredDataBytes == dataBytes && riffSizeIsRight }
    let riffSizeIsRight: Bool
    let header: [UInt8]
    /// Offsets in `header` of the fields to rewrite.
    let dataSizeField: Int
    let riffSizeField: Int
    let ds64Field: Int?

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ path: String, _ text: String) { description = "\(path): \(text)" }
    }

    /// Reads `path`'s header (at most the first 1 MiB) and its length.
    public init(path: String) throws(Failure) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(path, "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let length = (try? handle.seekToEnd()).map { Int64($0) } ?? 0
        try? handle.seek(toOffset: 0)
        let head = [UInt8]((try? handle.read(upToCount: 1 << 20)) ?? Data())
        fileBytes = length
        func u32(_ o: Int) -> Int64 { o + 4 <= head.count ? Int64(head[o]) | Int64(head[o + 1]) << 8 | Int64(head[o + 2]) << 16 | Int64(head[o + 3]) << 24 : -1 }
        func u64(_ o: Int) -> Int64 { o + 8 <= head.count ? u32(o) | u32(o + 4) << 32 : -1 }
        func u16(_ o: Int) -> Int { o + 2 <= head.count ? Int(head[o]) | Int(head[o + 1]) << 8 : -1 }
        func tag(_ o: Int) -> String { o + 4 <= head.count ? String(decoding: head[o..<(o + 4)], as: UTF8.self) : "" }
        guard head.count >= 12 else { throw Failure(path, "too short for a WAV, RF64 or W64 header (\(head.count) bytes)") }
        let w64Riff: [UInt8] = [0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00]
        var fmtAt = -1, dataAt = -1, dataSizeAt = -1, riffSizeAt = 4, ds64At: Int? = nil
        var declared: Int64 = 0, headerEnd = 0, riffDeclared: Int64 = 0
        if (tag(0) == "RIFF" || tag(0) == "RF64") && tag(8) == "WAVE" {
            container = tag(0) == "RIFF" ? .wav : .rf64
            riffDeclared = u32(4)
            var o = 12
            while o + 8 <= head.count {
                let id = tag(o), size = u32(o + 4)
                if id == "fmt " { fmtAt = o + 8 }
                if id == "ds64" { ds64At = o + 8 }
                if id == "data" { dataAt = o + 8; dataSizeAt = o + 4; declared = size; break }
                guard size >= 0 else { break }
                o += 8 + Int(size) + Int(size & 1)
            }
            if container == .rf64, let d = ds64At {
                riffDeclared = u64(d)
                declared = u64(d + 8)
            }
            headerEnd = dataAt
        } else if head.count >= 40 && Array(head[0..<16]) == w64Riff {
            container = .w64
            riffSizeAt = 16
            riffDeclared = u64(16)
            let fmtGUID: [UInt8] = [0x66, 0x6D, 0x74, 0x20, 0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A]
            let dataGUID: [UInt8] = [0x64, 0x61, 0x74, 0x61, 0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A]
            var o = 40
            while o + 24 <= head.count {
                let guid = Array(head[o..<(o + 16)]), size = u64(o + 16)
                if guid == fmtGUID { fmtAt = o + 24 }
                if guid == dataGUID { dataAt = o + 24; dataSizeAt = o + 16; declared = size - 24; break }
                guard size >= 24 else { break }
                o += Int((size + 7) & ~7)
            }
            headerEnd = dataAt
        } else {
            throw Failure(path, "not a WAV, RF64 or W64 file (it starts with \(head.prefix(4).map { String(format: "%02x", $0) }.joined()))")
        }
        guard fmtAt >= 0, u16(fmtAt) >= 0, u16(fmtAt + 14) > 0 else { throw Failure(path, "no format chunk before the audio") }
        guard dataAt >= 0 else { throw Failure(path, "no data chunk in the first MiB") }
        channels = u16(fmtAt + 2); sampleRate = Int(u32(fmtAt + 4)); blockAlign = u16(fmtAt + 12); bitsPerSample = u16(fmtAt + 14)
        guard channels > 0, blockAlign > 0 else { throw Failure(path, "the format chunk gives \(channels) channels, \(blockAlign) bytes a frame") }
        dataOffset = Int64(dataAt)
        declaredDataBytes = declared
        let onDisk = max(0, length - Int64(dataAt))
        // The declared data is believed when it fits the file and a valid chunk (or the end)
        // follows it; else every whole frame to the end of the file is the audio.
        var trailing: Int64 = 0
        var kept = onDisk
        if declared > 0 && declared != 0xFFFF_FFFF && declared <= onDisk {
            let after = Int64(dataAt) + declared + (container == .w64 ? (8 - (declared + 24) % 8) % 8 : declared & 1)
            if after >= length || Self.chunkFollows(path: path, at: after, fileBytes: length, w64: container == .w64) {
                kept = declared
                trailing = max(0, length - after)
            }
        }
        let whole = kept / Int64(blockAlign) * Int64(blockAlign)
        dataBytes = whole
        partialFrameBytes = trailing == 0 ? kept - whole : 0
        trailingBytes = trailing
        header = Array(head[0..<headerEnd])
        dataSizeField = dataSizeAt; riffSizeField = riffSizeAt; ds64Field = ds64At
        let pad: Int64 = container == .w64 ? (8 - (whole + 24) % 8) % 8 : whole & 1
        let rightRiff = Int64(headerEnd) + whole + (trailing > 0 ? pad + trailing : 0) - (container == .w64 ? 0 : 8)
        riffSizeIsRight = riffDeclared == rightRiff
    }

    /// True when bytes at `offset` look like a chunk header that fits the file.
    static func chunkFollows(path: String, at offset: Int64, fileBytes: Int64, w64: Bool) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        guard (try? h.seek(toOffset: UInt64(offset))) != nil, let d = try? h.read(upToCount: 24), d.count >= (w64 ? 24 : 8) else { return false }
        let b = [UInt8](d)
        if w64 {
            var size: Int64 = 0
            for k in 0..<8 { size |= Int64(b[16 + k]) << (8 * k) }
            return size >= 24 && offset + size <= fileBytes
        }
        let printable = b[0..<4].allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        let size = Int64(b[4]) | Int64(b[5]) << 8 | Int64(b[6]) << 16 | Int64(b[7]) << 24
        return printable && offset + 8 + size <= fileBytes
    }

    /// The header with its size fields set to what was found.
    public func repairedHeader() -> [UInt8] {
        var h = header
        func put32(_ o: Int, _ v: Int64) { for k in 0..<4 { h[o + k] = UInt8((v >> (8 * Int64(k))) & 0xFF) } }
        func put64(_ o: Int, _ v: Int64) { for k in 0..<8 { h[o + k] = UInt8((v >> (8 * Int64(k))) & 0xFF) } }
        let pad: Int64 = container == .w64 ? (8 - (dataBytes + 24) % 8) % 8 : dataBytes & 1
        let total = Int64(h.count) + dataBytes + (trailingBytes > 0 ? pad + trailingBytes : 0)
        switch container {
        case .wav:
            put32(riffSizeField, total - 8)
            put32(dataSizeField, dataBytes)
        case .rf64:
            put32(riffSizeField, 0xFFFF_FFFF)
            put32(dataSizeField, 0xFFFF_FFFF)
            if let d = ds64Field {
                put64(d, total - 8); put64(d + 8, dataBytes); put64(d + 16, frames)
            }
        case .w64:
            put64(riffSizeField, total)
            put64(dataSizeField, dataBytes + 24)
        }
        return h
    }

    /// Writes the repaired file to `output` (the header, every whole frame, the chunks that
    /// followed a valid data chunk, and the pad byte a RIFF chunk of odd size needs).
    public func write(to output: Int32) throws(Failure) {
        let h = repairedHeader()
        let written = h.withUnsafeBytes { CheckedFileIO.writeAll(output, $0.baseAddress!, $0.count) }
        if let e = written.error { throw Failure(path, "write failed: \(String(cString: strerror(e)))") }
        guard let input = FileHandle(forReadingAtPath: path) else { throw Failure(path, "cannot open: \(String(cString: strerror(errno)))") }
        defer { try? input.close() }
        do { try input.seek(toOffset: UInt64(dataOffset)) } catch { throw Failure(path, "seek failed: \(error)") }
        func copy(_ count: Int64) throws(Failure) {
            var left = count
            while left > 0 {
                let chunk: Data
                do { chunk = try input.read(upToCount: Int(min(left, 1 << 20))) ?? Data() } catch { throw Failure(path, "read failed: \(error)") }
                guard !chunk.isEmpty else { throw Failure(path, "the file ended early") }
                let r = chunk.withUnsafeBytes { CheckedFileIO.writeAll(output, $0.baseAddress!, $0.count) }
                if let e = r.error { throw Failure(path, "write failed: \(String(cString: strerror(e)))") }
                left -= Int64(chunk.count)
            }
        }
        try copy(dataBytes)
        let pad: Int64 = container == .w64 ? (8 - (dataBytes + 24) % 8) % 8 : dataBytes & 1
        if pad > 0 {
            let zeros = [UInt8](repeating: 0, count: Int(pad))
            let r = zeros.withUnsafeBytes { CheckedFileIO.writeAll(output, $0.baseAddress!, $0.count) }
            if let e = r.error { throw Failure(path, "write failed: \(String(cString: strerror(e)))") }
        }
        if trailingBytes > 0 {
            let oldPad: Int64 = container == .w64 ? (8 - (declaredDataBytes + 24) % 8) % 8 : declaredDataBytes & 1
            do { try input.seek(toOffset: UInt64(dataOffset + declaredDataBytes + oldPad)) } catch { throw Failure(path, "seek failed: \(error)") }
            try copy(trailingBytes)
        }
    }

    /// One line for people: what the header said and what is on disk.
    public var report: String {
        let seconds = sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0
        var text = "\(path): \(container.rawValue), \(channels) ch, \(bitsPerSample)-bit, \(sampleRate) Hz; "
        if isIntact {
            text += "sizes are right: \(frames) frames (\(String(format: "%.3f", seconds)) s)"
        } else {
            let said = declaredDataBytes == 0 ? "0 bytes" : declaredDataBytes == 0xFFFF_FFFF ? "0xFFFFFFFF" : "\(declaredDataBytes) bytes (\(declaredFrames) frames)"
            text += "the header says \(said) of audio, the file holds \(dataBytes) bytes: \(frames) whole frames (\(String(format: "%.3f", seconds)) s)"
            if partialFrameBytes > 0 { text += ", and \(partialFrameBytes) bytes of a partial frame left out" }
        }
        return text
    }
}

extension WaveFileRepair {
    /// Fixes the file itself through `descriptor` (open for writing): the repaired header over
    /// the old one (the same length), and the partial last frame cut off. For a recorder
    /// finishing a take on a full disk, where a copy would not fit; `nil` when it worked.
    public func patchInPlace(descriptor: Int32) -> String? {
        let h = repairedHeader()
        let wrote = h.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, 0) }
        guard wrote == h.count else { return String(cString: strerror(errno)) }
        if trailingBytes == 0 {
            let pad: Int64 = container == .w64 ? (8 - (dataBytes + 24) % 8) % 8 : dataBytes & 1
            let end = dataOffset + dataBytes + pad
            if end <= fileBytes && ftruncate(descriptor, off_t(end)) != 0 { return String(cString: strerror(errno)) }
        }
        return nil
    }
}
