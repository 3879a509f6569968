import TimbreDSP

/// What a dynamics node's detector hears of its key (`"sidechain"`): the key through a
/// high-pass, a low-pass or a band (12 dB/octave edges) — a de-esser is a compressor keyed on
/// 4–10 kHz, a gate keyed above 2 kHz ignores the rumble. The audio itself is not filtered.
///
/// At a sample rate whose Nyquist limit (0.49 × the rate) cuts into the filter, an edge above it
/// is dropped (a band keeps its high-pass); when the whole pass band lies above it (a de-esser
/// at 8 kHz) the detector would hear nothing, and the node is left out of the plan.
public enum SidechainFilter: Sendable, Equatable {
    case highPass(hz: Double)
    case lowPass(hz: Double)
    case band(lowHz: Double, highHz: Double)

    /// The sections at `sampleRate`; nil when nothing of the pass band is below 0.49 × the rate.
    public func sections(sampleRate: Double) -> [BiquadCoefficients]? {
        let limit = ParameterRanges.nyquistFraction * sampleRate
        func hp(_ f: Double) -> [BiquadCoefficients] { FilterDesign(type: .highPass, frequencyHz: f, slopeDBPerOctave: 12).sections(sampleRate: sampleRate) }
        func lp(_ f: Double) -> [BiquadCoefficients] { FilterDesign(type: .lowPass, frequencyHz: f, slopeDBPerOctave: 12).sections(sampleRate: sampleRate) }
        switch self {
        case .highPass(let f): return f >= limit ? nil : hp(f)
        case .lowPass(let f): return f >= limit ? [] : lp(f)
        case .band(let lo, let hi): return lo >= limit ? nil : hp(lo) + (hi >= limit ? [] : lp(hi))
        }
    }

    /// Decodes `{"highpass": Hz}`, `{"lowpass": Hz}` or `{"band": [low, high]}` (`{}`: none).
    static func decode(_ field: Field) throws(PresetError) -> SidechainFilter? {
        var o = try ObjectReader(field.value, path: field.path)
        let hp = try o.optional("highpass"), lp = try o.optional("lowpass"), band = try o.optional("band")
        try o.finish()
        let given = [hp, lp, band].compactMap { $0 }
        guard given.count <= 1 else { throw PresetError(path: field.path, "give one of \"highpass\", \"lowpass\" or \"band\"") }
        if let hp { return .highPass(hz: try hp.number(in: ParameterRanges.frequencyHz, unit: "Hz")) }
        if let lp { return .lowPass(hz: try lp.number(in: ParameterRanges.frequencyHz, unit: "Hz")) }
        if let band {
            let edges = try band.array()
            guard edges.count == 2, case .number(let lo) = edges[0], case .number(let hi) = edges[1],
                  ParameterRanges.frequencyHz.contains(lo), ParameterRanges.frequencyHz.contains(hi), lo < hi else {
                throw PresetError(path: band.path, "expected [low, high] in Hz with 20 ≤ low < high ≤ 20000, found \(band.value.brief)")
            }
            return .band(lowHz: lo, highHz: hi)
        }
        return nil
    }

    var json: JSONValue {
        switch self {
        case .highPass(let f): .object(["highpass": .number(f)])
        case .lowPass(let f): .object(["lowpass": .number(f)])
        case .band(let lo, let hi): .object(["band": .array([.number(lo), .number(hi)])])
        }
    }

    var summary: String {
        switch self {
        case .highPass(let f): String(format: ", key high-pass %g Hz", f)
        case .lowPass(let f): String(format: ", key low-pass %g Hz", f)
        case .band(let lo, let hi): String(format: ", key %g–%g Hz", lo, hi)
        }
    }
}
