import Foundation

/// AutoEQ's and EqualizerAPO's GraphicEQ line (`GraphicEQ: 20 -3.1; 21 -3.0; …; 19871 -8.2`):
/// gains in dB at frequencies in Hz, which a `fir` node turns into a filter
/// (TimbreDSP's `MagnitudeFIRDesign`). Between the points the gain is interpolated linearly in dB over
/// log frequency, as EqualizerAPO does; below the first and above the last it holds the end
/// values.
public struct GraphicEQCurve: Sendable, Equatable {
    /// (frequency in Hz, gain in dB), frequencies rising.
    public let points: [(hz: Double, gainDB: Double)]

    public static func == (a: GraphicEQCurve, b: GraphicEQCurve) -> Bool {
        a.points.count == b.points.count && zip(a.points, b.points).allSatisfy { $0.hz == $1.hz && $0.gainDB == $1.gainDB }
    }

    /// The gains a point may have (a fir node's own gain range is separate).
    static let gains = -60.0...30.0

    /// Reads `text` (the line, with or without its `GraphicEQ:` prefix); errors name `source`
    /// and the point.
    public init(_ text: String, source: String, path: String) throws(PresetError) {
        var body = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if body.lowercased().hasPrefix("graphiceq:") { body = body.dropFirst("graphiceq:".count) }
        var points: [(hz: Double, gainDB: Double)] = []
        for (k, pair) in body.split(separator: ";").enumerated() {
            let words = pair.split(whereSeparator: { $0 == " " || $0 == "\t" || $0.isNewline })
            guard words.count == 2, let hz = Double(words[0]), let db = Double(words[1]), hz.isFinite, hz > 0, db.isFinite, Self.gains.contains(db) else {
                throw PresetError(path: path, "\(source): point \(k + 1) \"\(pair.trimmingCharacters(in: .whitespaces).prefix(40))\" is not \"frequency gain\" (Hz > 0, dB within -60…30)")
            }
            if let last = points.last, hz <= last.hz {
                throw PresetError(path: path, "\(source): point \(k + 1) at \(JSONValue.number(hz).brief) Hz is not above the one before (\(JSONValue.number(last.hz).brief) Hz)")
            }
            points.append((hz, db))
        }
        guard !points.isEmpty else { throw PresetError(path: path, "\(source): no points (expected \"GraphicEQ: 20 -3.1; 21 -3.0; …\")") }
        self.points = points
    }

    /// Whether `text` starts as a GraphicEQ line.
    static func looksLikeOne(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased().hasPrefix("graphiceq:")
    }

    /// The gain in dB at `hz`.
    public func gainDB(at hz: Double) -> Double {
        guard hz > points[0].hz else { return points[0].gainDB }
        guard hz < points[points.count - 1].hz else { return points[points.count - 1].gainDB }
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 { let mid = (lo + hi) / 2; if points[mid].hz <= hz { lo = mid } else { hi = mid } }
        let a = points[lo], b = points[hi]
        let t = log(hz / a.hz) / log(b.hz / a.hz)
        return a.gainDB + t * (b.gainDB - a.gainDB)
    }

    /// The line as AutoEQ writes it.
    var text: String { "GraphicEQ: " + points.map { "\(JSONValue.number($0.hz).brief) \(JSONValue.number($0.gainDB).brief)" }.joined(separator: "; ") }
}
