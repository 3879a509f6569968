import TimbreDSP

// `pan`: −1…1; constant-power mono-to-stereo on a mono chain (the chain is stereo after it),
// balance on a stereo one.

/// The settings of a `pan` node.
public struct PanSettings: NodeParameters {
    public var pan: Double
    public init(pan: Double) { self.pan = pan }
}

extension NodeKind {
    /// Pan/balance −1…1.
    public static func pan(_ pan: Double) -> NodeKind { NodeKind(PanSettings(pan: pan)) }
}

package enum PanNode: NodeDefinition {
    package static let typeNames = ["pan"]
    package static let parameterSpecs = [ParameterSpec("pan", range: ParameterRanges.pan, default: 0, movesLive: true, in: ["panNode"])]
    package static func typeName(of _: PanSettings) -> String { "pan" }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> PanSettings {
        PanSettings(pan: try o.optional("pan")?.number(in: ParameterRanges.pan, unit: "") ?? 0)
    }

    package static func encode(_ s: PanSettings) -> [String: JSONValue] { ["pan": .number(s.pan)] }

    package static func lower(_ s: PanSettings, into node: inout NodeLowering) throws(PresetError) {
        let mode: PanKernel.Mode
        switch node.channels {
        case 1: mode = .monoToStereo; node.channelsOut = 2
        case 2: mode = .stereoBalance
        default: throw PresetError(path: node.path, "pan needs mono or stereo input, the chain has \(node.channels) channels here")
        }
        let kernel = PanKernel(pan: s.pan, mode: mode, sampleRate: node.sampleRate)
        if let motion = node.valueMotion(s.pan) {
            let handle = motion.handle, seen = s.pan.bitPattern
            node.addKernel(KernelRecipe(shape: KernelShape("moving-pan", kernel.shape.detail, carriesState: true)) { MovingPanStep(kernel: kernel, motion: handle, seen: seen) })
        } else {
            node.addKernel(KernelRecipe(shape: kernel.shape, { kernel }))
        }
    }

    package static func summary(of s: PanSettings) -> String { "pan \(SummaryFormat.number(s.pan))" }
}
