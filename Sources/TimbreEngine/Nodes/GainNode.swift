import Foundation
import TimbreDSP

// `gain`: a level change in dB (−96…+24) or as a volume (0…1), ramped over 25 ms.

/// The settings of a `gain` node.
public struct GainSettings: NodeParameters {
    /// The gain as a linear factor.
    public var linear: Double
    public init(linear: Double) { self.linear = linear }
}

extension NodeKind {
    /// Gain as a linear factor (from `gain` dB or `volume` 0…1).
    public static func gain(linear: Double) -> NodeKind { NodeKind(GainSettings(linear: linear)) }
}

package enum GainNode: NodeDefinition {
    package static let typeNames = ["gain"]
    package static func typeName(of _: GainSettings) -> String { "gain" }

    package static let parameterSpecs = [
        ParameterSpec("gain", unit: "dB", range: ParameterRanges.gainNodeDB, default: 0, scale: .decibel, movesLive: true,
                      controlRange: -60...12, in: ["gainNode"]),
        ParameterSpec("volume", range: ParameterRanges.volume, movesLive: true, in: ["gainNode"]),
    ]

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> GainSettings {
        let g = try o.optional("gain"), v = try o.optional("volume")
        if g != nil && v != nil { throw PresetError(path: path, "give either \"gain\" (dB) or \"volume\" (0…1), not both") }
        if let v { return GainSettings(linear: try v.number(in: ParameterRanges.volume, unit: "")) }
        return GainSettings(linear: GainUnits.linear(fromDB: try g?.number(in: ParameterRanges.gainNodeDB, unit: "dB") ?? 0))
    }

    package static func encode(_ s: GainSettings) -> [String: JSONValue] {
        // A factor that dB cannot express within the range (0, or tiny) is written as a volume.
        let db = GainUnits.decibels(fromLinear: s.linear)
        if s.linear <= 1, !ParameterRanges.gainNodeDB.contains(db) { return ["volume": .number(s.linear)] }
        return ["gain": .number(db)]
    }

    package static func lower(_ s: GainSettings, into node: inout NodeLowering) throws(PresetError) {
        let kernel = GainKernel(gain: Float(s.linear), sampleRate: node.sampleRate)
        if let motion = node.valueMotion(s.linear) {
            let handle = motion.handle, seen = s.linear.bitPattern
            node.addKernel(KernelRecipe(shape: KernelShape("moving-gain", carriesState: true)) { MovingGainStep(kernel: kernel, motion: handle, seen: seen) })
        } else {
            node.addKernel(KernelRecipe(shape: kernel.shape, { kernel }))
        }
    }

    package static func response(of s: GainSettings, sampleRate: Double) -> NodeResponse {
        .linear(sections: [], gainDB: GainUnits.decibels(fromLinear: s.linear), markersHz: [])
    }

    package static func summary(of s: GainSettings) -> String {
        "gain " + (s.linear > 0 ? String(format: "%+.2f dB", 20 * log10(s.linear)) : "-inf dB (silent)")
    }
}
