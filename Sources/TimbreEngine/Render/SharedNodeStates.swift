import TimbreDSP

/// Node states that live across plans, by node key: the running measurements of `meter`,
/// `loudness` and `spectrum` nodes and the running shifters of `pitch` nodes. A ``LiveEngine``
/// passes its registry to every plan it compiles, so a live edit or preset load continues
/// these nodes instead of restarting them.
public final class SharedNodeStates {
    var analysis: [String: AnalysisState] = [:]
    var pitch: [String: PitchState] = [:]
    public init() {}

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
    }
}
