import Foundation
import TimbreDSP

/// What `timbre info` reports about a file.
public struct AudioFileInfo: Codable, Sendable {
    public var path: String
    public var format: String
    public var encoding: String
    public var sampleRate: Int
    public var channels: Int
    /// The channels' positions, e.g. `L R C LFE BL BR` (declared by the file, or the usual
    /// order for the count, as ``layoutDeclared`` says).
    public var layout: String
    /// The layout's name (`5.1`, `stereo`…), nil when it has none.
    public var layoutName: String?
    /// Whether the file declares its layout (a WAVE_FORMAT_EXTENSIBLE mask, a CAF layout).
    public var layoutDeclared: Bool
    public var frames: Int64
    public var durationSeconds: Double
    /// Sample peak over all channels, linear and in dBFS (scanned).
    public var peak: Double
    public var peakDBFS: Double?
    /// Tags (title, artist…, and the broadcast extension's fields), by `--tag` key.
    public var tags: [String: String]
    /// Frames the header announced beyond those the file holds (a truncated file), else nil.
    public var missingFrames: Int64?

    /// Opens `path` and scans it for the peak.
    public static func scan(path: String) throws(AudioFileError) -> AudioFileInfo {
        let reader = try SoundFileReader(path: path)
        let block = 8192
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: block * reader.channelCount)
        let ptrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: reader.channelCount)
        defer { storage.deallocate(); ptrs.deallocate() }
        for c in 0..<reader.channelCount { ptrs[c] = storage + c * block }
        var peak: Float = 0
        var frames: Int64 = 0
        while true {
            let n = try reader.read(into: ptrs, maxFrames: block)
            if n == 0 { break }
            frames += Int64(n)
            for c in 0..<reader.channelCount { for i in 0..<n { peak = max(peak, abs(ptrs[c][i])) } }
        }
        return AudioFileInfo(path: path, format: reader.formatName, encoding: reader.encodingName,
                             sampleRate: Int(reader.sampleRate), channels: reader.channelCount,
                             layout: reader.channelLayout.positions.map(\.rawValue).joined(separator: " "), layoutName: reader.channelLayout.name,
                             layoutDeclared: reader.declaredLayout != nil, frames: frames,
                             durationSeconds: Double(frames) / reader.sampleRate, peak: Double(peak),
                             peakDBFS: peak > 0 ? 20 * log10(Double(peak)) : nil,
                             tags: Dictionary(reader.tags.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }),
                             missingFrames: reader.missingFrames > 0 ? reader.missingFrames : nil)
    }
}
