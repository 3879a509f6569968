import TimbreDSP

// `meter` (peaks, RMS, clips, ballistics), `loudness` (R 128 momentary, short-term,
// integrated, range, and the meter's values), `spectrum` (FFT analyser): pass-through
// measurements whose running state is shared across plans (``AnalysisState``).

/// The settings of a `meter`, `loudness` or `spectrum` node.
public struct AnalysisSettings: NodeParameters {
    public var kind: AnalysisState.Kind
    /// A `spectrum` node's analyser settings (nil for the others).
    public var spectrum: SpectrumSettings?
    public init(kind: AnalysisState.Kind, spectrum: SpectrumSettings? = nil) { self.kind = kind; self.spectrum = spectrum }
}

/// A `spectrum` node's analyser settings.
public struct SpectrumSettings: Sendable, Equatable {
    public var size: Int
    public var window: SpectrumWindow
    /// Exponential averaging time constant (0: the last frame only).
    public var averagingSeconds: Double
    public init(size: Int = 4096, window: SpectrumWindow = .hann, averagingSeconds: Double = 0.3) {
        self.size = size; self.window = window; self.averagingSeconds = averagingSeconds
    }
}

extension NodeKind {
    /// A pass-through measurement: `meter`, `loudness` or `spectrum`.
    public static func analysis(_ kind: AnalysisState.Kind, spectrum: SpectrumSettings? = nil) -> NodeKind {
        NodeKind(AnalysisSettings(kind: kind, spectrum: kind == .spectrum ? spectrum ?? SpectrumSettings() : spectrum))
    }
}

package enum AnalysisNode: NodeDefinition {
    package static let typeNames = ["meter", "loudness", "spectrum"]
    package static let parameterSpecs = [
        ParameterSpec("fftSize", range: 256...32768, default: 4096, scale: .logarithmic, in: ["analysisNode"]),
        ParameterSpec("averaging", unit: "s", range: 0...60, default: 0.3, in: ["analysisNode"]),
    ]
    package static func typeName(of s: AnalysisSettings) -> String { s.kind.rawValue }

    package static func decode(type name: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> AnalysisSettings {
        let kind = AnalysisState.Kind(rawValue: name)!
        guard kind == .spectrum else { return AnalysisSettings(kind: kind) }
        var settings = SpectrumSettings()
        if let f = try o.optional("fftSize") {
            let n = try f.number(in: 256...32768, unit: "")
            guard n == n.rounded() else { throw PresetError(path: f.path, "\(JSONValue.number(n).brief) is not a whole number") }
            settings.size = Int(n)
        }
        if let w = try o.optional("window") { settings.window = try w.oneOf(SpectrumWindow.self) }
        if let a = try o.optional("averaging") { settings.averagingSeconds = try a.number(in: 0...60, unit: "s") }
        return AnalysisSettings(kind: kind, spectrum: settings)
    }

    package static func encode(_ s: AnalysisSettings) -> [String: JSONValue] {
        guard let sp = s.spectrum else { return [:] }
        return ["fftSize": .number(Double(sp.size)), "window": .string(sp.window.rawValue), "averaging": .number(sp.averagingSeconds)]
    }

    package static func lower(_ s: AnalysisSettings, into node: inout NodeLowering) throws(PresetError) {
        let (channels, rate) = (node.channels, node.sampleRate)
        if let spectrum = s.spectrum, Double(spectrum.size) / rate > 2 {
            throw PresetError(path: node.path + ".fftSize", "\(spectrum.size) points are more than 2 s at \(JSONValue.number(rate).brief) Hz")
        }
        let make = { AnalysisState(kind: s.kind, channelCount: channels, sampleRate: rate, spectrum: s.spectrum) }
        let state = try node.registry?.state(AnalysisState.self, key: node.key, reuse: { $0.matches(s.kind, channels, rate, s.spectrum) }, make: make) ?? make()
        node.retain(state)
        let kernel = AnalysisStep(kernel: state.kernelAddress)
        node.addKernel(KernelRecipe(shape: KernelShape("analysis", carriesState: false), { kernel }))
    }

    package static func summary(of s: AnalysisSettings) -> String { "\(s.kind.rawValue) (measures, passes audio unchanged)" }
}

/// A measuring node's step: feeds the shared kernel (owned by its ``AnalysisState``) unless
/// the plan is fading out.
struct AnalysisStep: RenderKernel {
    let kernel: UnsafeMutablePointer<AnalysisKernel>
    static let operations = KernelOperations(process: { k, b in
        if b.block.pointee.analyse {
            AnalysisStep.at(k).pointee.kernel.pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        }
    })
}
