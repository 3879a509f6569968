import Foundation
import TimbreDSP

/// Reads the parametric EQ text of EqualizerAPO and AutoEQ (`Preamp: -6.8 dB`,
/// `Filter 1: ON PK Fc 21 Hz Gain 6.7 dB Q 1.100`), and REW's "Filter Settings file" export
/// (its header skipped, `None` slots ignored), into a Timbre preset: a gain node for the
/// preamp, `eq` nodes (ten bands each) for bells and shelves, filter nodes for the rest.
///
/// Types: PK (bell), LSC and HSC (shelves; LS and HS as AutoEQ once wrote them for LSC and
/// HSC), LP and HP (Butterworth, Q 0.707), LPQ and HPQ (with Q), NO (notch), BP (band-pass),
/// AP (all-pass). `OFF` filters, comments (`#`) and blank lines are skipped. The bands are
/// designed as Timbre designs them (matched to the analog prototype), not with EqualizerAPO's
/// bilinear transform, so a correction's high bands keep the shape its author measured.
/// Anything that cannot be mapped is an error naming the line.
public enum ParametricEQImport {
    /// The preset for `text`; `source` names the file in errors (`file:line`).
    public static func preset(from text: String, name: String, source: String) throws(PresetError) -> Preset {
        var preamp = 0.0
        var bands: [EQBand] = []
        var filters: [FilterDesign] = []
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)  // "\r\n" is one Character
        // REW's "Filter Settings file" export: a header (program, date, notes, equaliser)
        // before the first Filter line, which is skipped; its empty slots say "None".
        let isREW = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.trimmingCharacters(in: .whitespaces).lowercased() == "filter settings file"
        let firstFilter = isREW ? (lines.firstIndex { line in
            let t = line.trimmingCharacters(in: .whitespaces).lowercased()  // "Filter  1:" or "Filter:"
            return t.hasPrefix("filter") && t.dropFirst(6).trimmingCharacters(in: .whitespaces).first.map { $0.isNumber || $0 == ":" } == true
        } ?? lines.count) : 0
        for (index, raw) in lines.enumerated() where index >= firstFilter {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let place = "\(source):\(index + 1)"
            if line.isEmpty { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words[0].lowercased() == "preamp:" {
                guard words.count >= 2, let db = Double(words[1]), db.isFinite, ParameterRanges.gainNodeDB.contains(db) else {
                    throw PresetError(path: place, "\"\(line)\": the preamp is not a gain in dB within -96…24")
                }
                preamp += db
                continue
            }
            guard words[0].lowercased() == "filter" || words[0].lowercased().hasPrefix("filter") else {
                throw PresetError(path: place, "\"\(line)\" is neither a Preamp nor a Filter line (EqualizerAPO's other commands are not imported)")
            }
            // "Filter 1: ON PK Fc 21 Hz Gain 6.7 dB Q 1.100" or "Filter: ON …"
            guard let on = words.firstIndex(where: { $0 == "ON" || $0 == "OFF" }) else {
                throw PresetError(path: place, "\"\(line)\": no ON or OFF")
            }
            if words[on] == "OFF" { continue }
            guard on + 1 < words.count else { throw PresetError(path: place, "\"\(line)\": no filter type after ON") }
            let type = words[on + 1].uppercased()
            if type == "NONE" { continue }  // REW: an unused slot
            func value(_ key: String) throws(PresetError) -> Double? {
                guard let i = words.firstIndex(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) else { return nil }
                guard i + 1 < words.count, let v = Double(words[i + 1]), v.isFinite else {
                    throw PresetError(path: place, "\"\(line)\": \(key) has no number")
                }
                return v
            }
            guard let fc = try value("Fc") else { throw PresetError(path: place, "\"\(line)\": no Fc (centre or corner frequency)") }
            guard (20...20000).contains(fc) else { throw PresetError(path: place, "\"\(line)\": Fc \(fc) Hz is out of range (allowed 20…20000 Hz)") }
            let gain = try value("Gain")
            let q = try value("Q")
            if let gain, !(-20...20).contains(gain) { throw PresetError(path: place, "\"\(line)\": Gain \(gain) dB is out of range (allowed -20…20 dB)") }
            if let q, !(0.1...20).contains(q) { throw PresetError(path: place, "\"\(line)\": Q \(q) is out of range (allowed 0.1…20)") }
            func needGain() throws(PresetError) -> Double {
                guard let gain else { throw PresetError(path: place, "\"\(line)\": \(type) needs a Gain") }
                return gain
            }
            switch type {
            case "PK", "PEQ":
                guard let q else { throw PresetError(path: place, "\"\(line)\": PK needs a Q") }
                bands.append(EQBand(frequencyHz: fc, gainDB: try needGain(), q: q, shape: .peak))
            case "LSC", "LS":
                bands.append(EQBand(frequencyHz: fc, gainDB: try needGain(), q: q ?? 1 / 2.0.squareRoot(), shape: .lowShelf))
            case "HSC", "HS":
                bands.append(EQBand(frequencyHz: fc, gainDB: try needGain(), q: q ?? 1 / 2.0.squareRoot(), shape: .highShelf))
            case "LP", "LPQ":
                filters.append(FilterDesign(type: .lowPass, frequencyHz: fc, q: type == "LP" ? 1 / 2.0.squareRoot() : q ?? 1 / 2.0.squareRoot()))
            case "HP", "HPQ":
                filters.append(FilterDesign(type: .highPass, frequencyHz: fc, q: type == "HP" ? 1 / 2.0.squareRoot() : q ?? 1 / 2.0.squareRoot()))
            case "NO":
                filters.append(FilterDesign(type: .notch, frequencyHz: fc, q: q ?? 30.0 / 10))
            case "BP":
                filters.append(FilterDesign(type: .bandPass, frequencyHz: fc, q: q ?? 1 / 2.0.squareRoot()))
            case "AP":
                filters.append(FilterDesign(type: .allPass, frequencyHz: fc, q: q ?? 1 / 2.0.squareRoot()))
            default:
                throw PresetError(path: place, "\"\(line)\": filter type \(type) is not imported (allowed: PK, LSC, HSC, LS, HS, LP, HP, LPQ, HPQ, NO, BP, AP)")
            }
        }
        guard !bands.isEmpty || !filters.isEmpty || preamp != 0 else {
            throw PresetError(path: source, "no Preamp or Filter lines: not an EqualizerAPO / AutoEQ parametric file")
        }
        var chain: [NodeSpec] = []
        if preamp != 0 { chain.append(NodeSpec(id: "preamp", kind: .gain(linear: pow(10, preamp / 20)))) }
        for start in stride(from: 0, to: bands.count, by: 10) {
            chain.append(NodeSpec(id: bands.count > 10 ? "eq\(start / 10 + 1)" : "eq", kind: .eq(Array(bands[start..<min(bands.count, start + 10)]))))
        }
        for (i, f) in filters.enumerated() { chain.append(NodeSpec(id: "\(f.type.rawValue)\(i + 1)", kind: .filter(f))) }
        for i in chain.indices { chain[i].path = "chain[\(i)]" }
        return Preset(name: name, description: "Imported from \(source) (EqualizerAPO / AutoEQ parametric EQ)", form: .chain(chain))
    }
}
