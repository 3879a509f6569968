import Foundation
import TimbreDSP

// `denoise`: spectral noise reduction for speech (`SpectralDenoiser`): the noise tracked, or
// learned from a file `timbre noise-profile` writes; a latency of one window and four hops, reported.

/// The settings of a `denoise` node.
public struct DenoiseSettings: NodeParameters {
    /// Where a learned noise profile comes from.
    public enum ProfileSource: Sendable, Equatable {
        /// A file `timbre noise-profile` wrote (relative names from the preset's folder).
        case file(String)
        /// Given in the preset.
        case inline(NoiseProfile)
    }
    public var reductionDB: Double = 22
    public var sensitivityDB: Double = 0
    /// Whether the noise estimate follows the input (a profile then only starts it).
    public var adaptive = true
    public var profile: ProfileSource? = nil
    /// Bins centred below this, Hz, always turned fully down (rumble); 0: none.
    public var lowCutHz: Double = 60
    public init() {}
}

extension NodeKind {
    /// A spectral noise reducer for speech.
    public static func denoise(_ settings: DenoiseSettings) -> NodeKind { NodeKind(settings) }
}

extension NoiseProfile {
    /// The profile as JSON: `{"frequencies": [Hz…], "levels": [dB…], "thresholds": [dB…]}`
    /// (thresholds when learned).
    public var json: JSONValue {
        var o: [String: JSONValue] = ["frequencies": .array(frequencies.map { .number(($0 * 100).rounded() / 100) }),
                                      "levels": .array(levelsDB.map { .number(($0 * 100).rounded() / 100) })]
        if let thresholdsDB { o["thresholds"] = .array(thresholdsDB.map { .number(($0 * 100).rounded() / 100) }) }
        return .object(o)
    }

    /// The range of a profile's speech thresholds, dB over its levels.
    public static let thresholdRange: ClosedRange<Double> = 0...40

    /// A profile from its JSON at `path` (rising frequencies, one level each, finite).
    public init(json value: JSONValue, path: String) throws(PresetError) {
        var o = try ObjectReader(value, path: path)
        let frequencies = try o.required("frequencies"), levels = try o.required("levels")
        var hz: [Double] = [], db: [Double] = []
        for (i, v) in try frequencies.array().enumerated() {
            let f = try Field(value: v, path: frequencies.path + "[\(i)]").number(in: 0...1_000_000, unit: "Hz")
            if let last = hz.last, f <= last { throw PresetError(path: frequencies.path + "[\(i)]", "\(JSONValue.number(f).brief) Hz does not rise from \(JSONValue.number(last).brief) Hz") }
            hz.append(f)
        }
        for (i, v) in try levels.array().enumerated() { db.append(try Field(value: v, path: levels.path + "[\(i)]").number(in: -300...100, unit: "dB")) }
        var thresholds: [Double]? = nil
        if let t = try o.optional("thresholds") {
            var values: [Double] = []
            for (i, v) in try t.array().enumerated() { values.append(try Field(value: v, path: t.path + "[\(i)]").number(in: Self.thresholdRange, unit: "dB")) }
            guard values.count == hz.count else {
                throw PresetError(path: t.path, "a noise profile needs one threshold per frequency (\(hz.count) frequencies, \(values.count) thresholds)")
            }
            thresholds = values
        }
        try o.finish()
        guard !hz.isEmpty, hz.count == db.count else {
            throw PresetError(path: path, "a noise profile needs one level per frequency (\(hz.count) frequencies, \(db.count) levels)")
        }
        self.init(frequencies: hz, levelsDB: db, thresholdsDB: thresholds)
    }
}

package enum DenoiseNode: NodeDefinition {
    package static let typeNames = ["denoise"]
    package static func typeName(of _: DenoiseSettings) -> String { "denoise" }

    package enum Range {
        package static let reduction: ClosedRange<Double> = 0...40
        package static let sensitivity: ClosedRange<Double> = -12...12
        package static let lowCut: ClosedRange<Double> = 0...200
    }

    package static let parameterSpecs = [
        ParameterSpec("reduction", unit: "dB", range: Range.reduction, default: 22, movesLive: true, in: ["denoiseNode"]),
        ParameterSpec("sensitivity", unit: "dB", range: Range.sensitivity, default: 0, movesLive: true, in: ["denoiseNode"]),
        ParameterSpec("lowCut", unit: "Hz", range: Range.lowCut, default: 60, in: ["denoiseNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "denoiseNode",
            description: "Spectral noise reduction for speech: 1,024-point square-root Hann frames at 44.1/48 kHz (the power of two at or above 20 ms), hop a quarter; noise power tracked by minimum statistics (Martin 2001) or learned (profile: a file timbre noise-profile writes, or {frequencies, levels, thresholds}); gains by the MMSE log-spectral amplitude rule with the decision-directed a-priori SNR (Ephraim & Malah 1985), passed untouched where speech stands out (bins 3.85 times over the noise, or over a profile's thresholds for noise that fluctuates more, such as babble; smoothed over ±5 bins and ±4 hops: the gain is P + (1 - P)·G²). reduction is the most any bin is turned down (the residual-noise floor), sensitivity raises (+) or lowers the noise estimate, lowCut turns bins centred below it fully down (rumble; 0 for none), adaptive false keeps a profile fixed. Latency one window and four hops of look-ahead (42.7 ms at 48 kHz), reported. Reduction and sensitivity move live.",
            otherKeys: [("adaptive", .object(["type": .string("boolean")])),
                        ("profile", .object(["oneOf": .array([.object(["type": .string("string")]), .object(["type": .string("object")])])]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> DenoiseSettings {
        var s = DenoiseSettings()
        if let f = try o.optional("reduction") { s.reductionDB = try f.number(in: Range.reduction, unit: "dB") }
        if let f = try o.optional("sensitivity") { s.sensitivityDB = try f.number(in: Range.sensitivity, unit: "dB") }
        if let f = try o.optional("lowCut") { s.lowCutHz = try f.number(in: Range.lowCut, unit: "Hz") }
        if let f = try o.optional("adaptive") { s.adaptive = try f.bool() }
        if let f = try o.optional("profile") {
            if case .string(let name) = f.value {
                guard !name.isEmpty else { throw PresetError(path: f.path, "an empty file name") }
                s.profile = .file(name)
            } else {
                s.profile = .inline(try NoiseProfile(json: f.value, path: f.path))
            }
        }
        if !s.adaptive && s.profile == nil { throw PresetError(path: o.child("adaptive"), "adaptive false needs a profile (the noise to keep)") }
        return s
    }

    package static func encode(_ s: DenoiseSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["reduction": .number(s.reductionDB), "sensitivity": .number(s.sensitivityDB), "lowCut": .number(s.lowCutHz)]
        if !s.adaptive { o["adaptive"] = .bool(false) }
        switch s.profile {
        case .file(let name): o["profile"] = .string(name)
        case .inline(let p): o["profile"] = p.json
        case nil: break
        }
        return o
    }

    /// The profile `s` names, read and checked (a file through the host's reader).
    static func profile(_ s: DenoiseSettings, node: NodeLowering) throws(PresetError) -> NoiseProfile? {
        switch s.profile {
        case nil: return nil
        case .inline(let p): return p
        case .file(let name):
            let path = node.path + ".profile"
            guard let reader = node.registry?.services.files else { throw PresetError(path: path, NodeFileReader.missing) }
            let bytes = try reader.bytes(name, path)
            let json: JSONValue
            do { json = try PresetDecoder.parse(Data(bytes)) } catch { throw PresetError(path: path, "\(name): \(error.message)") }
            do { return try NoiseProfile(json: json, path: "") } catch { throw PresetError(path: path, "\(name): \(error.path.isEmpty ? "" : error.path + ": ")\(error.message)") }
        }
    }

    package static func lower(_ s: DenoiseSettings, into node: inout NodeLowering) throws(PresetError) {
        let profile = try profile(s, node: node)
        let (rate, channels) = (node.sampleRate, node.channels)
        let settings = SpectralDenoiser.Settings(reductionDB: s.reductionDB, sensitivityDB: s.sensitivityDB, tracking: s.adaptive, profile: profile, lowCutHz: s.lowCutHz)
        let motion = node.valuesMotion([s.reductionDB, s.sensitivityDB])
        let window = SpectralDenoiser.windowLength(sampleRate: rate)
        node.addKernel(KernelRecipe(shape: KernelShape("denoise", [channels, window], carriesState: true)) {
            var step = DenoiseStep(denoiser: SpectralDenoiser(settings: settings, sampleRate: rate, channelCount: channels))
            step.motion = motion?.makeFollower()
            return step
        }, latency: SpectralDenoiser.latencyFrames(sampleRate: rate))
    }

    /// Reduction and sensitivity move; the profile, tracking and low cut are structure.
    package static func liveValues(from old: DenoiseSettings, to new: DenoiseSettings, sampleRate _: Double) -> [Double]? {
        old.profile == new.profile && old.adaptive == new.adaptive && old.lowCutHz == new.lowCutHz ? [new.reductionDB, new.sensitivityDB] : nil
    }

    package static func summary(of s: DenoiseSettings) -> String {
        var text = "denoise up to \(SummaryFormat.number(s.reductionDB)) dB"
        if s.sensitivityDB != 0 { text += ", sensitivity \(SummaryFormat.number(s.sensitivityDB)) dB" }
        if s.lowCutHz != 60 { text += ", low cut \(SummaryFormat.number(s.lowCutHz)) Hz" }
        switch s.profile {
        case .file(let name): text += ", profile \(name)"
        case .inline: text += ", profile inline"
        case nil: break
        }
        if !s.adaptive { text += " (fixed)" }
        return text
    }
}

/// A `denoise` node's step.
struct DenoiseStep: RenderKernel, ~Copyable {
    var denoiser: SpectralDenoiser
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        denoiser.retune(reductionDB: r[0], sensitivityDB: r[1])
    }

    static let operations = KernelOperations(
        process: { k, b in
            DenoiseStep.at(k).pointee.follow()
            DenoiseStep.at(k).pointee.denoiser.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in DenoiseStep.at(new).pointee.denoiser.continueState(from: DenoiseStep.at(old).pointee.denoiser) },
        reset: { k in DenoiseStep.at(k).pointee.denoiser.reset() },
        clearNonFinite: { k in DenoiseStep.at(k).pointee.denoiser.clearNonFinite() })
    deinit { motion?.deallocate() }
}
