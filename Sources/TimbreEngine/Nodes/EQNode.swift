import Foundation
import TimbreDSP

// `eq`: the parametric equaliser, up to 10 bands (bells or shelves) anywhere in 20 Hz–20 kHz,
// ±20 dB; lowered into one section per band, fused with neighbouring filters.

/// The settings of an `eq` node: its bands.
public struct EQSettings: NodeParameters {
    public var bands: [EQBand]
    public init(bands: [EQBand]) { self.bands = bands }
}

/// One band of the parametric EQ.
public struct EQBand: Sendable, Equatable {
    public var frequencyHz: Double
    public var gainDB: Double
    public var q: Double
    /// `.peak`, `.lowShelf` or `.highShelf`.
    public var shape: FilterType
    public var method: DesignMethod

    public init(frequencyHz: Double, gainDB: Double = 0, q: Double = 1, shape: FilterType = .peak, method: DesignMethod = .matched) {
        self.frequencyHz = frequencyHz; self.gainDB = gainDB; self.q = q; self.shape = shape; self.method = method
    }

    /// The default centres: the octave series of a 10-band graphic EQ.
    public static let defaultCentersHz: [Double] = [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]

    public var design: FilterDesign {
        FilterDesign(type: shape, frequencyHz: frequencyHz, gainDB: gainDB, q: q, method: method)
    }
}

extension NodeKind {
    /// The parametric equaliser (up to 10 bands).
    public static func eq(_ bands: [EQBand]) -> NodeKind { NodeKind(EQSettings(bands: bands)) }
}

package enum EQNode: NodeDefinition {
    package static let typeNames = ["eq"]
    /// Each band's; a band left out is flat at its place of the ten default centres.
    package static let parameterSpecs = [
        ParameterSpec("bands[].frequency", unit: "Hz", range: ParameterRanges.frequencyHz, scale: .logarithmic, movesLive: true, in: ["eqNode"]),
        ParameterSpec("bands[].gain", unit: "dB", range: ParameterRanges.gainDB, default: 0, scale: .decibel, movesLive: true, in: ["eqNode"]),
        ParameterSpec("bands[].q", range: ParameterRanges.q, default: ParameterRanges.defaultEQQ, scale: .logarithmic, movesLive: true, in: ["eqNode"]),
    ]
    package static func typeName(of _: EQSettings) -> String { "eq" }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> EQSettings {
        let method = try o.optional("design")?.oneOf(DesignMethod.self) ?? .matched
        guard let bandsField = try o.optional("bands") else {
            return EQSettings(bands: EQBand.defaultCentersHz.map { EQBand(frequencyHz: $0, q: ParameterRanges.defaultEQQ, method: method) })
        }
        let list = try bandsField.array()
        guard list.count <= ParameterRanges.maxEQBands else {
            throw PresetError(path: bandsField.path, "\(list.count) bands given (allowed at most \(ParameterRanges.maxEQBands))")
        }
        var bands: [EQBand] = []
        for (j, b) in list.enumerated() {
            var bo = try ObjectReader(b, path: "\(bandsField.path)[\(j)]")
            let f = try bo.optional("frequency")?.number(in: ParameterRanges.frequencyHz, unit: "Hz") ?? EQBand.defaultCentersHz[j]
            let g = try bo.optional("gain")?.number(in: ParameterRanges.gainDB, unit: "dB") ?? 0
            let q = try bo.optional("q")?.number(in: ParameterRanges.q, unit: "") ?? ParameterRanges.defaultEQQ
            var shape = FilterType.peak
            if let s = try bo.optional("shape") {
                let name = try s.string()
                guard let t = FilterType(rawValue: name), t.hasGain else {
                    throw PresetError(path: s.path, "\"\(name)\" is not a band shape (allowed \"peak\", \"lowshelf\", \"highshelf\")")
                }
                shape = t
            }
            try bo.finish()
            bands.append(EQBand(frequencyHz: f, gainDB: g, q: q, shape: shape, method: method))
        }
        return EQSettings(bands: bands)
    }

    package static func encode(_ s: EQSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["bands": .array(s.bands.map { b in
            var band: [String: JSONValue] = ["frequency": .number(b.frequencyHz), "gain": .number(b.gainDB), "q": .number(b.q)]
            if b.shape != .peak { band["shape"] = .string(b.shape.rawValue) }
            return .object(band)
        })]
        if let method = s.bands.first?.method, method != .matched { o["design"] = .string(method.rawValue) }
        return o
    }

    package static func lower(_ s: EQSettings, into node: inout NodeLowering) throws(PresetError) {
        var sections: [BiquadCoefficients] = []
        // Bands at or above 0.49 × the rate are fitted to what their analog curve does below
        // Nyquist (FilterDesign.sections), so every preset runs at every rate.
        for band in s.bands {
            sections += node.movableSections(DesignCache.shared.sections(band.design, sampleRate: node.sampleRate))
        }
        node.addSections(sections)
    }

    package static func response(of s: EQSettings, sampleRate: Double) -> NodeResponse {
        .linear(sections: s.bands.flatMap { $0.design.sections(sampleRate: sampleRate) }, gainDB: 0,
                markersHz: s.bands.filter { $0.gainDB != 0 }.map(\.frequencyHz))
    }

    package static func summary(of s: EQSettings) -> String {
        "eq " + s.bands.map { "\(SummaryFormat.number($0.frequencyHz)) Hz \(String(format: "%+.1f", $0.gainDB))" }.joined(separator: ", ")
    }
}
