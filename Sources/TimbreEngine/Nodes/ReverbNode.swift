import Foundation
import TimbreDSP

// `reverb`: a 16-line feedback delay network (`FeedbackDelayNetwork`), with rooms named after
// AVAudioUnitReverb's factory presets as starting points.

/// The settings of a `reverb` node.
public struct ReverbSettings: NodeParameters {
    /// The factory room the other values started from (nil: the defaults, a medium hall).
    public var room: String?
    public var decay: Double = 1.8
    public var lowMultiplier: Double = 1.2
    public var highMultiplier: Double = 0.5
    public var lowCrossoverHz: Double = 250
    public var highCrossoverHz: Double = 4_000
    public var predelayMs: Double = 15
    public var size: Double = 1
    public var diffusionPercent: Double = 75
    public var earlyDB: Double = -8
    public var widthPercent: Double = 100
    public var modulationPercent: Double = 50
    public var freeze = false
    public var mixPercent: Double = 30
    public init() {}

    /// The kernel's values at `sampleRate`.
    public func values(sampleRate: Double) -> FeedbackDelayNetwork.Values {
        FeedbackDelayNetwork.Values(decay: decay, lowMultiplier: lowMultiplier, highMultiplier: highMultiplier, lowCrossoverHz: lowCrossoverHz,
                                    highCrossoverHz: highCrossoverHz, diffusion: diffusionPercent / 100, early: earlyDB <= -60 ? 0 : GainUnits.linear(fromDB: earlyDB),
                                    width: widthPercent / 100, modulationFrames: modulationPercent / 100 * 0.002 * sampleRate, freeze: freeze, mix: mixPercent / 100)
    }
}

extension NodeKind {
    /// An algorithmic reverb.
    public static func reverb(_ settings: ReverbSettings) -> NodeKind { NodeKind(settings) }
}

package enum ReverbNode: NodeDefinition {
    package static let typeNames = ["reverb"]
    package static func typeName(of _: ReverbSettings) -> String { "reverb" }

    package enum Range {
        package static let decay: ClosedRange<Double> = 0.1...30
        package static let lowMultiplier: ClosedRange<Double> = 0.25...4
        package static let highMultiplier: ClosedRange<Double> = 0.1...2
        package static let lowCrossover: ClosedRange<Double> = 50...1_000
        package static let highCrossover: ClosedRange<Double> = 1_000...16_000
        package static let predelay: ClosedRange<Double> = 0...500
        package static let size: ClosedRange<Double> = 0.25...2
        package static let percent: ClosedRange<Double> = 0...100
        package static let early: ClosedRange<Double> = -60...6
        package static let width: ClosedRange<Double> = 0...200
    }

    /// AVAudioUnitReverb's factory rooms as starting points: decay (s), size, predelay (ms),
    /// low and high multipliers, diffusion (%), early reflections (dB).
    package static let rooms: [(name: String, decay: Double, size: Double, predelay: Double, low: Double, high: Double, diffusion: Double, early: Double)] = [
        ("small-room", 0.4, 0.35, 2, 1.1, 0.6, 60, -4), ("medium-room", 0.7, 0.5, 5, 1.1, 0.55, 65, -5),
        ("large-room", 1.1, 0.7, 8, 1.1, 0.5, 70, -6), ("large-room-2", 1.3, 0.8, 10, 1.2, 0.45, 70, -6),
        ("medium-chamber", 1.3, 0.6, 6, 1.0, 0.6, 85, -7), ("large-chamber", 1.9, 0.8, 10, 1.0, 0.55, 85, -8),
        ("medium-hall", 1.8, 1.0, 15, 1.2, 0.5, 75, -8), ("medium-hall-2", 2.0, 1.0, 20, 1.3, 0.45, 75, -8),
        ("medium-hall-3", 2.2, 1.1, 25, 1.2, 0.5, 80, -9), ("large-hall", 2.8, 1.4, 25, 1.3, 0.45, 80, -10),
        ("large-hall-2", 3.5, 1.6, 30, 1.4, 0.4, 80, -10), ("plate", 2.0, 0.6, 0, 1.0, 0.7, 100, -60),
        ("cathedral", 6.0, 2.0, 40, 1.5, 0.35, 85, -12),
    ]

    package static let parameterSpecs = [
        ParameterSpec("decay", unit: "s", range: Range.decay, default: 1.8, scale: .logarithmic, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("lowMultiplier", range: Range.lowMultiplier, default: 1.2, scale: .logarithmic, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("highMultiplier", range: Range.highMultiplier, default: 0.5, scale: .logarithmic, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("lowCrossover", unit: "Hz", range: Range.lowCrossover, default: 250, scale: .logarithmic, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("highCrossover", unit: "Hz", range: Range.highCrossover, default: 4_000, scale: .logarithmic, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("predelay", unit: "ms", range: Range.predelay, default: 15, in: ["reverbNode"]),
        ParameterSpec("size", range: Range.size, default: 1, in: ["reverbNode"]),
        ParameterSpec("diffusion", unit: "%", range: Range.percent, default: 75, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("early", unit: "dB", range: Range.early, default: -8, scale: .decibel, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("width", unit: "%", range: Range.width, default: 100, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("modulation", unit: "%", range: Range.percent, default: 50, movesLive: true, in: ["reverbNode"]),
        ParameterSpec("mix", unit: "%", range: Range.percent, default: 30, movesLive: true, in: ["reverbNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "reverbNode",
            description: "An algorithmic reverb: a 16-line feedback delay network (Hadamard matrix) whose tail decays in decay seconds (T60) at mid frequencies, lowMultiplier × that below lowCrossover and highMultiplier × that above highCrossover; predelay (ms), size (the lines' lengths, 0.25…2), diffusion (%), early reflections (dB, −60: none), width (%), modulation of the lines' lengths (% of 2 ms) against metallic ringing, freeze (holds the tail, no new input), mix (%). room starts from one of AVAudioUnitReverb's factory rooms; keys given beside it override it.",
            otherKeys: [("room", .object(["enum": .array(rooms.map { .string($0.name) })])),
                        ("freeze", .object(["type": .string("boolean")]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> ReverbSettings {
        var s = ReverbSettings()
        if let f = try o.optional("room") {
            let name = try f.string()
            guard let r = rooms.first(where: { $0.name == name }) else {
                throw PresetError(path: f.path, "\"\(name)\" is not a room (allowed \(rooms.map { "\"\($0.name)\"" }.joined(separator: ", ")))")
            }
            s.room = name; s.decay = r.decay; s.size = r.size; s.predelayMs = r.predelay; s.lowMultiplier = r.low; s.highMultiplier = r.high
            s.diffusionPercent = r.diffusion; s.earlyDB = r.early
        }
        if let f = try o.optional("decay") { s.decay = try f.number(in: Range.decay, unit: "s") }
        if let f = try o.optional("lowMultiplier") { s.lowMultiplier = try f.number(in: Range.lowMultiplier, unit: "") }
        if let f = try o.optional("highMultiplier") { s.highMultiplier = try f.number(in: Range.highMultiplier, unit: "") }
        if let f = try o.optional("lowCrossover") { s.lowCrossoverHz = try f.number(in: Range.lowCrossover, unit: "Hz") }
        if let f = try o.optional("highCrossover") { s.highCrossoverHz = try f.number(in: Range.highCrossover, unit: "Hz") }
        if let f = try o.optional("predelay") { s.predelayMs = try f.number(in: Range.predelay, unit: "ms") }
        if let f = try o.optional("size") { s.size = try f.number(in: Range.size, unit: "") }
        if let f = try o.optional("diffusion") { s.diffusionPercent = try f.number(in: Range.percent, unit: "%") }
        if let f = try o.optional("early") { s.earlyDB = try f.number(in: Range.early, unit: "dB") }
        if let f = try o.optional("width") { s.widthPercent = try f.number(in: Range.width, unit: "%") }
        if let f = try o.optional("modulation") { s.modulationPercent = try f.number(in: Range.percent, unit: "%") }
        if let f = try o.optional("freeze") { s.freeze = try f.bool() }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.percent, unit: "%") }
        return s
    }

    package static func encode(_ s: ReverbSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = [
            "decay": .number(s.decay), "lowMultiplier": .number(s.lowMultiplier), "highMultiplier": .number(s.highMultiplier),
            "lowCrossover": .number(s.lowCrossoverHz), "highCrossover": .number(s.highCrossoverHz), "predelay": .number(s.predelayMs),
            "size": .number(s.size), "diffusion": .number(s.diffusionPercent), "early": .number(s.earlyDB), "width": .number(s.widthPercent),
            "modulation": .number(s.modulationPercent), "mix": .number(s.mixPercent),
        ]
        if let room = s.room { o["room"] = .string(room) }
        if s.freeze { o["freeze"] = .bool(true) }
        return o
    }

    package static func lower(_ s: ReverbSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let values = s.values(sampleRate: rate), size = s.size, predelay = s.predelayMs / 1000
        let motion = node.valuesMotion(motionValues(values, size: size, sampleRate: rate))
        node.addKernel(KernelRecipe(shape: KernelShape("reverb", [channels, Int((size * 1000).rounded()), Int((predelay * rate).rounded())], carriesState: true)) {
            var step = ReverbStep(reverb: FeedbackDelayNetwork(values: values, size: size, predelaySeconds: predelay, sampleRate: rate, channelCount: channels))
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// The values a motion carries: the settings, then the lines' absorption designed here
    /// (the audio thread only copies it).
    static func motionValues(_ v: FeedbackDelayNetwork.Values, size: Double, sampleRate: Double) -> [Double] {
        [v.decay, v.lowMultiplier, v.highMultiplier, v.lowCrossoverHz, v.highCrossoverHz, v.diffusion, v.early, v.width, v.modulationFrames, v.freeze ? 1 : 0, v.mix]
            + FeedbackDelayNetwork.absorption(v, lengths: FeedbackDelayNetwork.lineLengths(size: size, sampleRate: sampleRate), sampleRate: sampleRate)
    }

    /// Everything but size and predelay (the lines' and the predelay's lengths) moves.
    package static func liveValues(from old: ReverbSettings, to new: ReverbSettings, sampleRate: Double) -> [Double]? {
        guard old.size == new.size, old.predelayMs == new.predelayMs else { return nil }
        return motionValues(new.values(sampleRate: sampleRate), size: new.size, sampleRate: sampleRate)
    }

    package static func summary(of s: ReverbSettings) -> String {
        var text = "reverb " + (s.room.map { $0 + ", " } ?? "") + "decay \(SummaryFormat.number(s.decay)) s (low × \(SummaryFormat.number(s.lowMultiplier)), high × \(SummaryFormat.number(s.highMultiplier))), size \(SummaryFormat.number(s.size)), predelay \(SummaryFormat.number(s.predelayMs)) ms, mix \(SummaryFormat.number(s.mixPercent)) %"
        if s.freeze { text += ", frozen" }
        return text
    }
}

/// A `reverb` node's step: its values moved in place in a live plan.
struct ReverbStep: RenderKernel, ~Copyable {
    var reverb: FeedbackDelayNetwork
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        reverb.retune(FeedbackDelayNetwork.Values(decay: r[0], lowMultiplier: r[1], highMultiplier: r[2], lowCrossoverHz: r[3], highCrossoverHz: r[4],
                                                  diffusion: r[5], early: r[6], width: r[7], modulationFrames: r[8], freeze: r[9] != 0, mix: r[10]),
                      absorption: r + 11)
    }

    static let operations = KernelOperations(
        process: { k, b in
            ReverbStep.at(k).pointee.follow()
            ReverbStep.at(k).pointee.reverb.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in ReverbStep.at(new).pointee.reverb.continueState(from: ReverbStep.at(old).pointee.reverb) },
        reset: { k in ReverbStep.at(k).pointee.reverb.reset() },
        clearNonFinite: { k in ReverbStep.at(k).pointee.reverb.clearNonFinite() })
    deinit { motion?.deallocate() }
}
