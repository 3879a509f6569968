import Foundation
import TimbreDSP

// `phaser`: first-order all-pass stages swept by an oscillator, fed back and mixed (`Phaser`).

/// The settings of a `phaser` node.
public struct PhaserSettings: NodeParameters {
    public var stages = 4
    public var rateHz = 0.5
    /// A note value per cycle at `tempo` (tempo sync); nil: `rateHz`.
    public var note: String?
    public var tempo: Double = 120
    /// 0…100 %: 100 sweeps two octaves each side of the centre.
    public var depthPercent: Double = 50
    public var centreHz: Double = 800
    public var feedbackPercent: Double = 0
    public var mixPercent: Double = 50
    public var shape: LowFrequencyOscillator.Shape = .sine
    public var phaseDegrees: Double = 90
    public init() {}

    public var frequencyHz: Double {
        note.flatMap { TempoSyncedRate.frequency(note: $0, tempo: tempo) } ?? rateHz
    }

    public var values: Phaser.Values {
        Phaser.Values(rateHz: frequencyHz, centreHz: centreHz, octaves: 2 * depthPercent / 100, feedback: feedbackPercent / 100, mix: mixPercent / 100)
    }
}

extension NodeKind {
    /// A phaser.
    public static func phaser(_ settings: PhaserSettings) -> NodeKind { NodeKind(settings) }
}

package enum PhaserNode: NodeDefinition {
    package static let typeNames = ["phaser"]
    package static func typeName(of _: PhaserSettings) -> String { "phaser" }

    package enum Range {
        package static let stages: ClosedRange<Double> = 1...12
        package static let rate: ClosedRange<Double> = 0.01...10
        package static let depth: ClosedRange<Double> = 0...100
        package static let centre: ClosedRange<Double> = 50...10_000
        package static let feedback: ClosedRange<Double> = -95...95
        package static let mix: ClosedRange<Double> = 0...100
        package static let phase: ClosedRange<Double> = 0...180
    }

    package static let parameterSpecs = [
        ParameterSpec("stages", range: Range.stages, default: 4, wholeNumber: true, in: ["phaserNode"]),
        ParameterSpec("rate", unit: "Hz", range: Range.rate, default: 0.5, scale: .logarithmic, movesLive: true, in: ["phaserNode"]),
        ParameterSpec("tempo", unit: "bpm", range: DelayNode.Range.tempo, default: 120, movesLive: true, in: ["phaserNode"]),
        ParameterSpec("depth", unit: "%", range: Range.depth, default: 50, movesLive: true, in: ["phaserNode"]),
        ParameterSpec("centre", unit: "Hz", range: Range.centre, default: 800, scale: .logarithmic, movesLive: true, in: ["phaserNode"]),
        ParameterSpec("feedback", unit: "%", range: Range.feedback, default: 0, movesLive: true, in: ["phaserNode"]),
        ParameterSpec("mix", unit: "%", range: Range.mix, default: 50, movesLive: true, in: ["phaserNode"]),
        ParameterSpec("phase", unit: "°", range: Range.phase, default: 90, in: ["phaserNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "phaserNode",
            description: "stages first-order all-passes whose break frequency sweeps around centre Hz (depth 100 %: two octaves each side) at rate Hz or a note value per cycle at a tempo, the last stage fed back at feedback %, mixed at mix % (50: the deepest notches); the channels' oscillators phase ° apart.",
            otherKeys: [("note", .object(["enum": .array(DelayNode.noteValues.map { .string($0) })])),
                        ("shape", .object(["enum": .array(LowFrequencyOscillator.Shape.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> PhaserSettings {
        var s = PhaserSettings()
        if let f = try o.optional("stages") {
            let n = try f.number(in: Range.stages, unit: "")
            guard n == n.rounded() else { throw PresetError(path: f.path, "\(JSONValue.number(n).brief) is not a whole number of stages") }
            s.stages = Int(n)
        }
        try TempoSyncedRate.decode(&o, rate: &s.rateHz, note: &s.note, tempo: &s.tempo, range: Range.rate)
        if let f = try o.optional("depth") { s.depthPercent = try f.number(in: Range.depth, unit: "%") }
        if let f = try o.optional("centre") { s.centreHz = try f.number(in: Range.centre, unit: "Hz") }
        if let f = try o.optional("feedback") { s.feedbackPercent = try f.number(in: Range.feedback, unit: "%") }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.mix, unit: "%") }
        if let f = try o.optional("shape") { s.shape = try f.oneOf(LowFrequencyOscillator.Shape.self) }
        if let f = try o.optional("phase") { s.phaseDegrees = try f.number(in: Range.phase, unit: "°") }
        return s
    }

    package static func encode(_ s: PhaserSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["stages": .number(Double(s.stages)), "depth": .number(s.depthPercent), "centre": .number(s.centreHz),
                                      "feedback": .number(s.feedbackPercent), "mix": .number(s.mixPercent), "shape": .string(s.shape.rawValue),
                                      "phase": .number(s.phaseDegrees)]
        if let note = s.note { o["note"] = .string(note); o["tempo"] = .number(s.tempo) } else { o["rate"] = .number(s.rateHz) }
        return o
    }

    package static func lower(_ s: PhaserSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let values = s.values, shape = s.shape, stages = s.stages, phase = s.phaseDegrees / 360
        let motion = node.valuesMotion(motionValues(values))
        node.addKernel(KernelRecipe(shape: KernelShape("phaser", [channels, stages], carriesState: true)) {
            var step = PhaserStep(phaser: Phaser(values: values, shape: shape, stages: stages, stereoPhase: phase, sampleRate: rate, channelCount: channels))
            step.motion = motion?.makeFollower()
            return step
        })
    }

    static func motionValues(_ v: Phaser.Values) -> [Double] { [v.rateHz, v.centreHz, v.octaves, v.feedback, v.mix] }

    /// Rate (or note and tempo), depth, centre, feedback and mix move; stages, shape and phase are structure.
    package static func liveValues(from old: PhaserSettings, to new: PhaserSettings, sampleRate _: Double) -> [Double]? {
        guard old.stages == new.stages, old.shape == new.shape, old.phaseDegrees == new.phaseDegrees, Range.rate.contains(new.frequencyHz) else { return nil }
        return motionValues(new.values)
    }

    package static func summary(of s: PhaserSettings) -> String {
        let rate = TempoSyncedRate.summary(rate: s.rateHz, note: s.note, tempo: s.tempo)
        return "phaser \(s.stages) stages, \(rate), \(SummaryFormat.number(s.centreHz)) Hz ± \(SummaryFormat.number(2 * s.depthPercent / 100)) oct, feedback \(SummaryFormat.number(s.feedbackPercent)) %, mix \(SummaryFormat.number(s.mixPercent)) %"
    }
}

/// A `phaser` node's step: its values moved in place in a live plan.
struct PhaserStep: RenderKernel, ~Copyable {
    var phaser: Phaser
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        phaser.retune(Phaser.Values(rateHz: r[0], centreHz: r[1], octaves: r[2], feedback: r[3], mix: r[4]))
    }

    static let operations = KernelOperations(
        process: { k, b in
            PhaserStep.at(k).pointee.follow()
            PhaserStep.at(k).pointee.phaser.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in PhaserStep.at(new).pointee.phaser.continueState(from: PhaserStep.at(old).pointee.phaser) },
        reset: { k in PhaserStep.at(k).pointee.phaser.reset() },
        clearNonFinite: { k in PhaserStep.at(k).pointee.phaser.clearNonFinite() })
    deinit { motion?.deallocate() }
}
