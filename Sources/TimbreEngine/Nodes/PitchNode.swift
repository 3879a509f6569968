import TimbreDSP

// `pitch`: a pitch shift at unchanged speed (semitones + cents / 100, ±24), with a fixed
// latency (`PitchShifter/latencyFrames(sampleRate:)`). Its shifter is shared state
// (`PitchState`): a live `set <id>.semitones` glides from the pitch in effect.

/// The settings of a `pitch` node.
public struct PitchSettings: NodeParameters {
    /// The shift in semitones (the node's `semitones` + `cents` / 100).
    public var semitones: Double
    public init(semitones: Double) { self.semitones = semitones }
}

extension NodeKind {
    /// A pitch shift at unchanged speed, in semitones, with a fixed latency (`PitchShifter`).
    public static func pitch(semitones: Double) -> NodeKind { NodeKind(PitchSettings(semitones: semitones)) }
}

package enum PitchNode: NodeDefinition {
    package static let typeNames = ["pitch"]
    package static let parameterSpecs = [
        ParameterSpec("semitones", unit: "semitones", range: ParameterRanges.pitchSemitones, default: 0, in: ["pitchNode"]),
        ParameterSpec("cents", unit: "cents", range: ParameterRanges.pitchCents, default: 0, in: ["pitchNode"]),
    ]
    package static func typeName(of _: PitchSettings) -> String { "pitch" }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> PitchSettings {
        let semitones = try o.optional("semitones")?.number(in: ParameterRanges.pitchSemitones, unit: "semitones") ?? 0
        let cents = try o.optional("cents")?.number(in: ParameterRanges.pitchCents, unit: "cents") ?? 0
        let total = semitones + cents / 100
        guard ParameterRanges.pitchSemitones.contains(total) else {
            throw PresetError(path: path, "semitones + cents / 100 = \(JSONValue.number(total).brief) is out of range (allowed -24…24)")
        }
        return PitchSettings(semitones: total)
    }

    package static func encode(_ s: PitchSettings) -> [String: JSONValue] { ["semitones": .number(s.semitones)] }

    package static func lower(_ s: PitchSettings, into node: inout NodeLowering) throws(PresetError) {
        let (channels, rate, block) = (node.channels, node.sampleRate, node.maxBlockFrames)
        let make = { PitchState(channelCount: channels, sampleRate: rate, maxBlockFrames: block, semitones: s.semitones) }
        let state = try node.registry?.state(PitchState.self, key: node.key, reuse: { $0.matches(channels, rate, block) }, make: make) ?? make()
        node.retain(state)
        let kernel = PitchStep(kernel: state.kernel, semitones: s.semitones)
        node.addKernel(KernelRecipe(shape: KernelShape("pitch", carriesState: false), { kernel }),
                       latency: PitchShifter.latencyFrames(sampleRate: rate))
    }

    package static func summary(of s: PitchSettings) -> String { "pitch \(String(format: "%+.2f", s.semitones)) semitones" }
}

/// A `pitch` node's step: its shared shifter and the pitch this plan asks of it.
struct PitchStep: RenderKernel {
    let kernel: PitchKernel
    let semitones: Double
    static let operations = KernelOperations(process: { k, b in
        let s = PitchStep.at(k).pointee
        s.kernel.process(b.block.pointee.channels, semitones: s.semitones, frameCount: b.block.pointee.frameCount, stamp: b.block.pointee.stamp)
    }, reset: { k in PitchStep.at(k).pointee.kernel.reset() }, clearNonFinite: { k in PitchStep.at(k).pointee.kernel.clearNonFinite() })
}
