import Foundation
import TimbreDSP

// `deplosive`: popped "p" and "b" turned down (`PlosiveSuppressor`): the band under a split may
// rise only so far over its own 300 ms level; no latency.

/// The settings of a `deplosive` node.
public struct DeplosiveSettings: NodeParameters {
    public var splitHz: Double = 300
    public var riseDB: Double = 12
    public var releaseMs: Double = 50
    public init() {}
}

extension NodeKind {
    /// A de-plosive (a dynamic low cut for popped consonants).
    public static func deplosive(_ settings: DeplosiveSettings) -> NodeKind { NodeKind(settings) }
}

package enum DeplosiveNode: NodeDefinition {
    package static let typeNames = ["deplosive"]
    package static func typeName(of _: DeplosiveSettings) -> String { "deplosive" }

    package enum Range {
        package static let frequency: ClosedRange<Double> = 60...1000
        package static let rise: ClosedRange<Double> = 3...40
        package static let release: ClosedRange<Double> = 5...1000
    }

    package static let parameterSpecs = [
        ParameterSpec("frequency", unit: "Hz", range: Range.frequency, default: 300, scale: .logarithmic, in: ["deplosiveNode"]),
        ParameterSpec("rise", unit: "dB", range: Range.rise, default: 12, in: ["deplosiveNode"]),
        ParameterSpec("release", unit: "ms", range: Range.release, default: 50, scale: .logarithmic, in: ["deplosiveNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "deplosiveNode",
            description: "De-plosive for popped p and b: the band under frequency (measured through a 4th-order Butterworth low-pass, one detector for all channels, 5 ms power) may stand at most rise dB over its own power over the last 300 ms; a blast coming out of near-silence is turned down by the excess at once by two low shelves at frequency, and the gain comes back with release. Steady low sound passes unchanged; with nothing turned down the output is the input. No latency.",
            otherKeys: [])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> DeplosiveSettings {
        var s = DeplosiveSettings()
        if let f = try o.optional("frequency") { s.splitHz = try f.number(in: Range.frequency, unit: "Hz") }
        if let f = try o.optional("rise") { s.riseDB = try f.number(in: Range.rise, unit: "dB") }
        if let f = try o.optional("release") { s.releaseMs = try f.number(in: Range.release, unit: "ms") }
        return s
    }

    package static func encode(_ s: DeplosiveSettings) -> [String: JSONValue] {
        ["frequency": .number(s.splitHz), "rise": .number(s.riseDB), "release": .number(s.releaseMs)]
    }

    package static func lower(_ s: DeplosiveSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let settings = PlosiveSuppressor.Settings(splitHz: s.splitHz, riseDB: s.riseDB, releaseMs: s.releaseMs)
        node.addKernel(KernelRecipe(shape: KernelShape("deplosive", [channels], carriesState: true)) {
            DeplosiveStep(suppressor: PlosiveSuppressor(settings: settings, sampleRate: rate, channelCount: channels))
        })
    }

    package static func summary(of s: DeplosiveSettings) -> String {
        "deplosive under \(SummaryFormat.number(s.splitHz)) Hz, rise \(SummaryFormat.number(s.riseDB)) dB, release \(SummaryFormat.number(s.releaseMs)) ms"
    }
}

/// A `deplosive` node's step.
struct DeplosiveStep: RenderKernel, ~Copyable {
    var suppressor: PlosiveSuppressor

    static let operations = KernelOperations(
        process: { k, b in DeplosiveStep.at(k).pointee.suppressor.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in DeplosiveStep.at(new).pointee.suppressor.continueState(from: DeplosiveStep.at(old).pointee.suppressor) },
        reset: { k in DeplosiveStep.at(k).pointee.suppressor.reset() },
        clearNonFinite: { k in DeplosiveStep.at(k).pointee.suppressor.clearNonFinite() })
}
