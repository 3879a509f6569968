import Foundation
import TimbreDSP

// `highpass`, `lowpass` (Butterworth slopes or one section with a Q), `peak`, `lowshelf`,
// `highshelf`, `notch`, `bandpass`, `allpass`: one filter, designed on the control thread
// (``DesignCache``), lowered into biquad sections that fuse with their neighbours.

extension FilterDesign: NodeParameters {}

extension NodeKind {
    /// One filter (high/low-pass cascade, bell, shelf, notch, band-pass, all-pass).
    public static func filter(_ design: FilterDesign) -> NodeKind { NodeKind(design) }
}

package enum FilterNode: NodeDefinition {
    package static let typeNames = FilterType.allCases.map(\.rawValue)
    /// Frequency and Q of every type, gain of the bells and shelves; the defaults differ by
    /// type (a high-pass at 80 Hz, a low-pass at 12 kHz, the rest at 1 kHz), so only the
    /// definitions with one default state it.
    package static let parameterSpecs = [
        ParameterSpec("frequency", unit: "Hz", range: ParameterRanges.frequencyHz, scale: .logarithmic, movesLive: true, in: ["passNode"]),
        ParameterSpec("q", range: ParameterRanges.q, scale: .logarithmic, movesLive: true, in: ["passNode"]),
        ParameterSpec("frequency", unit: "Hz", range: ParameterRanges.frequencyHz, default: ParameterRanges.defaultCenterHz, scale: .logarithmic,
                      movesLive: true, in: ["bellNode", "plainNode"]),
        ParameterSpec("gain", unit: "dB", range: ParameterRanges.gainDB, default: 0, scale: .decibel, movesLive: true, in: ["bellNode"]),
        ParameterSpec("q", range: ParameterRanges.q, default: 0.7071, scale: .logarithmic, movesLive: true, in: ["bellNode", "plainNode"]),
    ]

    package static func typeName(of d: FilterDesign) -> String { d.type.rawValue }

    package static func decode(type name: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> FilterDesign {
        let type = FilterType(rawValue: name)!
        let method = try o.optional("design")?.oneOf(DesignMethod.self) ?? .matched
        switch type {
        case .highPass, .lowPass:
            let f = try o.optional("frequency")?.number(in: ParameterRanges.frequencyHz, unit: "Hz")
                ?? (type == .highPass ? ParameterRanges.defaultHighPassHz : ParameterRanges.defaultLowPassHz)
            let slopeField = try o.optional("slope")
            let qField = try o.optional("q")
            if slopeField != nil && qField != nil {
                throw PresetError(path: path, "give either \"slope\" (Butterworth) or \"q\" (one section), not both")
            }
            var slope: Int? = ParameterRanges.defaultSlope
            var q = ParameterRanges.defaultQ
            if let slopeField {
                let s = try slopeField.number()
                guard let i = ParameterRanges.slopes.first(where: { Double($0) == s }) else {
                    throw PresetError(path: slopeField.path, "\(JSONValue.number(s).brief) is not an allowed slope (allowed 12, 24, 36, 48 dB/octave)")
                }
                slope = i
            }
            if let qField { q = try qField.number(in: ParameterRanges.q, unit: ""); slope = nil }
            // A Butterworth slope sets its sections' Q itself: `q` keeps FilterDesign's default,
            // so a design built in code and one decoded from its JSON are equal.
            if let slope { return FilterDesign(type: type, frequencyHz: f, slopeDBPerOctave: slope, method: method) }
            return FilterDesign(type: type, frequencyHz: f, q: q, method: method)
        default:
            let f = try o.optional("frequency")?.number(in: ParameterRanges.frequencyHz, unit: "Hz") ?? ParameterRanges.defaultCenterHz
            let gain = type.hasGain ? try o.optional("gain")?.number(in: ParameterRanges.gainDB, unit: "dB") ?? 0 : 0
            let q = try o.optional("q")?.number(in: ParameterRanges.q, unit: "") ?? ParameterRanges.defaultQ
            return FilterDesign(type: type, frequencyHz: f, gainDB: gain, q: q, method: method)
        }
    }

    package static func encode(_ d: FilterDesign) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["frequency": .number(d.frequencyHz)]
        if let slope = d.slopeDBPerOctave { o["slope"] = .number(Double(slope)) } else { o["q"] = .number(d.q) }
        if d.type.hasGain { o["gain"] = .number(d.gainDB) }
        if d.method != .matched { o["design"] = .string(d.method.rawValue) }
        return o
    }

    package static func lower(_ d: FilterDesign, into node: inout NodeLowering) throws(PresetError) {
        switch d.type {
        case .lowPass, .peak, .lowShelf, .highShelf:
            break  // above 0.49 × the rate: fitted below Nyquist, or passes (FilterDesign.sections)
        case .highPass where d.isAboveBand(sampleRate: node.sampleRate):
            throw PresetError(path: node.path + ".frequency", "a high-pass at \(JSONValue.number(d.frequencyHz).brief) Hz is at or above 0.49 × the sample rate \(JSONValue.number(node.sampleRate).brief) Hz: it would remove everything (allowed below \(JSONValue.number((0.49 * node.sampleRate * 10).rounded(.down) / 10).brief) Hz)")
        default:
            try node.checkFrequency(d.frequencyHz, at: node.path + ".frequency")
        }
        node.addSections(node.movableSections(DesignCache.shared.sections(d, sampleRate: node.sampleRate)))
    }

    package static func response(of d: FilterDesign, sampleRate: Double) -> NodeResponse {
        .linear(sections: d.sections(sampleRate: sampleRate), gainDB: 0, markersHz: [d.frequencyHz])
    }

    package static func summary(of d: FilterDesign) -> String {
        var s = "\(d.type.rawValue) \(SummaryFormat.number(d.frequencyHz)) Hz"
        if d.type.hasGain { s += String(format: " %+.1f dB", d.gainDB) }
        if let slope = d.slopeDBPerOctave { s += " \(slope) dB/oct" } else { s += " Q \(SummaryFormat.number(d.q))" }
        return s + " (\(d.method.rawValue))"
    }
}

/// Numbers in node summaries: whole numbers plainly, others to three significant digits.
enum SummaryFormat {
    static func number(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e9 ? String(Int(d)) : String(format: "%.3g", d) }
}
