/// The documented range and default of every preset parameter (one table, used by the
/// decoder, the docs and the JSON Schema test).
public enum ParameterRanges {
    public static let frequencyHz: ClosedRange<Double> = 20...20000
    public static let gainDB: ClosedRange<Double> = -20...20
    public static let q: ClosedRange<Double> = 0.1...20
    public static let slopes: [Int] = [12, 24, 36, 48]
    public static let gainNodeDB: ClosedRange<Double> = -96...24
    public static let volume: ClosedRange<Double> = 0...1
    public static let pan: ClosedRange<Double> = -1...1
    public static let maxEQBands = 10
    /// Output sample rates a render converts to (Hz).
    public static let sampleRate: ClosedRange<Double> = 8000...384_000
    /// Speeds with the pitch following (varispeed), as a factor of the original.
    public static let varispeed: ClosedRange<Double> = 0.25...4
    /// A `pitch` node's shift: semitones, cents, and their sum (semitones + cents / 100).
    public static let pitchSemitones: ClosedRange<Double> = -24...24
    public static let pitchCents: ClosedRange<Double> = -100...100
    /// A player's `rate` (AVAudioPlayer's range) and `loops` (−1: forever).
    public static let playerRate: ClosedRange<Double> = 0.5...2
    public static let playerLoops: ClosedRange<Double> = -1...1_000_000
    /// Filters must stay below this fraction of the sample rate.
    public static let nyquistFraction = 0.49

    public static let defaultHighPassHz = 80.0
    public static let defaultLowPassHz = 12000.0
    public static let defaultCenterHz = 1000.0
    public static let defaultQ = 0.7071067811865476
    public static let defaultEQQ = 1.0
    public static let defaultSlope = 12
    /// Parameters that are switches (JSON booleans; live `set` takes 0 or 1).
    public static let switchParameters: Set<String> = ["bypass", "mute", "solo", "autoplay"]
}
