import Foundation

/// A modulation rate given in Hz (`rate`) or as a note value per cycle at a tempo (`note`
/// with `tempo`: tempo sync), as the tremolo, chorus and phaser nodes take it.
package enum TempoSyncedRate {
    /// The frequency of one cycle per `note` (a ``DelayNode/noteValues`` name) at `tempo` bpm.
    package static func frequency(note: String, tempo: Double) -> Double? {
        DelayNode.noteFraction(note).map { tempo / 60 / (4 * $0) }
    }

    /// Reads `rate`, `note` and `tempo` from `o` into the node's fields: a rate or a note, not
    /// both; a tempo only with a note; the note's frequency within `range`.
    package static func decode(_ o: inout ObjectReader, rate: inout Double, note: inout String?, tempo: inout Double,
                               range: ClosedRange<Double>) throws(PresetError) {
        let rateField = try o.optional("rate")
        if let f = rateField { rate = try f.number(in: range, unit: "Hz") }
        let tempoField = try o.optional("tempo")
        guard let f = try o.optional("note") else {
            if let t = tempoField { throw PresetError(path: t.path, "a tempo needs a note value (\"note\": \"1/8\")") }
            return
        }
        if let rateField { throw PresetError(path: rateField.path, "give either rate (Hz) or note (tempo sync), not both") }
        let value = try f.string()
        guard DelayNode.noteFraction(value) != nil else {
            throw PresetError(path: f.path, "\"\(value)\" is not a note value (allowed 1/1 … 1/64, dotted as 1/8d, triplet as 1/8t)")
        }
        if let t = tempoField { tempo = try t.number(in: DelayNode.Range.tempo, unit: "bpm") }
        let hz = frequency(note: value, tempo: tempo) ?? 0
        guard range.contains(hz) else {
            throw PresetError(path: f.path, "\(value) at \(SummaryFormat.number(tempo)) bpm is \(SummaryFormat.number(hz)) Hz, outside the rates \(SummaryFormat.number(range.lowerBound))…\(SummaryFormat.number(range.upperBound)) Hz")
        }
        note = value
    }

    /// The summary's words for the rate.
    package static func summary(rate: Double, note: String?, tempo: Double) -> String {
        note.map { "\($0) at \(SummaryFormat.number(tempo)) bpm" } ?? "\(SummaryFormat.number(rate)) Hz"
    }
}
