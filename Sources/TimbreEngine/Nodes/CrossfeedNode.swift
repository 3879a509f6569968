import Foundation
import TimbreDSP

// `crossfeed`: headphone crossfeed on a stereo chain (`BauerCrossfeed`, libbs2b's design).

/// The settings of a `crossfeed` node.
public struct CrossfeedSettings: NodeParameters {
    /// The low-pass's cut frequency, 300…2000 Hz.
    public var frequencyHz: Double = 700
    /// How far the crossed low end lies below the direct highs, 1…15 dB.
    public var feedDB: Double = 4.5
    public init() {}
}

extension NodeKind {
    /// Headphone crossfeed.
    public static func crossfeed(_ settings: CrossfeedSettings) -> NodeKind { NodeKind(settings) }
}

package enum CrossfeedNode: NodeDefinition {
    package static let typeNames = ["crossfeed"]
    package static func typeName(of _: CrossfeedSettings) -> String { "crossfeed" }

    package static let parameterSpecs = [
        ParameterSpec("frequency", unit: "Hz", range: BauerCrossfeed.frequencyRange, default: 700, scale: .logarithmic, movesLive: true, in: ["crossfeedNode"]),
        ParameterSpec("feed", unit: "dB", range: BauerCrossfeed.feedRange, default: 4.5, movesLive: true, in: ["crossfeedNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "crossfeedNode",
            description: "Headphone crossfeed (Bauer's stereophonic-to-binaural network as libbs2b designs it): each side also gets the other through a first-order low-pass at frequency Hz, feed dB below its own high-boosted signal, so the low end reaches both ears as from speakers. libbs2b's levels: 700 Hz / 4.5 dB (its default), 700 / 6 (Chu Moy), 650 / 9.5 (Jan Meier). Needs a stereo chain; both move live.")
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> CrossfeedSettings {
        var s = CrossfeedSettings()
        if let f = try o.optional("frequency") { s.frequencyHz = try f.number(in: BauerCrossfeed.frequencyRange, unit: "Hz") }
        if let f = try o.optional("feed") { s.feedDB = try f.number(in: BauerCrossfeed.feedRange, unit: "dB") }
        return s
    }

    package static func encode(_ s: CrossfeedSettings) -> [String: JSONValue] {
        ["frequency": .number(s.frequencyHz), "feed": .number(s.feedDB)]
    }

    package static func lower(_ s: CrossfeedSettings, into node: inout NodeLowering) throws(PresetError) {
        guard node.channels == 2 else {
            throw PresetError(path: node.path, "crossfeed needs a stereo chain (this one has \(node.channels) channel\(node.channels == 1 ? "" : "s"))")
        }
        let rate = node.sampleRate
        let kernel = BauerCrossfeed(frequency: s.frequencyHz, feedDB: s.feedDB, sampleRate: rate)
        let motion = node.valuesMotion([s.frequencyHz, s.feedDB])
        node.addKernel(KernelRecipe(shape: KernelShape("crossfeed", carriesState: true)) {
            var step = CrossfeedStep(kernel: kernel, sampleRate: rate)
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Both settings move live (new coefficients, the filters' state kept).
    package static func liveValues(from _: CrossfeedSettings, to new: CrossfeedSettings, sampleRate _: Double) -> [Double]? {
        [new.frequencyHz, new.feedDB]
    }

    package static func summary(of s: CrossfeedSettings) -> String {
        "crossfeed \(SummaryFormat.number(s.frequencyHz)) Hz, \(SummaryFormat.number(s.feedDB)) dB"
    }
}

/// A `crossfeed` node's step.
struct CrossfeedStep: RenderKernel, ~Copyable {
    var kernel: BauerCrossfeed
    let sampleRate: Double
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        kernel.set(frequency: r[0], feedDB: r[1], sampleRate: sampleRate)
    }

    static let operations = KernelOperations(
        process: { k, b in
            CrossfeedStep.at(k).pointee.follow()
            CrossfeedStep.at(k).pointee.kernel.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in CrossfeedStep.at(new).pointee.kernel.continueState(from: CrossfeedStep.at(old).pointee.kernel) },
        reset: { k in CrossfeedStep.at(k).pointee.kernel.reset() },
        clearNonFinite: { k in _ = CrossfeedStep.at(k).pointee.kernel.clearNonFinite() })
    deinit { motion?.deallocate() }
}
