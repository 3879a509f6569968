import Foundation

/// libsndfile writes a PEAK chunk to float RF64 files whatever `SFC_SET_ADD_PEAK_CHUNK` says,
/// and the chunk holds the time of writing (`PEAK`, size, version, timestamp): two renders of
/// the same input would differ in those four bytes. The writer zeroes them after closing.
enum RF64PeakChunk {
    static func clearTimestamp(descriptor: Int32) {
        let size = 4096
        var header = [UInt8](repeating: 0, count: size)
        let n = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, 0) }
        guard n > 16 else { return }
        let id: [UInt8] = Array("PEAK".utf8)
        var i = 12
        while i + 16 <= n {
            if Array(header[i..<i + 4]) == id {
                var zero: UInt32 = 0
                _ = pwrite(descriptor, &zero, 4, off_t(i + 12))
                return
            }
            i += 2
        }
    }
}
