import Foundation
import TimbreDSP

// `compressor` and `deesser`: a feed-forward compressor (`Compressor`): threshold, ratio,
// soft knee, attack and release, makeup (or automatic), peak or RMS detector, stereo link,
// lookahead (latency), and a key filter on the sidechain. A `deesser` is a compressor keyed on
// 4–10 kHz, with settings for sibilance.

/// The settings of a `compressor` or `deesser` node (times in ms, levels in dB).
public struct CompressorSettings: NodeParameters {
    /// What the detector hears: the key through a high-pass, a low-pass or a band.
    public typealias KeyFilter = SidechainFilter

    public var thresholdDB: Double = -20
    /// 1…100, or `.infinity` (a limiter's curve).
    public var ratio: Double = 4
    public var kneeDB: Double = 6
    public var attackMs: Double = 10
    public var releaseMs: Double = 100
    /// nil: automatic makeup (`Compressor.Settings.effectiveMakeupDB`).
    public var makeupDB: Double? = 0
    /// nil: peak detector; a window in ms: RMS over it.
    public var rmsWindowMs: Double?
    /// 0…100 %.
    public var linkPercent: Double = 100
    public var lookaheadMs: Double = 0
    public var keyFilter: KeyFilter?
    /// In a graph: the channel or group whose bus (after its chain and pan, before its volume)
    /// the detector hears instead of the node's own input — a voice that ducks music. It must
    /// come before the node's own channel in the graph's order. nil: the input keys itself.
    public var keyChannel: String?
    /// Written as `deesser` (and decoded with its defaults).
    public var isDeEsser = false

    public init(thresholdDB: Double = -20, ratio: Double = 4, kneeDB: Double = 6, attackMs: Double = 10, releaseMs: Double = 100,
                makeupDB: Double? = 0, rmsWindowMs: Double? = nil, linkPercent: Double = 100, lookaheadMs: Double = 0,
                keyFilter: KeyFilter? = nil) {
        self.thresholdDB = thresholdDB; self.ratio = ratio; self.kneeDB = kneeDB; self.attackMs = attackMs; self.releaseMs = releaseMs
        self.makeupDB = makeupDB; self.rmsWindowMs = rmsWindowMs; self.linkPercent = linkPercent; self.lookaheadMs = lookaheadMs
        self.keyFilter = keyFilter
    }

    /// A de-esser's defaults: keyed on 4–10 kHz, threshold −30 dB, ratio 4, attack 1 ms, release 60 ms.
    public static var deEsser: CompressorSettings {
        var s = CompressorSettings(thresholdDB: -30, ratio: 4, kneeDB: 3, attackMs: 1, releaseMs: 60, keyFilter: .band(lowHz: 4000, highHz: 10000))
        s.isDeEsser = true
        return s
    }

    /// The kernel's settings at `sampleRate`.
    public func kernelSettings(sampleRate: Double) -> Compressor.Settings {
        var s = Compressor.Settings(curve: CompressorCurve(thresholdDB: thresholdDB, ratio: ratio, kneeDB: kneeDB),
                                    attackSeconds: attackMs / 1000, releaseSeconds: releaseMs / 1000, makeupDB: makeupDB,
                                    detector: rmsWindowMs.map { .rms(windowSeconds: $0 / 1000) } ?? .peak, link: linkPercent / 100,
                                    lookaheadSeconds: lookaheadMs / 1000, keyFilter: keyFilter?.sections(sampleRate: sampleRate) ?? [])
        if keyChannel != nil { s.externalKeyChannels = 2 }  // a channel or group bus is stereo after its pan
        return s
    }
}

extension NodeKind {
    /// A compressor (or, with ``CompressorSettings/deEsser``, a de-esser).
    public static func compressor(_ settings: CompressorSettings) -> NodeKind { NodeKind(settings) }
}

package enum CompressorNode: NodeDefinition {
    package static let typeNames = ["compressor", "deesser"]
    package static func typeName(of s: CompressorSettings) -> String { s.isDeEsser ? "deesser" : "compressor" }

    /// The compressor's defaults (a de-esser's differ: threshold −30, ratio 4, knee 3, attack 1,
    /// release 60). The window and lookahead change the detector and the latency: a new plan.
    package static let parameterSpecs = [
        ParameterSpec("threshold", unit: "dB", range: Range.threshold, default: -20, scale: .decibel, movesLive: true, controlRange: -60...0, in: ["compressorNode"]),
        ParameterSpec("ratio", unit: ":1", range: Range.ratio, default: 4, scale: .logarithmic, movesLive: true, controlRange: 1...20, in: ["compressorNode"]),
        ParameterSpec("knee", unit: "dB", range: Range.knee, default: 6, scale: .decibel, movesLive: true, in: ["compressorNode"]),
        ParameterSpec("attack", unit: "ms", range: Range.attack, default: 10, movesLive: true, in: ["compressorNode"]),
        ParameterSpec("release", unit: "ms", range: Range.release, default: 100, movesLive: true, in: ["compressorNode"]),
        ParameterSpec("makeup", unit: "dB", range: Range.makeup, default: 0, scale: .decibel, movesLive: true, in: ["compressorNode"]),
        ParameterSpec("window", unit: "ms", range: Range.window, default: 10, in: ["compressorNode"]),
        ParameterSpec("link", unit: "%", range: Range.link, default: 100, movesLive: true, in: ["compressorNode"]),
        ParameterSpec("lookahead", unit: "ms", range: Range.lookahead, default: 0, in: ["compressorNode"]),
    ]

    /// The keys' ranges (the schema file states the same; a test compares).
    package enum Range {
        package static let threshold: ClosedRange<Double> = -80...0
        package static let ratio: ClosedRange<Double> = 1...100
        package static let knee: ClosedRange<Double> = 0...24
        package static let attack: ClosedRange<Double> = 0...500
        package static let release: ClosedRange<Double> = 1...5000
        package static let makeup: ClosedRange<Double> = -24...24
        package static let window: ClosedRange<Double> = 1...1000
        package static let link: ClosedRange<Double> = 0...100
        package static let lookahead: ClosedRange<Double> = 0...20
    }

    package static func decode(type name: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> CompressorSettings {
        var s = name == "deesser" ? CompressorSettings.deEsser : CompressorSettings()
        if let f = try o.optional("threshold") { s.thresholdDB = try f.number(in: Range.threshold, unit: "dB") }
        if let f = try o.optional("ratio") { s.ratio = try f.ratio(in: Range.ratio) }
        if let f = try o.optional("knee") { s.kneeDB = try f.number(in: Range.knee, unit: "dB") }
        if let f = try o.optional("attack") { s.attackMs = try f.number(in: Range.attack, unit: "ms") }
        if let f = try o.optional("release") { s.releaseMs = try f.number(in: Range.release, unit: "ms") }
        if let f = try o.optional("makeup") {
            if case .string(let text) = f.value {
                guard text == "auto" else { throw PresetError(path: f.path, "\"\(text)\" is not a makeup gain (allowed -24…24 dB, or \"auto\")") }
                s.makeupDB = nil
            } else {
                s.makeupDB = try f.number(in: Range.makeup, unit: "dB")
            }
        }
        let detector = try o.optional("detector")
        let window = try o.optional("window")
        switch try detector?.string() ?? "peak" {
        case "peak":
            if let window { throw PresetError(path: window.path, "a window applies to the RMS detector (set \"detector\": \"rms\")") }
        case "rms": s.rmsWindowMs = try window?.number(in: Range.window, unit: "ms") ?? 10
        case let other: throw PresetError(path: detector!.path, "\"\(other)\" is not allowed (allowed \"peak\", \"rms\")")
        }
        if let f = try o.optional("link") { s.linkPercent = try f.number(in: Range.link, unit: "%") }
        if let f = try o.optional("lookahead") { s.lookaheadMs = try f.number(in: Range.lookahead, unit: "ms") }
        if let f = try o.optional("sidechain") { s.keyFilter = try SidechainFilter.decode(f) }
        if let f = try o.optional("key") { s.keyChannel = try f.keyChannel() }
        return s
    }

    package static func encode(_ s: CompressorSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = [
            "threshold": .number(s.thresholdDB), "ratio": s.ratio.isInfinite ? .string("inf") : .number(s.ratio),
            "knee": .number(s.kneeDB), "attack": .number(s.attackMs), "release": .number(s.releaseMs),
            "makeup": s.makeupDB.map { .number($0) } ?? .string("auto"), "link": .number(s.linkPercent), "lookahead": .number(s.lookaheadMs),
        ]
        if let w = s.rmsWindowMs { o["detector"] = .string("rms"); o["window"] = .number(w) }
        if let k = s.keyChannel { o["key"] = .string(k) }
        if let k = s.keyFilter { o["sidechain"] = k.json } else if s.isDeEsser { o["sidechain"] = .object([:]) }
        return o
    }

    package static func lower(_ s: CompressorSettings, into node: inout NodeLowering) throws(PresetError) {
        // A key filter whose pass band lies above the Nyquist limit: the detector would hear
        // nothing, so the node does nothing at this rate (SidechainFilter).
        if let k = s.keyFilter, k.sections(sampleRate: node.sampleRate) == nil { return }
        let settings = s.kernelSettings(sampleRate: node.sampleRate)
        let (rate, channels, block) = (node.sampleRate, node.channels, node.maxBlockFrames)
        let keyBase = try node.keyBusBase(s.keyChannel)
        let latency = Int((settings.lookaheadSeconds * rate).rounded())
        let reduction = try node.gainReductionState().recorder
        let motion = node.valuesMotion(CompressorStep.motionValues(s, sampleRate: rate))
        node.addKernel(KernelRecipe(shape: KernelShape("compressor", [channels, latency, settings.keyFilter.count, keyBase], carriesState: true)) {
            var step = CompressorStep(compressor: Compressor(settings: settings, sampleRate: rate, channelCount: channels, maximumBlockFrames: block),
                                      reduction: reduction, keyBase: keyBase)
            step.motion = motion?.makeFollower()
            return step
        }, latency: latency)
    }

    /// The small-signal response (below the knee): the makeup gain, flat.
    package static func response(of s: CompressorSettings, sampleRate: Double) -> NodeResponse {
        .linear(sections: [], gainDB: s.makeupDB ?? CompressorCurve(thresholdDB: s.thresholdDB, ratio: s.ratio, kneeDB: s.kneeDB).automaticMakeupDB, markersHz: [])
    }

    package static func summary(of s: CompressorSettings) -> String {
        let ratio = s.ratio.isInfinite ? "inf" : String(format: "%g", s.ratio)
        var text = (s.isDeEsser ? "deesser" : "compressor") + String(format: " %.1f dB %@:1 knee %g dB, attack %g ms, release %g ms", s.thresholdDB, ratio, s.kneeDB, s.attackMs, s.releaseMs)
        if let w = s.rmsWindowMs { text += String(format: ", RMS %g ms", w) }
        if s.lookaheadMs > 0 { text += String(format: ", lookahead %g ms", s.lookaheadMs) }
        text += s.keyFilter?.summary ?? ""
        if let k = s.keyChannel { text += ", keyed by \(k)" }
        return text
    }
}

/// A `compressor` or `deesser` node's step: the compressor, and its gain reduction published per block.
struct CompressorStep: RenderKernel, ~Copyable {
    var compressor: Compressor
    let reduction: GainReductionRecorder
    /// The first work channel of the key's bus (−1: the input keys itself).
    let keyBase: Int
    /// In a live plan: threshold, ratio, knee, makeup (NaN: automatic), attack, release (s) and
    /// link moved in place (``ValuesMotion``).
    var motion: ValuesMotion.Follower? = nil

    /// Takes a new set of settings from the motion, if one was written. Audio thread (a thunk
    /// into `ValuesMotion.Handle.read` and `Compressor.retune`, each checked `@_noLocks`).
    mutating func follow() {
        guard let read = motion?.next() else { return }
        compressor.retune(curve: CompressorCurve(thresholdDB: read[0], ratio: read[1], kneeDB: read[2]), makeupDB: read[3].isNaN ? nil : read[3],
                          attackCoefficient: read[4], releaseCoefficient: read[5], link: read[6])
    }

    /// The values a motion carries: the curve, makeup (NaN: automatic), the attack and release
    /// smoothing coefficients at `sampleRate` (worked out here, on the control thread), link.
    static func motionValues(_ s: CompressorSettings, sampleRate: Double) -> [Double] {
        [s.thresholdDB, s.ratio, s.kneeDB, s.makeupDB ?? .nan, Compressor.coefficient(s.attackMs / 1000, sampleRate),
         Compressor.coefficient(s.releaseMs / 1000, sampleRate), s.linkPercent / 100]
    }

    static let operations = KernelOperations(
        process: { k, b in
            CompressorStep.at(k).pointee.follow()
            let step = CompressorStep.at(k), frames = b.block.pointee.frameCount, keyBase = step.pointee.keyBase
            step.pointee.compressor.process(b.block.pointee.channels, key: keyBase >= 0 ? b.block.pointee.work + keyBase : nil, frameCount: frames)
            if b.block.pointee.analyse { step.pointee.reduction.record(lowestGainDB: step.pointee.compressor.lowestGainDB(frameCount: frames)) }
        },
        continueState: { new, old, _ in CompressorStep.at(new).pointee.compressor.continueState(from: CompressorStep.at(old).pointee.compressor) },
        reset: { k in CompressorStep.at(k).pointee.compressor.reset() },
        clearNonFinite: { k in CompressorStep.at(k).pointee.compressor.clearNonFinite() })
    /// Frees the motion's follower (the compressor frees itself).
    deinit { motion?.deallocate() }
}
