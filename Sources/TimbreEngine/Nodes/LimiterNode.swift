import Foundation
import TimbreDSP

// `limiter`: a lookahead brickwall limiter on true peak (`TruePeakLimiter`): ceiling (dBTP),
// release, lookahead (its latency, lookahead + 47 frames), stereo link.

/// The settings of a `limiter` node.
public struct LimiterSettings: NodeParameters {
    /// −20…0 dBTP.
    public var ceilingDB: Double
    public var releaseMs: Double
    public var lookaheadMs: Double
    /// 0…100 %.
    public var linkPercent: Double
    /// `"detector": "sample-peak"`: hold the samples only (cheaper; inter-sample peaks may pass).
    public var samplePeak: Bool
    public init(ceilingDB: Double = -1, releaseMs: Double = 100, lookaheadMs: Double = 2, linkPercent: Double = 100, samplePeak: Bool = false) {
        self.ceilingDB = ceilingDB; self.releaseMs = releaseMs; self.lookaheadMs = lookaheadMs; self.linkPercent = linkPercent
        self.samplePeak = samplePeak
    }

    /// The kernel's settings.
    public var kernelSettings: TruePeakLimiter.Settings {
        TruePeakLimiter.Settings(ceilingDB: ceilingDB, releaseSeconds: releaseMs / 1000, lookaheadSeconds: lookaheadMs / 1000, link: linkPercent / 100,
                                 samplePeak: samplePeak)
    }
}

extension NodeKind {
    /// A true-peak brickwall limiter.
    public static func limiter(_ settings: LimiterSettings) -> NodeKind { NodeKind(settings) }
}

package enum LimiterNode: NodeDefinition {
    package static let typeNames = ["limiter"]
    package static func typeName(of _: LimiterSettings) -> String { "limiter" }

    package static let parameterSpecs = [
        ParameterSpec("ceiling", unit: "dBTP", range: Range.ceiling, default: -1, scale: .decibel, movesLive: true, in: ["limiterNode"]),
        ParameterSpec("release", unit: "ms", range: Range.release, default: 100, movesLive: true, in: ["limiterNode"]),
        ParameterSpec("lookahead", unit: "ms", range: Range.lookahead, default: 2, in: ["limiterNode"]),
        ParameterSpec("link", unit: "%", range: Range.link, default: 100, in: ["limiterNode"]),
    ]

    /// The keys' ranges (the schema file states the same; a test compares).
    package enum Range {
        package static let ceiling: ClosedRange<Double> = -20...0
        package static let release: ClosedRange<Double> = 1...5000
        package static let lookahead: ClosedRange<Double> = 0.5...20
        package static let link: ClosedRange<Double> = 0...100
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> LimiterSettings {
        var s = LimiterSettings()
        if let f = try o.optional("ceiling") { s.ceilingDB = try f.number(in: Range.ceiling, unit: "dBTP") }
        if let f = try o.optional("release") { s.releaseMs = try f.number(in: Range.release, unit: "ms") }
        if let f = try o.optional("lookahead") { s.lookaheadMs = try f.number(in: Range.lookahead, unit: "ms") }
        if let f = try o.optional("link") { s.linkPercent = try f.number(in: Range.link, unit: "%") }
        if let f = try o.optional("detector") {
            switch try f.string() {
            case "true-peak": s.samplePeak = false
            case "sample-peak": s.samplePeak = true
            case let other: throw PresetError(path: f.path, "\"\(other)\" is not allowed (allowed \"true-peak\", \"sample-peak\")")
            }
        }
        return s
    }

    package static func encode(_ s: LimiterSettings) -> [String: JSONValue] {
        // `detector` only when not the default, as the compressor's.
        var o: [String: JSONValue] = ["ceiling": .number(s.ceilingDB), "release": .number(s.releaseMs), "lookahead": .number(s.lookaheadMs), "link": .number(s.linkPercent)]
        if s.samplePeak { o["detector"] = .string("sample-peak") }
        return o
    }

    package static func lower(_ s: LimiterSettings, into node: inout NodeLowering) throws(PresetError) {
        let settings = s.kernelSettings
        let (rate, channels, block) = (node.sampleRate, node.channels, node.maxBlockFrames)
        let lookahead = TruePeakLimiter.lookaheadFrames(settings, sampleRate: rate)
        let reduction = try node.gainReductionState().recorder
        let motion = node.valuesMotion(LimiterStep.motionValues(s, sampleRate: rate))
        node.addKernel(KernelRecipe(shape: KernelShape("limiter", [channels, lookahead, s.samplePeak ? 1 : 0], carriesState: true)) {
            var step = LimiterStep(limiter: TruePeakLimiter(settings: settings, sampleRate: rate, channelCount: channels, maximumBlockFrames: block), reduction: reduction)
            step.motion = motion?.makeFollower()
            return step
        }, latency: TruePeakLimiter.latencyFrames(lookaheadFrames: lookahead, samplePeak: s.samplePeak))
    }

    package static func summary(of s: LimiterSettings) -> String {
        s.samplePeak ? String(format: "limiter %.1f dBFS sample peak, release %g ms, lookahead %g ms", s.ceilingDB, s.releaseMs, s.lookaheadMs)
            : String(format: "limiter %.1f dBTP, release %g ms, lookahead %g ms", s.ceilingDB, s.releaseMs, s.lookaheadMs)
    }
}

/// A `limiter` node's step: the limiter, and its gain reduction published per block.
struct LimiterStep: RenderKernel, ~Copyable {
    var limiter: TruePeakLimiter
    let reduction: GainReductionRecorder
    /// In a live plan: the ceiling (as the detector's factor) and the release coefficient moved
    /// in place (``ValuesMotion``).
    var motion: ValuesMotion.Follower? = nil

    /// Takes a new ceiling and release from the motion, if one was written (audio thread).
    mutating func follow() {
        guard let read = motion?.next() else { return }
        limiter.retune(ceiling: Float(read[0]), releaseCoefficient: Float(read[1]))
    }

    /// The values a motion carries, worked out on the control thread.
    static func motionValues(_ s: LimiterSettings, sampleRate: Double) -> [Double] {
        let k = s.kernelSettings
        return [Double(TruePeakLimiter.ceilingFactor(ceilingDB: k.ceilingDB, marginDB: k.marginDB)),
                Double(TruePeakLimiter.releaseCoefficient(seconds: k.releaseSeconds, sampleRate: sampleRate))]
    }

    static let operations = KernelOperations(
        process: { k, b in
            LimiterStep.at(k).pointee.follow()
            let step = LimiterStep.at(k), frames = b.block.pointee.frameCount
            step.pointee.limiter.process(b.block.pointee.channels, frameCount: frames)
            if b.block.pointee.analyse { step.pointee.reduction.record(lowestGainDB: step.pointee.limiter.lowestGainDB(frameCount: frames)) }
        },
        continueState: { new, old, _ in LimiterStep.at(new).pointee.limiter.continueState(from: LimiterStep.at(old).pointee.limiter) },
        reset: { k in LimiterStep.at(k).pointee.limiter.reset() },
        clearNonFinite: { k in LimiterStep.at(k).pointee.limiter.clearNonFinite() })
    /// Frees the motion's follower (the limiter frees itself).
    deinit { motion?.deallocate() }
}
