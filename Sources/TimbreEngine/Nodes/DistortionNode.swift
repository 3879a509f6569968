import Foundation
import TimbreDSP

// `distortion`: a waveshaper (soft, hard, tube, foldback) run oversampled
// (`OversampledWaveshaper`), DC blocked, with a tone (a low-pass after it), output gain and mix.

/// The settings of a `distortion` node.
public struct DistortionSettings: NodeParameters {
    public var driveDB: Double = 12
    public var curve: WaveshaperCurve = .soft
    /// 1, 2, 4, 8 or 16.
    public var oversampling = 8
    /// A second-order Butterworth low-pass after the shaper, Hz (nil: none).
    public var toneHz: Double?
    public var outputDB: Double = 0
    public var mixPercent: Double = 100
    public init() {}

    public var values: OversampledWaveshaper.Values {
        OversampledWaveshaper.Values(drive: GainUnits.linear(fromDB: driveDB), output: GainUnits.linear(fromDB: outputDB), mix: mixPercent / 100)
    }
}

extension NodeKind {
    /// A distortion.
    public static func distortion(_ settings: DistortionSettings) -> NodeKind { NodeKind(settings) }
}

package enum DistortionNode: NodeDefinition {
    package static let typeNames = ["distortion"]
    package static func typeName(of _: DistortionSettings) -> String { "distortion" }

    package enum Range {
        package static let drive: ClosedRange<Double> = 0...48
        package static let output: ClosedRange<Double> = -48...12
        package static let mix: ClosedRange<Double> = 0...100
        package static let factors = [1, 2, 4, 8, 16]
    }

    package static let parameterSpecs = [
        ParameterSpec("drive", unit: "dB", range: Range.drive, default: 12, scale: .decibel, movesLive: true, in: ["distortionNode"]),
        ParameterSpec("output", unit: "dB", range: Range.output, default: 0, scale: .decibel, movesLive: true, in: ["distortionNode"]),
        ParameterSpec("mix", unit: "%", range: Range.mix, default: 100, movesLive: true, in: ["distortionNode"]),
        ParameterSpec("tone", unit: "Hz", range: ParameterRanges.frequencyHz, scale: .logarithmic, in: ["distortionNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "distortionNode",
            description: "A waveshaper: the input times drive (dB) through a curve (soft: tanh; hard: clipped at ±1; tube: asymmetric, even harmonics; foldback: folded at ±1), run at oversampling × the rate (1…16, default 8) so its harmonics above Nyquist are filtered instead of aliasing; DC blocked; a tone low-pass (Hz) after it; output gain (dB) and mix (%). Latency: the oversampling filters' (66 frames at 8×), reported.",
            otherKeys: [("curve", .object(["enum": .array(WaveshaperCurve.allCases.map { .string($0.rawValue) })])),
                        ("oversampling", .object(["enum": .array(Range.factors.map { .number(Double($0)) })]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> DistortionSettings {
        var s = DistortionSettings()
        if let f = try o.optional("drive") { s.driveDB = try f.number(in: Range.drive, unit: "dB") }
        if let f = try o.optional("curve") { s.curve = try f.oneOf(WaveshaperCurve.self) }
        if let f = try o.optional("oversampling") {
            let n = try f.number()
            guard let factor = Range.factors.first(where: { Double($0) == n }) else {
                throw PresetError(path: f.path, "\(JSONValue.number(n).brief) is not allowed (allowed 1, 2, 4, 8, 16)")
            }
            s.oversampling = factor
        }
        if let f = try o.optional("tone") { s.toneHz = try f.number(in: ParameterRanges.frequencyHz, unit: "Hz") }
        if let f = try o.optional("output") { s.outputDB = try f.number(in: Range.output, unit: "dB") }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.mix, unit: "%") }
        return s
    }

    package static func encode(_ s: DistortionSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["drive": .number(s.driveDB), "curve": .string(s.curve.rawValue), "oversampling": .number(Double(s.oversampling)),
                                      "output": .number(s.outputDB), "mix": .number(s.mixPercent)]
        if let hz = s.toneHz { o["tone"] = .number(hz) }
        return o
    }

    package static func lower(_ s: DistortionSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let values = s.values, curve = s.curve, factor = s.oversampling
        let latency = OversampledWaveshaper.latency(factor: factor)
        let motion = node.valuesMotion([values.drive, values.output, values.mix])
        node.addKernel(KernelRecipe(shape: KernelShape("distortion", [channels, factor, WaveshaperCurve.allCases.firstIndex(of: curve)!], carriesState: true)) {
            var step = DistortionStep(shaper: OversampledWaveshaper(values: values, curve: curve, factor: factor, sampleRate: rate, channelCount: channels))
            step.motion = motion?.makeFollower()
            return step
        }, latency: latency)
        if let hz = s.toneHz, hz < ParameterRanges.nyquistFraction * rate {
            node.addSections(FilterDesign(type: .lowPass, frequencyHz: hz, q: 1 / 2.0.squareRoot()).sections(sampleRate: rate))
        }
    }

    /// Drive, output and mix move; the curve, oversampling and tone are structure.
    package static func liveValues(from old: DistortionSettings, to new: DistortionSettings, sampleRate _: Double) -> [Double]? {
        guard old.curve == new.curve, old.oversampling == new.oversampling, old.toneHz == new.toneHz else { return nil }
        let v = new.values
        return [v.drive, v.output, v.mix]
    }

    package static func summary(of s: DistortionSettings) -> String {
        var text = "distortion \(s.curve.rawValue), drive \(SummaryFormat.number(s.driveDB)) dB, \(s.oversampling)× oversampled"
        if let hz = s.toneHz { text += ", tone \(SummaryFormat.number(hz)) Hz" }
        if s.outputDB != 0 { text += String(format: ", output %+.1f dB", s.outputDB) }
        if s.mixPercent != 100 { text += ", mix \(SummaryFormat.number(s.mixPercent)) %" }
        return text
    }
}

/// A `distortion` node's step: drive, output and mix moved in place in a live plan.
struct DistortionStep: RenderKernel, ~Copyable {
    var shaper: OversampledWaveshaper
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        shaper.retune(OversampledWaveshaper.Values(drive: r[0], output: r[1], mix: r[2]))
    }

    static let operations = KernelOperations(
        process: { k, b in
            DistortionStep.at(k).pointee.follow()
            DistortionStep.at(k).pointee.shaper.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in DistortionStep.at(new).pointee.shaper.continueState(from: DistortionStep.at(old).pointee.shaper) },
        reset: { k in DistortionStep.at(k).pointee.shaper.reset() },
        clearNonFinite: { k in DistortionStep.at(k).pointee.shaper.clearNonFinite() })
    deinit { motion?.deallocate() }
}
