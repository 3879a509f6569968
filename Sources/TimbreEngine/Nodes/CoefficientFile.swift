import Foundation

/// How a file of FIR coefficients is written: text as REW and rePhase export it, raw
/// little-endian samples (CamillaDSP's names: FLOAT32LE, FLOAT64LE, S16LE, S24LE, S24LE3,
/// S32LE), or a sound file libsndfile reads.
public enum CoefficientFormat: String, CaseIterable, Sendable {
    case text
    case float32le, float64le
    /// 16-bit, 24-bit in 4 bytes (low three used), 24-bit packed in 3 bytes, 32-bit integers.
    case s16le, s24le, s24le3, s32le
    /// Any sound file libsndfile reads (WAV, FLAC, AIFF, …), at its own rate.
    case sound

    /// Bytes per raw sample (0 for text and sound files).
    var sampleBytes: Int {
        switch self {
        case .float32le, .s24le, .s32le: 4
        case .float64le: 8
        case .s16le: 2
        case .s24le3: 3
        case .text, .sound: 0
        }
    }

    /// The format a file name's extension suggests: `.txt`/`.csv`/`.dat` text, `.f32`/`.raw`/
    /// `.pcm`/`.bin` float32le, `.f64`/`.dbl` float64le; nil for any other.
    static func guess(from name: String) -> CoefficientFormat? {
        switch (name as NSString).pathExtension.lowercased() {
        case "txt", "csv", "dat", "text": .text
        case "f32", "raw", "pcm", "bin": .float32le
        case "f64", "dbl": .float64le
        default: nil
        }
    }
}

/// Reads FIR coefficients from a file's bytes: text (REW's and rePhase's exports, any
/// delimited list) or raw samples. Every error names the file, the line (text) or sample
/// (raw), and the value found.
///
/// Text: values separated by spaces, tabs, commas or semicolons, one row per line; several
/// values on a row are channels (every row the same count). Lines starting with `*`, `#`,
/// `%` or `!` are comments, as is anything after `//` on a line. REW's impulse-response
/// export (`* Impulse Response data saved by REW …`, header values like
/// `2.0833333E-5 // Sample interval (seconds)`, then `* Data start`): the taps are the rows
/// after `* Data start`, and the sample interval gives the rate.
enum CoefficientFile {
    /// The largest magnitude a coefficient may have (+60 dB), as for inline taps.
    static let largestMagnitude = 1_000.0

    /// Planar coefficients and the rate the file states (REW's sample interval), if any.
    static func parse(_ bytes: [UInt8], format: CoefficientFormat, file: String, path: String) throws(PresetError) -> (channels: [[Float]], sampleRate: Double?) {
        switch format {
        case .text: return try parseText(bytes, file: file, path: path)
        case .sound: preconditionFailure("sound files are read by the host")
        default: return ([try parseRaw(bytes, format: format, file: file, path: path)], nil)
        }
    }

    static func parseText(_ bytes: [UInt8], file: String, path: String) throws(PresetError) -> (channels: [[Float]], sampleRate: Double?) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PresetError(path: path, "\(file): not a text file (not UTF-8); give \"format\" for raw samples (\(CoefficientFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        // Any line ending ("\r\n" is one Character in Swift, so splitting on "\n" alone misses it).
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        // REW: the rows after "* Data start"; its header's sample interval is the rate.
        let dataStart = lines.firstIndex { $0.hasPrefix("*") && $0.lowercased().contains("data start") }
        var sampleRate: Double?
        if let dataStart {
            for line in lines[..<dataStart] where line.lowercased().contains("sample interval") {
                if let value = line.split(separator: "/").first.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), value > 0 {
                    sampleRate = 1 / value
                }
            }
        }
        var channels: [[Float]] = []
        for index in (dataStart.map { $0 + 1 } ?? 0)..<lines.count {
            var line = Substring(lines[index])
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || "*#%!".contains(trimmed.first!) { continue }
            let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == ";" || $0 == "\r" })
            if channels.isEmpty { channels = Array(repeating: [], count: fields.count) }
            guard fields.count == channels.count else {
                throw PresetError(path: path, "\(file) line \(index + 1): \(fields.count) values where the rows before have \(channels.count) (one column per channel)")
            }
            for (c, field) in fields.enumerated() {
                guard let value = Double(field), value.isFinite, abs(value) <= largestMagnitude else {
                    throw PresetError(path: path, "\(file) line \(index + 1): \"\(field.prefix(40))\" is not a coefficient (a finite number within ±1000)")
                }
                channels[c].append(Float(value))
            }
        }
        guard !channels.isEmpty && !channels[0].isEmpty else { throw PresetError(path: path, "\(file): no coefficients found") }
        return (channels, sampleRate)
    }

    static func parseRaw(_ bytes: [UInt8], format: CoefficientFormat, file: String, path: String) throws(PresetError) -> [Float] {
        let size = format.sampleBytes
        guard !bytes.isEmpty else { throw PresetError(path: path, "\(file): the file is empty") }
        guard bytes.count % size == 0 else {
            throw PresetError(path: path, "\(file): \(bytes.count) bytes is not a whole number of \(size)-byte \(format.rawValue) samples")
        }
        var taps = [Float](repeating: 0, count: bytes.count / size)
        for k in 0..<taps.count {
            let o = k * size
            func u(_ i: Int) -> UInt32 { UInt32(bytes[o + i]) }
            let value: Double
            switch format {
            case .float32le: value = Double(Float(bitPattern: u(0) | u(1) << 8 | u(2) << 16 | u(3) << 24))
            case .float64le:
                var bits: UInt64 = 0
                for i in 0..<8 { bits |= UInt64(bytes[o + i]) << (8 * i) }
                value = Double(bitPattern: bits)
            case .s16le: value = Double(Int16(bitPattern: UInt16(u(0) | u(1) << 8))) / 32_768
            case .s24le, .s24le3: value = Double(Int32(bitPattern: (u(0) << 8 | u(1) << 16 | u(2) << 24)) >> 8) / 8_388_608
            case .s32le: value = Double(Int32(bitPattern: u(0) | u(1) << 8 | u(2) << 16 | u(3) << 24)) / 2_147_483_648
            case .text, .sound: preconditionFailure()
            }
            guard value.isFinite, abs(value) <= largestMagnitude else {
                throw PresetError(path: path, "\(file) sample \(k) (byte \(o)): \(value) is not a coefficient (a finite number within ±1000)")
            }
            taps[k] = Float(value)
        }
        return taps
    }
}
