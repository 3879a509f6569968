import Foundation
import TimbreDSP

// `highpass`, `lowpass` (Butterworth slopes or one section with a Q), `peak`, `lowshelf`,
// `highshelf`, `notch`, `bandpass`, `allpass`: one filter, designed on the control thread
// (``DesignCache``), lowered into biquad sections that fuse with their neighbours — or, with
// `phase`, into one FIR of the design's analog magnitude (linear or minimum phase).

/// The settings of a filter node: its design, and how it runs.
public struct FilterSettings: NodeParameters {
    public var design: FilterDesign
    /// nil: the design's biquad sections (minimum phase, no latency, moves live). `.linear`:
    /// one FIR of the design's analog prototype magnitude (TimbreDSP's `MagnitudeFIRDesign`;
    /// latency (taps − 1)/2, reported); `.minimum`: the same magnitude as a minimum-phase FIR.
    public var phase: MagnitudeFIRDesign.Phase?
    /// The FIR's taps (nil: 24 × the rate over the filter's width — f/Q for bells, notches and
    /// band-passes, f otherwise — as a power of two in 2,048…65,536).
    public var firTaps: Int?

    public init(_ design: FilterDesign, phase: MagnitudeFIRDesign.Phase? = nil, firTaps: Int? = nil) {
        self.design = design; self.phase = phase; self.firTaps = firTaps
    }
}

extension NodeKind {
    /// One filter (high/low-pass cascade, bell, shelf, notch, band-pass, all-pass).
    public static func filter(_ design: FilterDesign) -> NodeKind { NodeKind(FilterSettings(design)) }
    /// One filter as a linear- or minimum-phase FIR of its analog magnitude.
    public static func filter(_ design: FilterDesign, phase: MagnitudeFIRDesign.Phase, taps: Int? = nil) -> NodeKind {
        NodeKind(FilterSettings(design, phase: phase, firTaps: taps))
    }
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
        ParameterSpec("taps", range: MagnitudeFIRMode.tapsRange, scale: .logarithmic, wholeNumber: true, in: ["passNode", "bellNode", "plainNode"]),
    ]

    package static func typeName(of s: FilterSettings) -> String { s.design.type.rawValue }

    package static func decode(type name: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> FilterSettings {
        let (phase, taps) = try MagnitudeFIRMode.decode(&o, kind: "filter")
        return FilterSettings(try decodeDesign(type: name, &o, path: path), phase: phase, firTaps: taps)
    }

    static func decodeDesign(type name: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> FilterDesign {
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

    package static func encode(_ s: FilterSettings) -> [String: JSONValue] {
        let d = s.design
        var o: [String: JSONValue] = ["frequency": .number(d.frequencyHz)]
        if let slope = d.slopeDBPerOctave { o["slope"] = .number(Double(slope)) } else { o["q"] = .number(d.q) }
        if d.type.hasGain { o["gain"] = .number(d.gainDB) }
        if d.method != .matched { o["design"] = .string(d.method.rawValue) }
        if let phase = s.phase { o["phase"] = .string(phase.rawValue) }
        if let taps = s.firTaps { o["taps"] = .number(Double(taps)) }
        return o
    }

    /// The taps of a FIR filter: 24 × fs over its width (f/Q for bells, notches and
    /// band-passes, f over (slope/12 dB)² for high- and low-passes, f for shelves), a power of two
    /// in 2,048…65,536 (as `eq`'s bands).
    package static func firTaps(for s: FilterSettings, sampleRate: Double) -> Int {
        if let taps = s.firTaps { return taps }
        let d = s.design
        // A pass filter's knee sharpens with its order (slope / 12 dB per octave; a Q section 1).
        let order = Double(d.slopeDBPerOctave ?? 12) / 12
        let width = [.peak, .notch, .bandPass].contains(d.type) ? d.frequencyHz / max(d.q, 0.1) : d.frequencyHz / (order * order)
        return MagnitudeFIRMode.taps(width: width, sampleRate: sampleRate)
    }

    package static func lower(_ s: FilterSettings, into node: inout NodeLowering) throws(PresetError) {
        let d = s.design
        switch d.type {
        case .lowPass, .peak, .lowShelf, .highShelf:
            break  // above 0.49 × the rate: fitted below Nyquist, or passes (FilterDesign.sections)
        case .highPass where d.isAboveBand(sampleRate: node.sampleRate):
            throw PresetError(path: node.path + ".frequency", "a high-pass at \(JSONValue.number(d.frequencyHz).brief) Hz is at or above 0.49 × the sample rate \(JSONValue.number(node.sampleRate).brief) Hz: it would remove everything (allowed below \(JSONValue.number((0.49 * node.sampleRate * 10).rounded(.down) / 10).brief) Hz)")
        default:
            try node.checkFrequency(d.frequencyHz, at: node.path + ".frequency")
        }
        if let phase = s.phase {
            // A notch's centre is −∞ dB: held at −200 dB, far under Float's floor.
            try MagnitudeFIRMode.lower(s, phase: phase, taps: firTaps(for: s, sampleRate: node.sampleRate), into: &node) { max(d.analogMagnitudeDB(at: $0), -200) }
            return
        }
        node.addSections(node.movableSections(DesignCache.shared.sections(d, sampleRate: node.sampleRate)))
    }

    package static func response(of s: FilterSettings, sampleRate: Double) -> NodeResponse {
        .linear(sections: s.design.sections(sampleRate: sampleRate), gainDB: 0, markersHz: [s.design.frequencyHz])
    }

    package static func summary(of s: FilterSettings) -> String {
        let d = s.design
        var text = "\(d.type.rawValue) \(SummaryFormat.number(d.frequencyHz)) Hz"
        if d.type.hasGain { text += String(format: " %+.1f dB", d.gainDB) }
        if let slope = d.slopeDBPerOctave { text += " \(slope) dB/oct" } else { text += " Q \(SummaryFormat.number(d.q))" }
        text += " (\(d.method.rawValue))"
        if let phase = s.phase { text += ", \(phase.rawValue) phase FIR" + (s.firTaps.map { " of \(MagnitudeFIRDesign.tapCount($0, phase: phase)) taps" } ?? "") }
        return text
    }
}

/// Numbers in node summaries: whole numbers plainly, others to three significant digits.
enum SummaryFormat {
    static func number(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e9 ? String(Int(d)) : String(format: "%.3g", d) }
}
