import Foundation
import TimbreDSP

/// Reads the biquad coefficient lists REW exports for miniDSP and other DSPs
/// (`biquad1,` `b0=…,` `b1=…,` `b2=…,` `a1=…,` `a2=…`, the feedback coefficients negated as
/// miniDSP takes them) designed at `sampleRate`, and gives each section back as the band it
/// was designed from: a peaking, low- or high-shelf band of the parametric `eq`, or a low- or
/// high-pass filter node — so the bands are designed again as Timbre designs them (matched to
/// the analog prototype, at the session's rate) instead of replaying coefficients that hold
/// only at the rate they were computed for.
///
/// Each section is mapped back through the bilinear transform (s = (z − 1)/(z + 1)) to its
/// analog biquad, and read as one of RBJ's prototypes (Bristow-Johnson, "Cookbook formulae
/// for audio EQ biquad filter coefficients"), which is what REW's and miniDSP's designs are:
///
///   peak:        (s² + (A/Q)·w·s + w²) / (s² + w/(A·Q)·s + w²)
///   low shelf:   A·(s² + (√A/Q)·w·s + A·w²) / (A·s² + (√A/Q)·w·s + w²)
///   high shelf:  A·(A·s² + (√A/Q)·w·s + w²) / (s² + (√A/Q)·w·s + A·w²)
///   low/high pass: w² / (s² + (w/Q)·s + w²),  s² / (…)
///
/// with w = tan(π·f0/rate) and A = 10^(gain/40). A section that is none of these (a notch,
/// a band-pass, an all-pass, hand-made coefficients) is an error naming the biquad's line.
public enum BiquadListImport {
    /// True when `text`'s first non-blank line starts a biquad list (`biquad1,`).
    public static func recognizes(_ text: String) -> Bool {
        guard let first = text.split(whereSeparator: \.isNewline).first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return false }
        return first.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("biquad")
    }

    /// One section: its coefficients as written (a1, a2 negated) and the line naming it.
    struct Section {
        var name: String
        var line: Int
        var values: [String: Double] = [:]
    }

    /// The preset for `text`, its coefficients designed at `sampleRate`; `source` names the
    /// file in errors (`file:line`).
    public static func preset(from text: String, sampleRate: Double, name: String, source: String) throws(PresetError) -> Preset {
        guard sampleRate.isFinite, (8_000...768_000).contains(sampleRate) else {
            throw PresetError(path: source, "the coefficients' sample rate \(sampleRate) Hz is out of range (allowed 8000…768000 Hz)")
        }
        var sections: [Section] = []
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            let place = "\(source):\(index + 1)"
            let item = line.hasSuffix(",") ? String(line.dropLast()).trimmingCharacters(in: .whitespaces) : line
            if item.isEmpty { continue }
            if item.lowercased().hasPrefix("biquad") {
                sections.append(Section(name: item, line: index + 1))
                continue
            }
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.count == 2, ["b0", "b1", "b2", "a1", "a2"].contains(parts[0]) else {
                throw PresetError(path: place, "\"\(line)\" is neither a biquad name nor one of b0=, b1=, b2=, a1=, a2=")
            }
            guard let value = Double(parts[1]), value.isFinite else { throw PresetError(path: place, "\"\(line)\": \(parts[0]) is not a number") }
            guard !sections.isEmpty else { throw PresetError(path: place, "\"\(line)\" comes before the first biquad name") }
            guard sections[sections.count - 1].values[parts[0]] == nil else {
                throw PresetError(path: place, "\"\(line)\": \(parts[0]) is given twice in \(sections[sections.count - 1].name)")
            }
            sections[sections.count - 1].values[parts[0]] = value
        }
        guard !sections.isEmpty else { throw PresetError(path: source, "no biquad lines: not a biquad coefficient list") }
        var bands: [EQBand] = []
        var filters: [FilterDesign] = []
        for section in sections {
            let place = "\(source):\(section.line)"
            let missing = ["b0", "b1", "b2", "a1", "a2"].filter { section.values[$0] == nil }
            guard missing.isEmpty else { throw PresetError(path: place, "\(section.name) has no \(missing.joined(separator: ", "))") }
            let v = section.values
            switch try prototype(b0: v["b0"]!, b1: v["b1"]!, b2: v["b2"]!, a1: -v["a1"]!, a2: -v["a2"]!, sampleRate: sampleRate, place: place, name: section.name) {
            case .band(let band):
                if band.gainDB.magnitude < 1e-9 { continue }  // a flat slot
                bands.append(band)
            case .filter(let filter): filters.append(filter)
            }
        }
        var chain: [NodeSpec] = []
        for start in stride(from: 0, to: bands.count, by: 10) {
            chain.append(NodeSpec(id: bands.count > 10 ? "eq\(start / 10 + 1)" : "eq", kind: .eq(Array(bands[start..<min(bands.count, start + 10)]))))
        }
        for (i, f) in filters.enumerated() { chain.append(NodeSpec(id: "\(f.type.rawValue)\(i + 1)", kind: .filter(f))) }
        guard !chain.isEmpty else { throw PresetError(path: source, "every biquad is flat: nothing to import") }
        for i in chain.indices { chain[i].path = "chain[\(i)]" }
        return Preset(name: name, description: "Imported from \(source) (biquad coefficients at \(SummaryFormat.number(sampleRate)) Hz)", form: .chain(chain))
    }

    enum Prototype { case band(EQBand), filter(FilterDesign) }

    /// The RBJ prototype of one section (standard signs: y = b·x − a1·y₁ − a2·y₂).
    static func prototype(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double, sampleRate: Double, place: String, name: String) throws(PresetError) -> Prototype {
        // The analog biquad (B0 s² + B1 s + B2) / (A0 s² + A1 s + A2) under s = (z − 1)/(z + 1).
        let nb0 = b0 - b1 + b2, nb1 = 2 * (b0 - b2), nb2 = b0 + b1 + b2
        let da0 = 1 - a1 + a2, da1 = 2 * (1 - a2), da2 = 1 + a1 + a2
        func fail(_ why: String) -> PresetError {
            PresetError(path: place, "\(name) (\(b0), \(b1), \(b2), a1 \(-a1), a2 \(-a2)) \(why); imported are peaking, shelf, low- and high-pass sections")
        }
        guard da0 > 0, da1 > 0, da2 > 0 else { throw fail("is not a stable second-order section") }
        let scale = max(abs(nb0), abs(nb1), abs(nb2), abs(da0), abs(da1), abs(da2))
        // Exports carry 15–17 digits: a term is zero below 10⁻⁹ of the largest, two ratios
        // agree within 10⁻⁶ (a shelf of 0.01 dB already differs from a peak by 10⁻³).
        func zero(_ x: Double) -> Bool { abs(x) <= 1e-9 * scale }
        func near(_ x: Double, _ y: Double) -> Bool { abs(x - y) <= 1e-6 * max(abs(x), abs(y)) }
        func frequency(_ w: Double) -> Double { atan(w) * sampleRate / Double.pi }
        func checked(_ f: Double, _ q: Double, _ gain: Double?) throws(PresetError) -> (Double, Double) {
            guard f.isFinite, q.isFinite, (20...20_000).contains(f.rounded(toPlaces: 6)) else {
                throw PresetError(path: place, "\(name): its centre or corner \(f) Hz is out of range (allowed 20…20000 Hz)")
            }
            guard (ParameterRanges.q).contains(q.rounded(toPlaces: 6)) else {
                throw PresetError(path: place, "\(name): its Q \(q) is out of range (allowed \(ParameterRanges.q.lowerBound)…\(ParameterRanges.q.upperBound))")
            }
            if let gain, !(ParameterRanges.gainDB).contains(gain.rounded(toPlaces: 6)) {
                throw PresetError(path: place, "\(name): its gain \(gain) dB is out of range (allowed \(ParameterRanges.gainDB.lowerBound)…\(ParameterRanges.gainDB.upperBound) dB)")
            }
            return (f.rounded(toPlaces: 6), q.rounded(toPlaces: 6))
        }
        let w2 = da2 / da0
        // Low- and high-pass: a numerator of one term.
        if zero(nb0) && zero(nb1) || zero(nb1) && zero(nb2) {
            let w = w2.squareRoot(), q = w / (da1 / da0)
            let lowPass = zero(nb0)
            guard near(lowPass ? nb2 / da2 : nb0 / da0, 1) else { throw fail("has a pass-band gain other than 0 dB") }
            let (f, qq) = try checked(frequency(w), q, nil)
            return .filter(FilterDesign(type: lowPass ? .lowPass : .highPass, frequencyHz: f, q: qq))
        }
        guard nb0 > 0, nb2 > 0, nb1 > 0 else { throw fail("is not a peaking or shelf section") }
        // Peak: the same w² above and below.
        if near(nb2 / nb0, w2) {
            let w = w2.squareRoot(), a = ((nb1 / nb0) / (da1 / da0)).squareRoot()
            guard near(nb0, da0) else { throw fail("has a gain away from its centre") }
            let gain = 40 * log10(a), q = w / (a * da1 / da0)
            let (f, qq) = try checked(frequency(w), q, gain)
            return .band(EQBand(frequencyHz: f, gainDB: gain.rounded(toPlaces: 6), q: qq, shape: .peak))
        }
        let dc = nb2 / da2, top = nb0 / da0
        if near(top, 1) {
            // Low shelf: DC gain A², numerator w² A·w², denominator w²/A.
            let a = dc.squareRoot(), w = (w2 * a).squareRoot()
            guard near(nb2 / nb0, a * w * w) else { throw fail("is not a peaking or shelf section") }
            let gain = 40 * log10(a), q = w / (a.squareRoot() * da1 / da0)
            let (f, qq) = try checked(frequency(w), q, gain)
            return .band(EQBand(frequencyHz: f, gainDB: gain.rounded(toPlaces: 6), q: qq, shape: .lowShelf))
        }
        if near(dc, 1) {
            // High shelf: gain A² above, numerator w²/A, denominator A·w².
            let a = top.squareRoot(), w = (w2 / a).squareRoot()
            guard near(nb2 / nb0, w * w / a) else { throw fail("is not a peaking or shelf section") }
            let gain = 40 * log10(a), q = a.squareRoot() * w / (da1 / da0)
            let (f, qq) = try checked(frequency(w), q, gain)
            return .band(EQBand(frequencyHz: f, gainDB: gain.rounded(toPlaces: 6), q: qq, shape: .highShelf))
        }
        throw fail("is not a peaking or shelf section")
    }
}

private extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let p = pow(10, Double(places))
        return (self * p).rounded() / p
    }
}
