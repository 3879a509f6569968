import CSndFile
import Foundation

/// Cue points of a WAV or RF64 file (a take's markers and xruns), as libsndfile reads them.
public enum TakeCues {
    /// (frame, label) of every cue point; empty when the file has none or cannot be read.
    public static func read(path: String) -> [(frame: Int64, label: String)] {
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else { return [] }
        defer { sf_close(f) }
        var count: UInt32 = 0
        guard sf_command(f, Int32(SFC_GET_CUE_COUNT), &count, Int32(MemoryLayout<UInt32>.size)) == SF_TRUE, count > 0 else { return [] }
        let stride = MemoryLayout<SF_CUE_POINT>.stride
        let offset = max(4, MemoryLayout<SF_CUE_POINT>.alignment)
        let bytes = offset + Int(count) * stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        guard sf_command(f, Int32(SFC_GET_CUE), raw, Int32(bytes)) == SF_TRUE else { return [] }
        let n = Int(raw.load(as: UInt32.self))
        return (0..<min(n, Int(count))).map { k in
            var point = (raw + offset + k * stride).load(as: SF_CUE_POINT.self)
            let label = withUnsafeBytes(of: &point.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return (Int64(point.sample_offset), label)
        }
    }
}
