import Foundation
import TimbreDSP

// `ladder`: the Moog ladder filter (`LadderFilter`): low-, high- or band-pass, 12 or 24 dB,
// resonance to self-oscillation, drive.

/// The settings of a `ladder` node.
public struct LadderSettings: NodeParameters {
    public var mode: LadderFilter.Mode = .lowpass
    public var slope = 24
    public var cutoffHz: Double = 1_000
    /// 0…1.2 (self-oscillation from 1).
    public var resonance: Double = 0.3
    public var driveDB: Double = 0
    public init() {}

    public var values: LadderFilter.Values { LadderFilter.Values(cutoffHz: cutoffHz, resonance: resonance, drive: GainUnits.linear(fromDB: driveDB)) }
}

extension NodeKind {
    /// A ladder filter.
    public static func ladder(_ settings: LadderSettings) -> NodeKind { NodeKind(settings) }
}

package enum LadderNode: NodeDefinition {
    package static let typeNames = ["ladder"]
    package static func typeName(of _: LadderSettings) -> String { "ladder" }

    package enum Range {
        package static let resonance: ClosedRange<Double> = 0...1.2
        package static let drive: ClosedRange<Double> = 0...24
    }

    package static let parameterSpecs = [
        ParameterSpec("cutoff", unit: "Hz", range: ParameterRanges.frequencyHz, default: 1_000, scale: .logarithmic, movesLive: true, in: ["ladderNode"]),
        ParameterSpec("resonance", range: Range.resonance, default: 0.3, movesLive: true, in: ["ladderNode"]),
        ParameterSpec("drive", unit: "dB", range: Range.drive, default: 0, scale: .decibel, movesLive: true, in: ["ladderNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "ladderNode",
            description: "The Moog ladder: four one-pole stages with inverted feedback (zero-delay feedback), mode lowpass, highpass or bandpass at slope 12 or 24 dB/octave, cutoff (Hz), resonance 0…1.2 (self-oscillation from 1), drive (dB) into the loop's tanh. Cutoff, resonance and drive glide live without zipper.",
            otherKeys: [("mode", .object(["enum": .array(LadderFilter.Mode.allCases.map { .string($0.rawValue) })])),
                        ("slope", .object(["enum": .array([.number(12), .number(24)])]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> LadderSettings {
        var s = LadderSettings()
        if let f = try o.optional("mode") { s.mode = try f.oneOf(LadderFilter.Mode.self) }
        if let f = try o.optional("slope") {
            let n = try f.number()
            guard n == 12 || n == 24 else { throw PresetError(path: f.path, "\(JSONValue.number(n).brief) is not allowed (allowed 12, 24)") }
            s.slope = Int(n)
        }
        if let f = try o.optional("cutoff") { s.cutoffHz = try f.number(in: ParameterRanges.frequencyHz, unit: "Hz") }
        if let f = try o.optional("resonance") { s.resonance = try f.number(in: Range.resonance, unit: "") }
        if let f = try o.optional("drive") { s.driveDB = try f.number(in: Range.drive, unit: "dB") }
        return s
    }

    package static func encode(_ s: LadderSettings) -> [String: JSONValue] {
        ["mode": .string(s.mode.rawValue), "slope": .number(Double(s.slope)), "cutoff": .number(s.cutoffHz), "resonance": .number(s.resonance), "drive": .number(s.driveDB)]
    }

    package static func lower(_ s: LadderSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let values = s.values, mode = s.mode, slope = s.slope
        let motion = node.valuesMotion([values.cutoffHz, values.resonance, values.drive])
        node.addKernel(KernelRecipe(shape: KernelShape("ladder", [channels, LadderFilter.Mode.allCases.firstIndex(of: mode)!, slope], carriesState: true)) {
            var step = LadderStep(filter: LadderFilter(values: values, mode: mode, slope: slope, sampleRate: rate, channelCount: channels))
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Cutoff, resonance and drive move; mode and slope are structure.
    package static func liveValues(from old: LadderSettings, to new: LadderSettings, sampleRate _: Double) -> [Double]? {
        guard old.mode == new.mode, old.slope == new.slope else { return nil }
        let v = new.values
        return [v.cutoffHz, v.resonance, v.drive]
    }

    package static func summary(of s: LadderSettings) -> String {
        "ladder \(s.mode.rawValue) \(s.slope) dB/oct at \(SummaryFormat.number(s.cutoffHz)) Hz, resonance \(SummaryFormat.number(s.resonance))"
            + (s.driveDB != 0 ? ", drive \(SummaryFormat.number(s.driveDB)) dB" : "")
    }
}

/// A `ladder` node's step.
struct LadderStep: RenderKernel, ~Copyable {
    var filter: LadderFilter
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        filter.retune(LadderFilter.Values(cutoffHz: r[0], resonance: r[1], drive: r[2]))
    }

    static let operations = KernelOperations(
        process: { k, b in
            LadderStep.at(k).pointee.follow()
            LadderStep.at(k).pointee.filter.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in LadderStep.at(new).pointee.filter.continueState(from: LadderStep.at(old).pointee.filter) },
        reset: { k in LadderStep.at(k).pointee.filter.reset() },
        clearNonFinite: { k in LadderStep.at(k).pointee.filter.clearNonFinite() })
    deinit { motion?.deallocate() }
}
