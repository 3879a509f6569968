import Foundation
import TimbreDSP

// `chorus` and `flanger`: modulated delay lines (`ModulatedDelay`), their defaults the two
// classic settings (a few voices around 15 ms; one voice around 2.5 ms with feedback).

/// The settings of a `chorus` or `flanger` node.
public struct ChorusSettings: NodeParameters {
    public var isFlanger: Bool
    public var voices: Int
    public var rateHz: Double
    /// A note value per cycle at `tempo` (tempo sync); nil: `rateHz`.
    public var note: String?
    public var tempo: Double = 120
    /// The swing each side of the centre, and the centre, in ms.
    public var depthMs: Double
    public var centreMs: Double
    public var feedbackPercent: Double
    public var mixPercent: Double = 50
    public var shape: LowFrequencyOscillator.Shape
    /// Between neighbouring channels' oscillators, degrees.
    public var phaseDegrees: Double = 90

    public init(flanger: Bool = false) {
        isFlanger = flanger
        voices = flanger ? 1 : 3; rateHz = flanger ? 0.25 : 0.8; depthMs = flanger ? 2 : 3; centreMs = flanger ? 2.5 : 15
        feedbackPercent = flanger ? 50 : 0; shape = flanger ? .triangle : .sine
    }

    public var frequencyHz: Double {
        note.flatMap { TempoSyncedRate.frequency(note: $0, tempo: tempo) } ?? rateHz
    }

    public func values(sampleRate: Double) -> ModulatedDelay.Values {
        ModulatedDelay.Values(rateHz: frequencyHz, centreFrames: centreMs / 1000 * sampleRate, depthFrames: depthMs / 1000 * sampleRate,
                              feedback: feedbackPercent / 100, mix: mixPercent / 100)
    }
}

extension NodeKind {
    /// A chorus or flanger.
    public static func chorus(_ settings: ChorusSettings) -> NodeKind { NodeKind(settings) }
}

package enum ChorusNode: NodeDefinition {
    package static let typeNames = ["chorus", "flanger"]
    package static func typeName(of s: ChorusSettings) -> String { s.isFlanger ? "flanger" : "chorus" }

    package enum Range {
        package static let voices: ClosedRange<Double> = 1...8
        package static let rate: ClosedRange<Double> = 0.01...10
        package static let depth: ClosedRange<Double> = 0...20
        package static let centre: ClosedRange<Double> = 0.1...50
        package static let feedback: ClosedRange<Double> = -95...95
        package static let mix: ClosedRange<Double> = 0...100
        package static let phase: ClosedRange<Double> = 0...180
    }

    package static let parameterSpecs = [
        ParameterSpec("voices", range: Range.voices, wholeNumber: true, in: ["chorusNode"]),
        ParameterSpec("rate", unit: "Hz", range: Range.rate, scale: .logarithmic, movesLive: true, in: ["chorusNode"]),
        ParameterSpec("tempo", unit: "bpm", range: DelayNode.Range.tempo, default: 120, movesLive: true, in: ["chorusNode"]),
        ParameterSpec("depth", unit: "ms", range: Range.depth, movesLive: true, in: ["chorusNode"]),
        ParameterSpec("centre", unit: "ms", range: Range.centre, movesLive: true, in: ["chorusNode"]),
        ParameterSpec("feedback", unit: "%", range: Range.feedback, movesLive: true, in: ["chorusNode"]),
        ParameterSpec("mix", unit: "%", range: Range.mix, default: 50, movesLive: true, in: ["chorusNode"]),
        ParameterSpec("phase", unit: "°", range: Range.phase, default: 90, in: ["chorusNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "chorusNode",
            description: "Modulated delay lines: voices taps (chorus 3, flanger 1) swinging depth ms (chorus 3, flanger 2) each side of centre ms (chorus 15, flanger 2.5) at rate Hz (chorus 0.8, flanger 0.25) or a note value per cycle at a tempo, the voices spread over the cycle, the channels phase ° apart (90); their mean fed back at feedback % (chorus 0, flanger 50) and mixed at mix %. Four-point Lagrange reads: no click at any depth or rate.",
            otherKeys: [("note", .object(["enum": .array(DelayNode.noteValues.map { .string($0) })])),
                        ("shape", .object(["enum": .array(LowFrequencyOscillator.Shape.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> ChorusSettings {
        var s = ChorusSettings(flanger: type == "flanger")
        if let f = try o.optional("voices") {
            let n = try f.number(in: Range.voices, unit: "")
            guard n == n.rounded() else { throw PresetError(path: f.path, "\(JSONValue.number(n).brief) is not a whole number of voices") }
            s.voices = Int(n)
        }
        try TempoSyncedRate.decode(&o, rate: &s.rateHz, note: &s.note, tempo: &s.tempo, range: Range.rate)
        if let f = try o.optional("depth") { s.depthMs = try f.number(in: Range.depth, unit: "ms") }
        if let f = try o.optional("centre") { s.centreMs = try f.number(in: Range.centre, unit: "ms") }
        if let f = try o.optional("feedback") { s.feedbackPercent = try f.number(in: Range.feedback, unit: "%") }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.mix, unit: "%") }
        if let f = try o.optional("shape") { s.shape = try f.oneOf(LowFrequencyOscillator.Shape.self) }
        if let f = try o.optional("phase") { s.phaseDegrees = try f.number(in: Range.phase, unit: "°") }
        return s
    }

    package static func encode(_ s: ChorusSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["voices": .number(Double(s.voices)), "depth": .number(s.depthMs), "centre": .number(s.centreMs),
                                      "feedback": .number(s.feedbackPercent), "mix": .number(s.mixPercent), "shape": .string(s.shape.rawValue),
                                      "phase": .number(s.phaseDegrees)]
        if let note = s.note { o["note"] = .string(note); o["tempo"] = .number(s.tempo) } else { o["rate"] = .number(s.rateHz) }
        return o
    }

    /// The longest read any live edit can ask for: the largest centre and depth.
    static func maximumFrames(sampleRate: Double) -> Int { Int(((Range.centre.upperBound + Range.depth.upperBound) / 1000 * sampleRate).rounded(.up)) + 4 }

    package static func lower(_ s: ChorusSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let values = s.values(sampleRate: rate), shape = s.shape, voices = s.voices, phase = s.phaseDegrees / 360
        let motion = node.valuesMotion(motionValues(values))
        let maximum = maximumFrames(sampleRate: rate)
        node.addKernel(KernelRecipe(shape: KernelShape("chorus", [channels, voices], carriesState: true)) {
            var step = ChorusStep(delay: ModulatedDelay(values: values, shape: shape, voices: voices, stereoPhase: phase, sampleRate: rate,
                                                        channelCount: channels, maximumFrames: maximum))
            step.motion = motion?.makeFollower()
            return step
        })
    }

    static func motionValues(_ v: ModulatedDelay.Values) -> [Double] { [v.rateHz, v.centreFrames, v.depthFrames, v.feedback, v.mix] }

    /// Rate (or note and tempo), depth, centre, feedback and mix move; voices, shape and phase are structure.
    package static func liveValues(from old: ChorusSettings, to new: ChorusSettings, sampleRate: Double) -> [Double]? {
        guard old.voices == new.voices, old.shape == new.shape, old.phaseDegrees == new.phaseDegrees, old.isFlanger == new.isFlanger,
              Range.rate.contains(new.frequencyHz) else { return nil }
        return motionValues(new.values(sampleRate: sampleRate))
    }

    package static func summary(of s: ChorusSettings) -> String {
        let rate = TempoSyncedRate.summary(rate: s.rateHz, note: s.note, tempo: s.tempo)
        return "\(s.isFlanger ? "flanger" : "chorus") \(s.voices) voice\(s.voices == 1 ? "" : "s"), \(rate), \(SummaryFormat.number(s.centreMs)) ± \(SummaryFormat.number(s.depthMs)) ms, feedback \(SummaryFormat.number(s.feedbackPercent)) %, mix \(SummaryFormat.number(s.mixPercent)) %"
    }
}

/// A `chorus` node's step: its values moved in place in a live plan.
struct ChorusStep: RenderKernel, ~Copyable {
    var delay: ModulatedDelay
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        delay.retune(ModulatedDelay.Values(rateHz: r[0], centreFrames: r[1], depthFrames: r[2], feedback: r[3], mix: r[4]))
    }

    static let operations = KernelOperations(
        process: { k, b in
            ChorusStep.at(k).pointee.follow()
            ChorusStep.at(k).pointee.delay.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in ChorusStep.at(new).pointee.delay.continueState(from: ChorusStep.at(old).pointee.delay) },
        reset: { k in ChorusStep.at(k).pointee.delay.reset() },
        clearNonFinite: { k in ChorusStep.at(k).pointee.delay.clearNonFinite() })
    deinit { motion?.deallocate() }
}
