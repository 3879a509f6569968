import Foundation

/// libsndfile writes a WAVE_FORMAT_EXTENSIBLE file's channel mask from the channel map, and
/// when no position is known falls back on a mask for the channel count (0x3F, 5.1, for six
/// channels). Discrete channels (a crossover's bands) have no positions, so the writer sets
/// the mask to 0 ("not assigned", as Microsoft's WAVEFORMATEXTENSIBLE allows) after closing.
enum WaveChannelMask {
    /// Zeroes `dwChannelMask` in the `fmt ` chunk of a RIFF/RF64 file when its format tag is
    /// WAVE_FORMAT_EXTENSIBLE (0xFFFE). Returns false when the header could not be read or written.
    @discardableResult
    static func clear(descriptor: Int32) -> Bool {
        let size = 4096
        var header = [UInt8](repeating: 0, count: size)
        let n = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, 0) }
        guard n >= 12 else { return false }
        func u32(_ i: Int) -> Int { Int(header[i]) | Int(header[i + 1]) << 8 | Int(header[i + 2]) << 16 | Int(header[i + 3]) << 24 }
        // Chunks from offset 12 (after RIFF/RF64, size, WAVE), each id, size, data (even-padded).
        var i = 12
        while i + 8 <= n {
            let id = String(decoding: header[i..<i + 4], as: UTF8.self), length = u32(i + 4)
            if id == "fmt " {
                guard i + 8 + 24 <= n, header[i + 8] == 0xFE, header[i + 9] == 0xFF else { return false }
                var zero: UInt32 = 0
                return pwrite(descriptor, &zero, 4, off_t(i + 8 + 20)) == 4
            }
            i += 8 + length + (length & 1)
        }
        return false
    }
}
