/// The documented range and default of every preset parameter (one table, used by the
/// decoder, the docs and the JSON Schema test).
package enum ParameterRanges {
    package static let frequencyHz: ClosedRange<Double> = 20...20000
    package static let gainDB: ClosedRange<Double> = -20...20
    package static let q: ClosedRange<Double> = 0.1...20
    package static let slopes: [Int] = [12, 24, 36, 48]
    package static let gainNodeDB: ClosedRange<Double> = -96...24
    package static let volume: ClosedRange<Double> = 0...1
    package static let pan: ClosedRange<Double> = -1...1
    package static let maxEQBands = 10
    /// Output sample rates a render converts to (Hz).
    package static let sampleRate: ClosedRange<Double> = 8000...384_000
    /// Speeds with the pitch following (varispeed), as a factor of the original.
    package static let varispeed: ClosedRange<Double> = 0.25...4
    /// A `pitch` node's shift: semitones, cents, and their sum (semitones + cents / 100).
    package static let pitchSemitones: ClosedRange<Double> = -24...24
    package static let pitchCents: ClosedRange<Double> = -100...100
    /// A player's `rate` (AVAudioPlayer's range) and `loops` (−1: forever).
    package static let playerRate: ClosedRange<Double> = 0.5...2
    package static let playerLoops: ClosedRange<Double> = -1...1_000_000
    /// Filters must stay below this fraction of the sample rate.
    package static let nyquistFraction = 0.49

    package static let defaultHighPassHz = 80.0
    package static let defaultLowPassHz = 12000.0
    package static let defaultCenterHz = 1000.0
    package static let defaultQ = 0.7071067811865476
    package static let defaultEQQ = 1.0
    package static let defaultSlope = 12
    /// Parameters that are switches (JSON booleans; live `set` takes 0 or 1).
    package static let switchParameters: Set<String> = ["bypass", "mute", "solo", "autoplay", "pingPong", "swap", "invertLeft", "invertRight", "mono", "dither", "freeze", "adaptive", "invert", "pre", "followMaster"]

    /// The one wording of a range error: `NAME VALUE is out of range (allowed LO…HI UNIT)`, or
    /// nil when `value` is in `range` (NaN is out of every range).
    package static func outOfRange(_ name: String, _ value: Double, shown: String? = nil, _ range: ClosedRange<Double>, unit: String = "") -> String? {
        guard !range.contains(value) else { return nil }
        return "\(name) \(shown ?? "\(value)") is out of range (allowed \(JSONValue.number(range.lowerBound).brief)…\(JSONValue.number(range.upperBound).brief)\(unit.isEmpty ? "" : " " + unit))"
    }
}
