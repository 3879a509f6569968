import Foundation
import TimbreDSP

// `tremolo` and `autopan`: a level swung by a low-frequency oscillator (`Tremolo`), the
// channels' oscillators `phase` degrees apart — an auto-pan is the stereo case at 180°.

/// The settings of a `tremolo` or `autopan` node.
public struct TremoloSettings: NodeParameters {
    public var isAutoPan: Bool
    /// Hz; ignored when `note` is given.
    public var rateHz: Double
    /// A note value per cycle at `tempo` (tempo sync), as the delay's notes.
    public var note: String?
    public var tempo: Double = 120
    /// 0…100 %: how far the level dips (100: to silence).
    public var depthPercent: Double
    public var shape: LowFrequencyOscillator.Shape = .sine
    /// 0…180°: between neighbouring channels' oscillators.
    public var phaseDegrees: Double

    public init(autoPan: Bool = false) {
        isAutoPan = autoPan
        rateHz = autoPan ? 0.5 : 5; depthPercent = autoPan ? 100 : 50; phaseDegrees = autoPan ? 180 : 0
    }

    /// The oscillator's frequency.
    public var frequencyHz: Double {
        note.flatMap { TempoSyncedRate.frequency(note: $0, tempo: tempo) } ?? rateHz
    }
}

extension NodeKind {
    /// A tremolo or auto-pan.
    public static func tremolo(_ settings: TremoloSettings) -> NodeKind { NodeKind(settings) }
}

package enum TremoloNode: NodeDefinition {
    package static let typeNames = ["tremolo", "autopan"]
    package static func typeName(of s: TremoloSettings) -> String { s.isAutoPan ? "autopan" : "tremolo" }

    package enum Range {
        package static let rate: ClosedRange<Double> = 0.05...20
        package static let depth: ClosedRange<Double> = 0...100
        package static let phase: ClosedRange<Double> = 0...180
    }

    package static let parameterSpecs = [
        ParameterSpec("rate", unit: "Hz", range: Range.rate, scale: .logarithmic, movesLive: true, in: ["tremoloNode"]),
        ParameterSpec("tempo", unit: "bpm", range: DelayNode.Range.tempo, default: 120, movesLive: true, in: ["tremoloNode"]),
        ParameterSpec("depth", unit: "%", range: Range.depth, movesLive: true, in: ["tremoloNode"]),
        ParameterSpec("phase", unit: "°", range: Range.phase, in: ["tremoloNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "tremoloNode",
            description: "A level swung by a low-frequency oscillator: rate in Hz (tremolo 5, autopan 0.5) or a note value per cycle at a tempo (tempo sync), depth % (how far the level dips; tremolo 50, autopan 100), shape, phase ° between the channels' oscillators (tremolo 0, autopan 180: one side dips while the other peaks). The oscillator's frequency is exact; rate and depth move live without a jump.",
            otherKeys: [("note", .object(["enum": .array(DelayNode.noteValues.map { .string($0) })])),
                        ("shape", .object(["enum": .array(LowFrequencyOscillator.Shape.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> TremoloSettings {
        var s = TremoloSettings(autoPan: type == "autopan")
        try TempoSyncedRate.decode(&o, rate: &s.rateHz, note: &s.note, tempo: &s.tempo, range: Range.rate)
        if let f = try o.optional("depth") { s.depthPercent = try f.number(in: Range.depth, unit: "%") }
        if let f = try o.optional("shape") { s.shape = try f.oneOf(LowFrequencyOscillator.Shape.self) }
        if let f = try o.optional("phase") { s.phaseDegrees = try f.number(in: Range.phase, unit: "°") }
        return s
    }

    package static func encode(_ s: TremoloSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["depth": .number(s.depthPercent), "shape": .string(s.shape.rawValue), "phase": .number(s.phaseDegrees)]
        if let note = s.note { o["note"] = .string(note); o["tempo"] = .number(s.tempo) } else { o["rate"] = .number(s.rateHz) }
        return o
    }

    package static func lower(_ s: TremoloSettings, into node: inout NodeLowering) throws(PresetError) {
        let kernel = Tremolo(shape: s.shape, frequencyHz: s.frequencyHz, depth: s.depthPercent / 100, stereoPhase: s.phaseDegrees / 360, sampleRate: node.sampleRate)
        let motion = node.valuesMotion([s.frequencyHz, s.depthPercent / 100])
        let channels = node.channels
        node.addKernel(KernelRecipe(shape: KernelShape("tremolo", [channels], carriesState: true)) {
            var step = TremoloStep(kernel: kernel, channels: channels)
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Rate (in Hz or as a note at a tempo) and depth move; the shape and phase are structure.
    package static func liveValues(from old: TremoloSettings, to new: TremoloSettings, sampleRate _: Double) -> [Double]? {
        guard old.shape == new.shape, old.phaseDegrees == new.phaseDegrees, old.isAutoPan == new.isAutoPan, Range.rate.contains(new.frequencyHz) else { return nil }
        return [new.frequencyHz, new.depthPercent / 100]
    }

    package static func summary(of s: TremoloSettings) -> String {
        let rate = TempoSyncedRate.summary(rate: s.rateHz, note: s.note, tempo: s.tempo)
        return "\(s.isAutoPan ? "autopan" : "tremolo") \(rate), depth \(SummaryFormat.number(s.depthPercent)) %, \(s.shape.rawValue)"
            + (s.phaseDegrees != (s.isAutoPan ? 180 : 0) ? ", phase \(SummaryFormat.number(s.phaseDegrees))°" : "")
    }
}

/// A `tremolo` node's step: rate and depth moved in place in a live plan.
struct TremoloStep: RenderKernel, ~Copyable {
    var kernel: Tremolo
    let channels: Int
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        kernel.retune(frequencyHz: r[0], depth: r[1])
    }

    static let operations = KernelOperations(
        process: { k, b in
            TremoloStep.at(k).pointee.follow()
            let s = TremoloStep.at(k)
            s.pointee.kernel.process(b.block.pointee.channels, channelCount: s.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in TremoloStep.at(new).pointee.kernel.continueFrom(TremoloStep.at(old).pointee.kernel) },
        reset: { k in TremoloStep.at(k).pointee.kernel.reset() })
    deinit { motion?.deallocate() }
}
