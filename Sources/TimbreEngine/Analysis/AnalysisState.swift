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
    /// The render-side kernel, out of line: a plan's step holds this address, not the
    /// 440-byte struct.
    let kernelAddress: UnsafeMutablePointer<AnalysisKernel>

    public let spectrum: SpectrumSettings?

    init(kind: Kind, channelCount: Int, sampleRate: Double, spectrum: SpectrumSettings? = nil) {
        self.kind = kind; self.channelCount = channelCount; self.sampleRate = sampleRate; self.spectrum = spectrum
        kernelAddress = .allocate(capacity: 1)
        kernelAddress.initialize(to: AnalysisKernel(kind: kind, channelCount: channelCount, sampleRate: sampleRate, spectrum: spectrum))
    }

    deinit {
        kernelAddress.deinitialize(count: 1); kernelAddress.deallocate()
    }

    func matches(_ kind: Kind, _ channels: Int, _ rate: Double, _ spectrum: SpectrumSettings?) -> Bool {
        self.kind == kind && channelCount == channels && sampleRate == rate && self.spectrum == spectrum
    }

    /// The spectrum computed from the analyser's latest frame (control thread only).
    private var spectrumCache: AnalysisReading.Spectrum?
    private var bandTable: SpectrumBandTable?

    /// The newest values as JSON (control thread only: the snapshot buffer has one reader).
    public var values: JSONValue { kernelAddress.pointee.readValues(cache: &spectrumCache, bandTable: &bandTable) }
    /// The newest values, typed (control thread only).
    public var reading: AnalysisReading { kernelAddress.pointee.read(cache: &spectrumCache, bandTable: &bandTable) }
}
