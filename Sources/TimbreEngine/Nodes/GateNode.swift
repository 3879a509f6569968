import Foundation
import TimbreDSP

// `gate` and `expander`: a downward expander below a threshold (`Gate`): ratio (∞ for a
// gate), range, attack, hold, release, hysteresis, stereo link.

/// The settings of a `gate` or `expander` node (times in ms, levels in dB).
public struct GateSettings: NodeParameters {
    public var thresholdDB: Double = -50
    /// 1…100 for an expander; `.infinity` for a gate.
    public var ratio: Double = .infinity
    public var rangeDB: Double = 60
    public var attackMs: Double = 1
    public var holdMs: Double = 50
    public var releaseMs: Double = 100
    public var hysteresisDB: Double = 3
    /// 0…100 %.
    public var linkPercent: Double = 100
    /// In a graph: the channel or group whose bus (after its chain and pan) the detector hears
    /// instead of the node's own input; it must be rendered earlier. nil: the input keys itself.
    public var keyChannel: String?
    /// What the detector hears of the key: a high-pass, low-pass or band (`"sidechain"`).
    public var keyFilter: SidechainFilter?
    /// Written as `expander` (and decoded with its defaults).
    public var isExpander = false

    public init(thresholdDB: Double = -50, ratio: Double = .infinity, rangeDB: Double = 60, attackMs: Double = 1, holdMs: Double = 50,
                releaseMs: Double = 100, hysteresisDB: Double = 3, linkPercent: Double = 100) {
        self.thresholdDB = thresholdDB; self.ratio = ratio; self.rangeDB = rangeDB; self.attackMs = attackMs; self.holdMs = holdMs
        self.releaseMs = releaseMs; self.hysteresisDB = hysteresisDB; self.linkPercent = linkPercent
    }

    /// An expander's defaults: ratio 2, range 20 dB, threshold −40 dB, release 200 ms, no hysteresis.
    public static var expander: GateSettings {
        var s = GateSettings(thresholdDB: -40, ratio: 2, rangeDB: 20, attackMs: 5, holdMs: 20, releaseMs: 200, hysteresisDB: 0)
        s.isExpander = true
        return s
    }

    /// The kernel's settings at `sampleRate`.
    public func kernelSettings(sampleRate: Double) -> Gate.Settings {
        var s = Gate.Settings(thresholdDB: thresholdDB, ratio: ratio, rangeDB: rangeDB, attackSeconds: attackMs / 1000, holdSeconds: holdMs / 1000,
                              releaseSeconds: releaseMs / 1000, hysteresisDB: hysteresisDB, link: linkPercent / 100)
        if keyChannel != nil { s.externalKeyChannels = 2 }  // a channel or group bus is stereo after its pan
        s.keyFilter = keyFilter?.sections(sampleRate: sampleRate) ?? []
        return s
    }
}

extension NodeKind {
    /// A noise gate (or, with ``GateSettings/expander``, a downward expander).
    public static func gate(_ settings: GateSettings) -> NodeKind { NodeKind(settings) }
}

package enum GateNode: NodeDefinition {
    package static let typeNames = ["gate", "expander"]

    /// The gate's defaults (an expander's differ: ratio 2, range 20, threshold −40 …).
    package static let parameterSpecs = [
        ParameterSpec("threshold", unit: "dB", range: Range.threshold, default: -50, scale: .decibel, movesLive: true, in: ["gateNode"]),
        ParameterSpec("ratio", unit: "1:n", range: Range.ratio, scale: .logarithmic, movesLive: true, in: ["gateNode"]),  // default "inf" (a gate)
        ParameterSpec("range", unit: "dB", range: Range.range, default: 60, scale: .decibel, movesLive: true, in: ["gateNode"]),
        ParameterSpec("attack", unit: "ms", range: Range.attack, default: 1, movesLive: true, in: ["gateNode"]),
        ParameterSpec("hold", unit: "ms", range: Range.hold, default: 50, movesLive: true, in: ["gateNode"]),
        ParameterSpec("release", unit: "ms", range: Range.release, default: 100, movesLive: true, in: ["gateNode"]),
        ParameterSpec("hysteresis", unit: "dB", range: Range.hysteresis, default: 3, scale: .decibel, movesLive: true, in: ["gateNode"]),
        ParameterSpec("link", unit: "%", range: Range.link, default: 100, movesLive: true, in: ["gateNode"]),
    ]
    package static func typeName(of s: GateSettings) -> String { s.isExpander ? "expander" : "gate" }

    /// The keys' ranges (the schema file states the same; a test compares).
    package enum Range {
        package static let threshold: ClosedRange<Double> = -100...0
        package static let ratio: ClosedRange<Double> = 1...100
        package static let range: ClosedRange<Double> = 0...120
        package static let attack: ClosedRange<Double> = 0...500
        package static let hold: ClosedRange<Double> = 0...5000
        package static let release: ClosedRange<Double> = 1...5000
        package static let hysteresis: ClosedRange<Double> = 0...24
        package static let link: ClosedRange<Double> = 0...100
    }

    package static func decode(type name: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> GateSettings {
        var s = name == "expander" ? GateSettings.expander : GateSettings()
        if let f = try o.optional("threshold") { s.thresholdDB = try f.number(in: Range.threshold, unit: "dB") }
        if let f = try o.optional("ratio") { s.ratio = try f.ratio(in: Range.ratio) }
        if let f = try o.optional("range") { s.rangeDB = try f.number(in: Range.range, unit: "dB") }
        if let f = try o.optional("attack") { s.attackMs = try f.number(in: Range.attack, unit: "ms") }
        if let f = try o.optional("hold") { s.holdMs = try f.number(in: Range.hold, unit: "ms") }
        if let f = try o.optional("release") { s.releaseMs = try f.number(in: Range.release, unit: "ms") }
        if let f = try o.optional("hysteresis") { s.hysteresisDB = try f.number(in: Range.hysteresis, unit: "dB") }
        if let f = try o.optional("link") { s.linkPercent = try f.number(in: Range.link, unit: "%") }
        if let f = try o.optional("key") { s.keyChannel = try f.keyChannel() }
        if let f = try o.optional("sidechain") { s.keyFilter = try SidechainFilter.decode(f) }
        return s
    }

    package static func encode(_ s: GateSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = [
            "threshold": .number(s.thresholdDB), "ratio": s.ratio.isInfinite ? .string("inf") : .number(s.ratio), "range": .number(s.rangeDB),
            "attack": .number(s.attackMs), "hold": .number(s.holdMs), "release": .number(s.releaseMs),
            "hysteresis": .number(s.hysteresisDB), "link": .number(s.linkPercent)]
        if let k = s.keyChannel { o["key"] = .string(k) }
        if let f = s.keyFilter { o["sidechain"] = f.json }
        return o
    }

    package static func lower(_ s: GateSettings, into node: inout NodeLowering) throws(PresetError) {
        // A key filter whose pass band lies above the Nyquist limit: the detector would hear
        // nothing (a gate would stay shut), so the node is left out at this rate (SidechainFilter).
        if let k = s.keyFilter, k.sections(sampleRate: node.sampleRate) == nil { return }
        let settings = s.kernelSettings(sampleRate: node.sampleRate)
        let (rate, channels, block) = (node.sampleRate, node.channels, node.maxBlockFrames)
        let keyBase = try node.keyBusBase(s.keyChannel)
        let reduction = try node.gainReductionState().recorder
        let motion = node.valuesMotion(GateStep.motionValues(s, sampleRate: rate))
        node.addKernel(KernelRecipe(shape: KernelShape("gate", [channels, keyBase, settings.keyFilter.count], carriesState: true)) {
            var step = GateStep(gate: Gate(settings: settings, sampleRate: rate, channelCount: channels, maximumBlockFrames: block),
                                reduction: reduction, keyBase: keyBase)
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Above the threshold the gate passes the spectrum unchanged.
    package static func response(of s: GateSettings, sampleRate: Double) -> NodeResponse {
        .linear(sections: [], gainDB: 0, markersHz: [])
    }

    package static func summary(of s: GateSettings) -> String {
        let ratio = s.ratio.isInfinite ? "inf" : String(format: "%g", s.ratio)
        return (s.isExpander ? "expander" : "gate") + String(format: " %.1f dB %@:1 range %g dB, attack %g ms, hold %g ms, release %g ms, hysteresis %g dB",
                                                              s.thresholdDB, ratio, s.rangeDB, s.attackMs, s.holdMs, s.releaseMs, s.hysteresisDB)
            + (s.keyFilter?.summary ?? "") + (s.keyChannel.map { ", keyed by \($0)" } ?? "")
    }
}

/// A `gate` or `expander` node's step: the gate, and its gain reduction published per block.
struct GateStep: RenderKernel, ~Copyable {
    var gate: Gate
    let reduction: GainReductionRecorder
    /// The first work channel of the key's bus (−1: the input keys itself).
    let keyBase: Int
    /// In a live plan: threshold, ratio, range, hysteresis, the attack and release
    /// coefficients, hold (frames) and link moved in place (``ValuesMotion``).
    var motion: ValuesMotion.Follower? = nil

    /// Takes a new set of settings from the motion, if one was written (audio thread).
    mutating func follow() {
        guard let read = motion?.next() else { return }
        gate.retune(law: Gate.StaticLaw(thresholdDB: read[0], ratio: read[1], rangeDB: read[2], hysteresisDB: read[3]),
                    attack: read[4], release: read[5], holdFrames: Int(read[6]), link: read[7])
    }

    /// The values a motion carries, worked out on the control thread.
    static func motionValues(_ s: GateSettings, sampleRate: Double) -> [Double] {
        [s.thresholdDB, s.ratio, s.rangeDB, s.hysteresisDB, Gate.coefficient(s.attackMs / 1000, sampleRate), Gate.coefficient(s.releaseMs / 1000, sampleRate),
         (s.holdMs / 1000 * sampleRate).rounded(), s.linkPercent / 100]
    }

    static let operations = KernelOperations(
        process: { k, b in
            GateStep.at(k).pointee.follow()
            let step = GateStep.at(k), frames = b.block.pointee.frameCount, keyBase = step.pointee.keyBase
            step.pointee.gate.process(b.block.pointee.channels, key: keyBase >= 0 ? b.block.pointee.work + keyBase : nil, frameCount: frames)
            if b.block.pointee.analyse { step.pointee.reduction.record(lowestGainDB: step.pointee.gate.lowestGainDB(frameCount: frames)) }
        },
        continueState: { new, old, _ in GateStep.at(new).pointee.gate.continueState(from: GateStep.at(old).pointee.gate) },
        reset: { k in GateStep.at(k).pointee.gate.reset() },
        clearNonFinite: { k in GateStep.at(k).pointee.gate.clearNonFinite() })
    /// Frees the motion's follower (the gate frees itself).
    deinit { motion?.deallocate() }
}
