import Foundation
import TimbreDSP

/// Files that hold an impulse response or FIR coefficients, as a `fir` or `convolver` node
/// names them: `"file": "room.wav"` (its channels), or one file per channel
/// (`"file": ["left.txt", "right.txt"]`), read by the host (``HostServices/files``).
public struct ResponseFile: Sendable, Equatable {
    /// One file, or one per channel. Relative names are found in the preset's folder.
    public var names: [String]
    /// How the files are written (nil: a sound file by its header, else by extension).
    public var format: CoefficientFormat?
    /// The rate text or raw coefficients were designed at (nil: the file's own — REW states
    /// it — else the session's). Sound files carry their rate.
    public var sampleRate: Double?

    public init(names: [String], format: CoefficientFormat? = nil, sampleRate: Double? = nil) {
        self.names = names; self.format = format; self.sampleRate = sampleRate
    }
}

extension ResponseFile {
    /// The rates a file's coefficients may be stated at.
    static let sampleRates = 8_000.0...768_000.0

    /// The `sampleRate` key's spec, in the schema entry `definition`.
    static func sampleRateSpec(in definition: String) -> ParameterSpec {
        ParameterSpec("sampleRate", unit: "Hz", range: sampleRates, scale: .logarithmic, in: [definition])
    }

    /// Reads `file`, `format` and `sampleRate` from a node's keys; nil without `file`.
    static func decode(_ o: inout ObjectReader) throws(PresetError) -> ResponseFile? {
        guard let field = try o.optional("file") else { return nil }
        var names: [String]
        if case .array(let list) = field.value {
            guard !list.isEmpty else { throw PresetError(path: field.path, "expected a file name, or one per channel") }
            names = []
            for (k, v) in list.enumerated() { names.append(try Field(value: v, path: "\(field.path)[\(k)]").string()) }
        } else {
            names = [try field.string()]
        }
        if let empty = names.firstIndex(where: \.isEmpty) { throw PresetError(path: names.count > 1 ? "\(field.path)[\(empty)]" : field.path, "the file name is empty") }
        let format = try o.optional("format")?.oneOf(CoefficientFormat.self)
        let rate = try o.optional("sampleRate")?.number(in: sampleRates, unit: "Hz")
        return ResponseFile(names: names, format: format, sampleRate: rate)
    }

    /// The keys ``decode(_:)`` reads.
    var encoded: [String: JSONValue] {
        var o: [String: JSONValue] = ["file": names.count == 1 ? .string(names[0]) : .array(names.map { .string($0) })]
        if let format { o["format"] = .string(format.rawValue) }
        if let sampleRate { o["sampleRate"] = .number(sampleRate) }
        return o
    }

    /// The schema of the keys ``decode(_:)`` reads that are not numbers (`sampleRate` is a
    /// ``ParameterSpec``: ``sampleRateSpec(in:)``).
    static var schemaKeys: [(String, JSONValue)] {
        let name: JSONValue = .object(["type": .string("string"), "minLength": .number(1)])
        return [
            ("file", .object(["oneOf": .array([name, .object(["type": .string("array"), "minItems": .number(1), "items": name])])])),
            ("format", .object(["enum": .array(CoefficientFormat.allCases.map { .string($0.rawValue) })])),
        ]
    }

    /// The responses, one per channel of the files in order, at `sampleRate`: read by the
    /// host's reader, parsed, and resampled (Timbre's resampler, scaled by the rate ratio so
    /// the frequency response keeps its level) where the files' rate differs. Errors at `path`.
    func load(sampleRate: Double, reader: NodeFileReader?, path: String, maximumTaps: Int) throws(PresetError) -> [[Float]] {
        guard let reader else { throw PresetError(path: path, NodeFileReader.missing) }
        var responses: [[Float]] = []
        for (k, name) in names.enumerated() {
            let at = names.count > 1 ? "\(path)[\(k)]" : path
            let kind = format ?? (reader.isSoundFile(name) ? .sound : CoefficientFormat.guess(from: name))
            guard let kind else {
                _ = try reader.bytes(name, at)  // a missing or unreadable file says so first
                throw PresetError(path: at, "\(name): not a sound file, and its extension names no coefficient format; give \"format\" (\(CoefficientFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            var channels: [[Float]], rate: Double?
            if kind == .sound {
                if self.sampleRate != nil {
                    throw PresetError(path: at, "\(name) is a sound file, which states its own rate: sampleRate is for text or raw coefficients")
                }
                let read = try reader.sound(name, at)
                channels = read.channels; rate = read.sampleRate
                if let c = channels.firstIndex(where: { $0.contains { !$0.isFinite } }) {
                    throw PresetError(path: at, "\(name): channel \(c + 1) holds a value that is not finite")
                }
            } else {
                (channels, rate) = try CoefficientFile.parse(try reader.bytes(name, at), format: kind, file: name, path: at)
            }
            guard !channels.isEmpty, !channels[0].isEmpty else { throw PresetError(path: at, "\(name): the file holds no samples") }
            if let from = self.sampleRate ?? rate, abs(from - sampleRate) > 0.01 {
                channels = try Self.resample(channels, from: from, to: sampleRate, file: name, path: at)
            }
            if let n = channels.first?.count, n > maximumTaps {
                throw PresetError(path: at, "\(name): \(n) taps at \(JSONValue.number(sampleRate).brief) Hz is too many (allowed up to \(maximumTaps))")
            }
            responses += channels
        }
        return responses
    }

    /// `channels` at rate `from` as the same filter at `to`: resampled, and scaled by from / to
    /// (a response sampled more densely sums more taps for the same gain).
    static func resample(_ channels: [[Float]], from: Double, to: Double, file: String, path: String) throws(PresetError) -> [[Float]] {
        let a = Int(from.rounded()), b = Int(to.rounded())
        // Zeros after the last tap keep the converter's ringing past it (the tail of the
        // band-limited response); what it gives back below −180 dB at the end is dropped again.
        let padded = channels.map { $0 + [Float](repeating: 0, count: 256) }
        guard abs(Double(a) - from) < 0.01, abs(Double(b) - to) < 0.01,
              var converted = Resampler.convert(padded, ratio: RationalRatio(inputRate: a, outputRate: b), quality: .high) else {
            throw PresetError(path: path, "\(file): cannot resample from \(JSONValue.number(from).brief) Hz to \(JSONValue.number(to).brief) Hz")
        }
        // Trailing samples below −180 dB of the peak go: a fixed relative floor, not "not zero",
        // so a process that flushes denormals to zero (a live host sets FTZ/DAZ) keeps exactly
        // the taps another keeps (a different length would mean another partition layout).
        let peak = converted.map { $0.reduce(0) { max($0, abs($1)) } }.max() ?? 0
        let last = converted.map { $0.lastIndex { abs($0) > peak * 1e-9 } ?? 0 }.max() ?? 0
        converted = converted.map { Array($0.prefix(last + 1)) }
        let scale = Float(from / to)
        return converted.map { $0.map { $0 * scale } }
    }
}
