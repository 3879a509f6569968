import Foundation
import TimbreDSP

extension NodeSpec {
    /// One line a user recognises: `harsh: peak 3000 Hz -2.0 dB Q 1.4 (matched)`.
    public var summary: String {
        let id = id.map { "\($0): " } ?? ""
        let off = bypass ? " [bypassed]" : ""
        func fmt(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e9 ? String(Int(d)) : String(format: "%.3g", d) }
        switch kind {
        case .filter(let d):
            var s = "\(id)\(d.type.rawValue) \(fmt(d.frequencyHz)) Hz"
            if d.type.hasGain { s += String(format: " %+.1f dB", d.gainDB) }
            if let slope = d.slopeDBPerOctave { s += " \(slope) dB/oct" } else { s += " Q \(fmt(d.q))" }
            return s + " (\(d.method.rawValue))" + off
        case .eq(let bands):
            return "\(id)eq " + bands.map { "\(fmt($0.frequencyHz)) Hz \(String(format: "%+.1f", $0.gainDB))" }.joined(separator: ", ") + off
        case .gain(let g): return "\(id)gain " + (g > 0 ? String(format: "%+.2f dB", 20 * log10(g)) : "-inf dB (silent)") + off
        case .pan(let p): return "\(id)pan \(fmt(p))" + off
        case .pitch(let st): return "\(id)pitch \(String(format: "%+.2f", st)) semitones" + off
        case .analysis(let k, _): return "\(id)\(k.rawValue) (measures, passes audio unchanged)" + off
        case .plugin(let p):
            let controls = p.controls.keys.sorted().map { "\($0) \(fmt(p.controls[$0]!))" }.joined(separator: ", ")
            return "\(id)plugin \(p.source)" + (p.preset.map { " preset \($0)" } ?? "") + (controls.isEmpty ? "" : " (\(controls))") + off
        }
    }
}
