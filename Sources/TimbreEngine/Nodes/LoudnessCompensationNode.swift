import Foundation
import TimbreDSP

// `loudnessCompensation`: loudness compensation after ISO 226:2003 (`LoudnessCompensationDesign`), at a
// volume of its own or following the graph's master volume.

/// The settings of a `loudnessCompensation` node.
public struct LoudnessCompensationSettings: NodeParameters {
    /// The loudness the music is balanced at (the level at volume 0 dB), 60…90 phon.
    public var referencePhon: Double = 80
    /// How far below the reference it is played, −70…0 dB (ignored when following the master).
    public var volumeDB: Double = 0
    /// Take the volume from the graph's master volume (the node on the master chain).
    public var followsMaster = false
    public init() {}
}

extension NodeKind {
    /// Loudness compensation (ISO 226:2003).
    public static func loudnessCompensation(_ settings: LoudnessCompensationSettings) -> NodeKind { NodeKind(settings) }
}

package enum LoudnessCompensationNode: NodeDefinition {
    package static let typeNames = ["loudnessCompensation"]
    package static func typeName(of _: LoudnessCompensationSettings) -> String { "loudnessCompensation" }
    static let volumeRange: ClosedRange<Double> = -70...0

    package static let parameterSpecs = [
        ParameterSpec("reference", unit: "phon", range: LoudnessCompensationDesign.referenceRange, default: 80, in: ["loudnessCompensationNode"]),
        ParameterSpec("volume", unit: "dB", range: volumeRange, default: 0, movesLive: true, in: ["loudnessCompensationNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "loudnessCompensationNode",
            description: "Loudness compensation after the ISO 226:2003 equal-loudness contours: music balanced at reference phon and played volume dB quieter gets back the bass and top octave the ear loses at the lower level (boost = Lp(reference + volume) − Lp(reference) − volume at each frequency, held within 20 phon and the reference). Five fixed biquads whose gains are fitted to the standard's 29 frequencies. followMaster: take the volume from the graph's master volume (the node on the master chain; put it last there). volume moves live, and so does a followed master volume.",
            otherKeys: [("followMaster", .object(["type": .string("boolean")]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> LoudnessCompensationSettings {
        var s = LoudnessCompensationSettings()
        if let f = try o.optional("reference") { s.referencePhon = try f.number(in: LoudnessCompensationDesign.referenceRange, unit: "phon") }
        if let f = try o.optional("volume") { s.volumeDB = try f.number(in: volumeRange, unit: "dB") }
        if let f = try o.optional("followMaster") { s.followsMaster = try f.bool() }
        return s
    }

    package static func encode(_ s: LoudnessCompensationSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["reference": .number(s.referencePhon)]
        if s.followsMaster { o["followMaster"] = .bool(true) } else { o["volume"] = .number(s.volumeDB) }
        return o
    }

    package static func lower(_ s: LoudnessCompensationSettings, into node: inout NodeLowering) throws(PresetError) {
        let volume: Double, masterMotion: ValueMotion.Handle?, masterBits: UInt64
        if s.followsMaster {
            guard let master = node.masterVolume else {
                throw PresetError(path: node.path + ".followMaster", "followMaster needs the node on a graph's master chain (elsewhere give it a volume)")
            }
            volume = GainUnits.decibels(fromLinear: master.value); masterMotion = master.motion; masterBits = master.value.bitPattern
        } else {
            volume = s.volumeDB; masterMotion = nil; masterBits = 0
        }
        let design = LoudnessCompensationDesign(referencePhon: s.referencePhon, sampleRate: node.sampleRate)
        let channels = node.channels
        let own = s.followsMaster ? nil : node.valuesMotion([s.volumeDB])
        node.addKernel(KernelRecipe(shape: KernelShape("loudness-compensation", carriesState: true)) {
            var step = LoudnessCompensationStep(filter: LoudnessCompensationFilter(design: design, channelCount: channels, volumeDB: volume))
            step.own = own?.makeFollower()
            // The master's value as its motion holds it: a new plan does not glide to where it is.
            if let masterMotion { step.master = masterMotion; step.seen = masterBits }
            return step
        })
    }

    /// The volume moves live (the same glide as a followed master's).
    package static func liveValues(from old: LoudnessCompensationSettings, to new: LoudnessCompensationSettings, sampleRate _: Double) -> [Double]? {
        old.referencePhon == new.referencePhon && old.followsMaster == new.followsMaster && !new.followsMaster ? [new.volumeDB] : nil
    }

    /// The curve at the node's own volume (a followed master's is not known here: 0 dB).
    package static func response(of s: LoudnessCompensationSettings, sampleRate: Double) -> NodeResponse {
        let design = LoudnessCompensationDesign(referencePhon: s.referencePhon, sampleRate: sampleRate)
        return .linear(sections: design.sections(volumeDB: s.followsMaster ? 0 : s.volumeDB), gainDB: 0, markersHz: [])
    }

    package static func summary(of s: LoudnessCompensationSettings) -> String {
        "loudness compensation, reference \(SummaryFormat.number(s.referencePhon)) phon, " + (s.followsMaster ? "following the master volume" : "volume \(SummaryFormat.number(s.volumeDB)) dB")
    }
}

/// A `loudnessCompensation` node's step: the filter, following its own volume or the master's.
struct LoudnessCompensationStep: RenderKernel, ~Copyable {
    var filter: LoudnessCompensationFilter
    var own: ValuesMotion.Follower? = nil
    var master: ValueMotion.Handle? = nil
    var seen: UInt64 = 0

    mutating func follow() {
        if let r = own?.next() { filter.setVolume(r[0]) }
        if let master, let bits = master.changed(from: seen) {
            seen = bits
            filter.setVolume(_unsafePerformance { 20 * log10(max(1e-10, Double(bitPattern: bits))) })
        }
    }

    static let operations = KernelOperations(
        process: { k, b in
            LoudnessCompensationStep.at(k).pointee.follow()
            LoudnessCompensationStep.at(k).pointee.filter.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in LoudnessCompensationStep.at(new).pointee.filter.continueState(from: LoudnessCompensationStep.at(old).pointee.filter) },
        reset: { k in LoudnessCompensationStep.at(k).pointee.filter.reset() },
        clearNonFinite: { k in _ = LoudnessCompensationStep.at(k).pointee.filter.clearNonFinite() })
    deinit { own?.deallocate() }
}
