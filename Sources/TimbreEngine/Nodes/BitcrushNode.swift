import Foundation
import TimbreDSP

// `bitcrush`: fewer bits and a lower held rate (`Bitcrusher`), with or without dither.

/// The settings of a `bitcrush` node.
public struct BitcrushSettings: NodeParameters {
    /// 1…24 (fractions allowed: a step of 2^(1 − bits)).
    public var bits: Double = 8
    /// Held frames per second (nil: every frame).
    public var rateHz: Double?
    public var dither = false
    public var mixPercent: Double = 100
    public init() {}

    public func values(sampleRate: Double) -> Bitcrusher.Values {
        Bitcrusher.Values(bits: bits, holdRateHz: rateHz ?? sampleRate, mix: mixPercent / 100)
    }
}

extension NodeKind {
    /// A bitcrusher and decimator.
    public static func bitcrush(_ settings: BitcrushSettings) -> NodeKind { NodeKind(settings) }
}

package enum BitcrushNode: NodeDefinition {
    package static let typeNames = ["bitcrush"]
    package static func typeName(of _: BitcrushSettings) -> String { "bitcrush" }

    package enum Range {
        package static let bits: ClosedRange<Double> = 1...24
        package static let rate: ClosedRange<Double> = 100...192_000
        package static let mix: ClosedRange<Double> = 0...100
    }

    package static let parameterSpecs = [
        ParameterSpec("bits", range: Range.bits, default: 8, movesLive: true, in: ["bitcrushNode"]),
        ParameterSpec("rate", unit: "Hz", range: Range.rate, scale: .logarithmic, movesLive: true, in: ["bitcrushNode"]),
        ParameterSpec("mix", unit: "%", range: Range.mix, default: 100, movesLive: true, in: ["bitcrushNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "bitcrushNode",
            description: "A bitcrusher and decimator: each channel held at rate Hz (sample and hold, no filters: the aliasing is the sound) and quantised to bits bits (steps of 2^(1 − bits), fractions allowed), with TPDF dither if dither; mixed at mix %.",
            otherKeys: [("dither", .object(["type": .string("boolean")]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> BitcrushSettings {
        var s = BitcrushSettings()
        if let f = try o.optional("bits") { s.bits = try f.number(in: Range.bits, unit: "") }
        if let f = try o.optional("rate") { s.rateHz = try f.number(in: Range.rate, unit: "Hz") }
        if let f = try o.optional("dither") { s.dither = try f.bool() }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.mix, unit: "%") }
        return s
    }

    package static func encode(_ s: BitcrushSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["bits": .number(s.bits), "mix": .number(s.mixPercent)]
        if let hz = s.rateHz { o["rate"] = .number(hz) }
        if s.dither { o["dither"] = .bool(true) }
        return o
    }

    package static func lower(_ s: BitcrushSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let values = s.values(sampleRate: rate), dither = s.dither
        let motion = node.valuesMotion([values.bits, values.holdRateHz, values.mix])
        node.addKernel(KernelRecipe(shape: KernelShape("bitcrush", [channels, dither ? 1 : 0], carriesState: true)) {
            var step = BitcrushStep(crusher: Bitcrusher(values: values, dither: dither, sampleRate: rate, channelCount: channels))
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Bits, rate and mix move; dither (and a rate given or left out) is structure.
    package static func liveValues(from old: BitcrushSettings, to new: BitcrushSettings, sampleRate: Double) -> [Double]? {
        guard old.dither == new.dither, (old.rateHz == nil) == (new.rateHz == nil) else { return nil }
        let v = new.values(sampleRate: sampleRate)
        return [v.bits, v.holdRateHz, v.mix]
    }

    package static func summary(of s: BitcrushSettings) -> String {
        var text = "bitcrush \(SummaryFormat.number(s.bits)) bits"
        if let hz = s.rateHz { text += ", held at \(SummaryFormat.number(hz)) Hz" }
        if s.dither { text += ", dithered" }
        if s.mixPercent != 100 { text += ", mix \(SummaryFormat.number(s.mixPercent)) %" }
        return text
    }
}

/// A `bitcrush` node's step.
struct BitcrushStep: RenderKernel, ~Copyable {
    var crusher: Bitcrusher
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        crusher.retune(Bitcrusher.Values(bits: r[0], holdRateHz: r[1], mix: r[2]))
    }

    static let operations = KernelOperations(
        process: { k, b in
            BitcrushStep.at(k).pointee.follow()
            BitcrushStep.at(k).pointee.crusher.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in BitcrushStep.at(new).pointee.crusher.continueState(from: BitcrushStep.at(old).pointee.crusher) },
        reset: { k in BitcrushStep.at(k).pointee.crusher.reset() },
        clearNonFinite: { k in BitcrushStep.at(k).pointee.crusher.clearNonFinite() })
    deinit { motion?.deallocate() }
}
