import Foundation

/// Appends a `cue ` chunk and its labels (`LIST`/`adtl`/`labl`) to a closed WAV or RF64 file
/// and corrects its RIFF size (RF64: the ds64 chunk's).
///
/// libsndfile takes cue points (`SFC_SET_CUE`) only before the first sample is written, and a
/// take's markers come while it is written; so they are added when it is closed. Layout after
/// the RIFF specification (Microsoft/IBM, 1991): per point ID, position, `data`, chunk start 0,
/// block start 0, sample offset (the frame); each label the point's ID and NUL-terminated text,
/// chunks padded to even sizes.
enum RIFFCueChunk {
    static func append(_ cues: [(frame: Int64, label: String)], descriptor fd: Int32) -> String? {
        var body: [UInt8] = []
        func u32(_ v: UInt32, into b: inout [UInt8]) { for k in 0..<4 { b.append(UInt8((v >> (8 * UInt32(k))) & 0xFF)) } }
        func tag(_ t: String, into b: inout [UInt8]) { b += Array(t.utf8) }
        var cue: [UInt8] = []
        tag("cue ", into: &cue); u32(UInt32(4 + 24 * cues.count), into: &cue); u32(UInt32(cues.count), into: &cue)
        for (k, c) in cues.enumerated() {
            let frame = UInt32(truncatingIfNeeded: c.frame)
            u32(UInt32(k + 1), into: &cue); u32(frame, into: &cue); tag("data", into: &cue); u32(0, into: &cue); u32(0, into: &cue); u32(frame, into: &cue)
        }
        var adtl: [UInt8] = []
        tag("adtl", into: &adtl)
        for (k, c) in cues.enumerated() {
            let text = Array(c.label.utf8.prefix(255)) + [0]
            tag("labl", into: &adtl); u32(UInt32(4 + text.count), into: &adtl); u32(UInt32(k + 1), into: &adtl)
            adtl += text
            if text.count % 2 == 1 { adtl.append(0) }
        }
        var list: [UInt8] = []
        tag("LIST", into: &list); u32(UInt32(adtl.count), into: &list); list += adtl
        body = cue + list
        // Where the file ends (with the data chunk's pad byte when it is odd).
        var st = stat()
        guard fstat(fd, &st) == 0 else { return String(cString: strerror(errno)) }
        var end = Int64(st.st_size)
        var head = [UInt8](repeating: 0, count: 80)
        guard pread(fd, &head, 80, 0) == 80 else { return "cannot read the header" }
        let isRF64 = head[0..<4].elementsEqual("RF64".utf8)
        if end % 2 == 1 { body.insert(0, at: 0) }
        let wrote = body.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(end)) }
        guard wrote == body.count else { return String(cString: strerror(errno)) }
        end += Int64(body.count)
        if isRF64 {
            // ds64 follows "RF64" size "WAVE": its first field is the RIFF size.
            guard head[12..<16].elementsEqual("ds64".utf8) else { return "no ds64 chunk" }
            var size = UInt64(end - 8)
            let r = withUnsafeBytes(of: &size) { pwrite(fd, $0.baseAddress!, 8, 20) }
            guard r == 8 else { return String(cString: strerror(errno)) }
        } else {
            var size = UInt32(truncatingIfNeeded: end - 8).littleEndian
            let r = withUnsafeBytes(of: &size) { pwrite(fd, $0.baseAddress!, 4, 4) }
            guard r == 4 else { return String(cString: strerror(errno)) }
        }
        return nil
    }
}
