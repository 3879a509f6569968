import Foundation
import TimbreDSP

// `ringmod`: the signal times a carrier (`RingModulator`).

/// The settings of a `ringmod` node.
public struct RingModSettings: NodeParameters {
    public var frequencyHz: Double = 440
    public var shape: LowFrequencyOscillator.Shape = .sine
    public var mixPercent: Double = 100
    public init() {}
}

extension NodeKind {
    /// A ring modulator.
    public static func ringmod(_ settings: RingModSettings) -> NodeKind { NodeKind(settings) }
}

package enum RingModNode: NodeDefinition {
    package static let typeNames = ["ringmod"]
    package static func typeName(of _: RingModSettings) -> String { "ringmod" }

    package enum Range {
        package static let frequency: ClosedRange<Double> = 0.1...10_000
        package static let mix: ClosedRange<Double> = 0...100
    }

    package static let parameterSpecs = [
        ParameterSpec("frequency", unit: "Hz", range: Range.frequency, default: 440, scale: .logarithmic, movesLive: true, in: ["ringmodNode"]),
        ParameterSpec("mix", unit: "%", range: Range.mix, default: 100, movesLive: true, in: ["ringmodNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "ringmodNode",
            description: "A ring modulator: the signal times a carrier at frequency Hz (shape: sine gives only the sum and difference tones), mixed at mix %. Frequency and mix move live.",
            otherKeys: [("shape", .object(["enum": .array(LowFrequencyOscillator.Shape.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> RingModSettings {
        var s = RingModSettings()
        if let f = try o.optional("frequency") { s.frequencyHz = try f.number(in: Range.frequency, unit: "Hz") }
        if let f = try o.optional("shape") { s.shape = try f.oneOf(LowFrequencyOscillator.Shape.self) }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.mix, unit: "%") }
        return s
    }

    package static func encode(_ s: RingModSettings) -> [String: JSONValue] {
        ["frequency": .number(s.frequencyHz), "shape": .string(s.shape.rawValue), "mix": .number(s.mixPercent)]
    }

    package static func lower(_ s: RingModSettings, into node: inout NodeLowering) throws(PresetError) {
        let kernel = RingModulator(shape: s.shape, frequencyHz: s.frequencyHz, mix: s.mixPercent / 100, sampleRate: node.sampleRate)
        let motion = node.valuesMotion([s.frequencyHz, s.mixPercent / 100])
        let channels = node.channels
        node.addKernel(KernelRecipe(shape: KernelShape("ringmod", [channels], carriesState: true)) {
            var step = RingModStep(kernel: kernel, channels: channels)
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Frequency and mix move; the shape is structure.
    package static func liveValues(from old: RingModSettings, to new: RingModSettings, sampleRate _: Double) -> [Double]? {
        old.shape == new.shape ? [new.frequencyHz, new.mixPercent / 100] : nil
    }

    package static func summary(of s: RingModSettings) -> String {
        "ringmod \(SummaryFormat.number(s.frequencyHz)) Hz \(s.shape.rawValue)" + (s.mixPercent != 100 ? ", mix \(SummaryFormat.number(s.mixPercent)) %" : "")
    }
}

/// A `ringmod` node's step.
struct RingModStep: RenderKernel, ~Copyable {
    var kernel: RingModulator
    let channels: Int
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        kernel.retune(frequencyHz: r[0], mix: r[1])
    }

    static let operations = KernelOperations(
        process: { k, b in
            RingModStep.at(k).pointee.follow()
            let s = RingModStep.at(k)
            s.pointee.kernel.process(b.block.pointee.channels, channelCount: s.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in RingModStep.at(new).pointee.kernel.continueFrom(RingModStep.at(old).pointee.kernel) },
        reset: { k in RingModStep.at(k).pointee.kernel.reset() })
    deinit { motion?.deallocate() }
}
