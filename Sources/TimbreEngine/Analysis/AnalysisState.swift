import TimbreDSP

/// The running measurement of one `meter` or `loudness` node, owned by the control side and
/// shared by every plan that continues the node (same key, kind, channel count and rate), so
/// a live edit or preset load never restarts it. Only the plan the audio thread renders as
/// current feeds it (a fading plan does not), so a crossfade is not counted twice.
public final class AnalysisState {
    public enum Kind: String, Sendable { case meter, loudness, spectrum }
    public let kind: Kind
    public let channelCount: Int
    public let sampleRate: Double
    let kernel: AnalysisKernel

    public let spectrum: SpectrumSettings?

    init(kind: Kind, channelCount: Int, sampleRate: Double, spectrum: SpectrumSettings? = nil) {
        self.kind = kind; self.channelCount = channelCount; self.sampleRate = sampleRate; self.spectrum = spectrum
        kernel = AnalysisKernel(kind: kind, channelCount: channelCount, sampleRate: sampleRate, spectrum: spectrum)
    }

    deinit { kernel.deallocate() }

    func matches(_ kind: Kind, _ channels: Int, _ rate: Double, _ spectrum: SpectrumSettings?) -> Bool {
        self.kind == kind && channelCount == channels && sampleRate == rate && self.spectrum == spectrum
    }

    /// The newest values (control thread only: the snapshot buffer has one reader).
    public var values: JSONValue { kernel.readValues() }
}

/// Analysis states by node key, shared by the plans a ``LiveEngine`` compiles.
public final class AnalysisRegistry {
    var states: [String: AnalysisState] = [:]
    public init() {}

    func state(key: String, kind: AnalysisState.Kind, channels: Int, sampleRate: Double, spectrum: SpectrumSettings?) -> AnalysisState {
        if let s = states[key], s.matches(kind, channels, sampleRate, spectrum) { return s }
        let s = AnalysisState(kind: kind, channelCount: channels, sampleRate: sampleRate, spectrum: spectrum)
        states[key] = s
        return s
    }

    /// Forgets states no alive plan uses (they are freed when the last plan holding them is).
    func prune(keeping keys: Set<String>) { states = states.filter { keys.contains($0.key) } }
}
