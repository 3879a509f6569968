import TimbreDSP

/// Node states that live across plans, by node key: the running measurements of `meter`,
/// `loudness` and `spectrum` nodes, the running shifters of `pitch` nodes and the streams of
/// `player` channels. A ``LiveEngine``
/// passes its registry to every plan it compiles, so a live edit or preset load continues
/// these nodes instead of restarting them.
public final class SharedNodeStates {
    var analysis: [String: AnalysisState] = [:]
    var pitch: [String: PitchState] = [:]
    var players: [String: PlayerState] = [:]
    /// Makes a player's stream (opens the file, starts filling the ring); set by a host that
    /// reads files. Throws a ``PresetError`` at `path` for a file that cannot be played.
    public var makePlayer: ((_ spec: PlayerSpec, _ path: String, _ sampleRate: Double, _ maxBlockFrames: Int) throws(PresetError) -> PlayerState)?
    public init() {}

    /// The players of the plans alive, by channel key.
    public var playerStates: [String: PlayerState] { players }

    func playerState(key: String, spec: PlayerSpec, path: String, sampleRate: Double, maxBlockFrames: Int) throws(PresetError) -> PlayerState {
        if let s = players[key], s.matches(spec, sampleRate, maxBlockFrames) {
            if s.spec != spec {
                // A live change of rate, rate mode or loops: the stream goes on from where it is.
                s.feeder?.requestChange(to: spec, fileSeconds: s.currentFileSeconds)
                s.spec = spec
            }
            return s
        }
        guard let makePlayer else {
            throw PresetError(path: path, "a player needs a host that reads files (timbre render or timbre live)")
        }
        let s = try makePlayer(spec, path, sampleRate, maxBlockFrames)
        players[key] = s
        return s
    }

    func analysisState(key: String, kind: AnalysisState.Kind, channels: Int, sampleRate: Double, spectrum: SpectrumSettings?) -> AnalysisState {
        if let s = analysis[key], s.matches(kind, channels, sampleRate, spectrum) { return s }
        let s = AnalysisState(kind: kind, channelCount: channels, sampleRate: sampleRate, spectrum: spectrum)
        analysis[key] = s
        return s
    }

    func pitchState(key: String, channels: Int, sampleRate: Double, maxBlockFrames: Int, semitones: Double) -> PitchState {
        if let s = pitch[key], s.matches(channels, sampleRate, maxBlockFrames) { return s }
        let s = PitchState(channelCount: channels, sampleRate: sampleRate, maxBlockFrames: maxBlockFrames, semitones: semitones)
        pitch[key] = s
        return s
    }

    /// Forgets states no alive plan uses (they are freed when the last plan holding them is).
    func prune(keeping keys: Set<String>) {
        analysis = analysis.filter { keys.contains($0.key) }
        pitch = pitch.filter { keys.contains($0.key) }
        players = players.filter { keys.contains($0.key) }
    }
}
