import Foundation
import TimbreDSP

/// How `render` combines several input files.
public enum InputCombination: String, Sendable, CaseIterable {
    /// One after another (A's frames, then B's), like an AVMutableComposition.
    case concat
    /// Side by side, each a channel of a graph summed on the master bus.
    case mix
}

/// A position in the input timeline: seconds, or an exact frame (`frames:N`).
public enum TimePosition: Sendable, Equatable, CustomStringConvertible {
    case seconds(Double)
    case frames(Int64)

    /// Parses a time as people write it: seconds (`90`, `12.5`, `90s`, `250ms`), minutes and
    /// seconds (`1:30`, `1:30.5`), hours, minutes and seconds (`00:01:30.250`), or an exact
    /// frame (`frames:44100`). nil for anything else (negative, not finite, minutes or seconds
    /// fields of 60 or more after the first field).
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("frames:") {
            guard let n = Int64(t.dropFirst(7)), n >= 0 else { return nil }
            self = .frames(n)
            return
        }
        func decimal(_ s: Substring) -> Double? {
            guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), s.filter({ $0 == "." }).count <= 1,
                  let v = Double(s), v.isFinite else { return nil }
            return v
        }
        var body = Substring(t)
        var scale = 1.0
        if body.hasSuffix("ms") { body = body.dropLast(2); scale = 0.001 } else if body.hasSuffix("s") { body = body.dropLast() }
        let fields = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), scale == 1 || fields.count == 1 else { return nil }
        var seconds = 0.0
        for (i, field) in fields.enumerated() {
            guard let v = decimal(field) else { return nil }
            let last = i == fields.count - 1
            if i > 0 && v >= 60 { return nil }
            if !last && v != v.rounded() { return nil }
            seconds = seconds * 60 + v
        }
        self = .seconds(seconds * scale)
    }

    /// The frame at `sampleRate` (seconds rounded to the nearest frame).
    public func frame(at sampleRate: Double) -> Int64 {
        switch self {
        case .seconds(let s): Int64((s * sampleRate).rounded())
        case .frames(let n): n
        }
    }

    public var description: String {
        switch self {
        case .seconds(let s): "\(s) s"
        case .frames(let n): "frames:\(n)"
        }
    }
}

extension RenderRequest {
    /// The input timeline: the file, or the files concatenated or side by side (each converted
    /// to the first file's rate with the high-quality resampler; for `concat`, mono files
    /// upmixed to the widest file's channels), then trimmed to `start ..< end`.
    func timeline(_ readers: [SoundFileReader]) throws(RenderError) -> TimelineSource {
        let rate = Int(readers[0].sampleRate)
        let widest = readers.map(\.channelCount).max() ?? 1
        var parts: [FrameSource] = []
        for reader in readers {
            var part: FrameSource = FileFrameSource(reader: reader)
            if Int(reader.sampleRate) != rate {
                guard let stage = ResamplingStage(upstream: part, ratio: RationalRatio(inputRate: Int(reader.sampleRate), outputRate: rate),
                                                  quality: .high, maximumFrames: ioFrames) else {
                    throw .request(.sampleRate, "\(reader.path): converting \(Int(reader.sampleRate)) Hz to the first file's \(rate) Hz needs a filter table larger than \(PolyphaseFilterBank.maximumCoefficients) coefficients")
                }
                part = stage
            }
            if combination == .concat && reader.channelCount != widest {
                guard reader.channelCount == 1 else {
                    throw .request(.combination, "\(reader.path) has \(reader.channelCount) channels and another file \(widest): concatenation joins files of the same channel count, or mono files with wider ones")
                }
                part = UpmixStage(upstream: part, channelCount: widest)
            }
            parts.append(part)
        }
        var combined: TimelineSource
        switch combination {
        case nil: combined = parts[0] as? TimelineSource ?? ConcatenatedSource(parts)
        case .concat: combined = ConcatenatedSource(parts)
        case .mix: combined = SideBySideSource(parts)
        }
        guard let (first, last) = try trimFrames(rate: Double(rate), total: combined.expectedFrames) else { return combined }
        do { return try TrimStage(upstream: combined, start: first, end: last, maximumFrames: ioFrames) } catch { throw .file(error) }
    }

    /// `--start`/`--end` as frames at `rate`, checked (end after start; start before `total`
    /// when it is known); nil without a trim.
    func trimFrames(rate: Double, total: Int64) throws(RenderError) -> (first: Int64, end: Int64?)? {
        guard start != nil || end != nil else { return nil }
        let first = start?.frame(at: rate) ?? 0
        let last = end?.frame(at: rate)
        if let last, last <= first {
            throw .request(.end, "end \(end!) is not after start \(start ?? .frames(0)): nothing to render")
        }
        if total > 0 && first >= total {
            throw .request(.start, "start \(start!) is at or past the end of the input (\(total) frames, \(String(format: "%.3f", Double(total) / rate)) s at \(Int(rate)) Hz)")
        }
        return (first, last)
    }
}
