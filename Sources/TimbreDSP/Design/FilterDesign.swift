import Foundation

/// The response families Timbre designs.
public enum FilterType: String, Sendable, CaseIterable, Codable, Hashable {
    case highPass = "highpass", lowPass = "lowpass"
    case peak, lowShelf = "lowshelf", highShelf = "highshelf"
    case notch, bandPass = "bandpass", allPass = "allpass"

    /// Whether `gainDB` is meaningful for this type.
    public var hasGain: Bool { self == .peak || self == .lowShelf || self == .highShelf }
}

/// How a digital section approximates its analog prototype.
///
/// What each ``FilterType`` uses:
///
/// | type | `.matched` | `.bilinear` |
/// |---|---|---|
/// | peak, low/high shelf | best of `MatchedDesign/threePoint(_:omega0:matchOmega:)`, `MatchedDesign/refinedFit(_:omega0:sampleRate:correction:pinOmega0:wholeBand:)`, RBJ, and `MatchedDesign/freeFit(_:omega0:sampleRate:correction:pinOmega0:wholeBand:iterations:)` when those leave > 0.1 dB | RBJ |
/// | high-pass | `MatchedDesign/highPass(q:omega0:)` or RBJ per section, whichever is closer | RBJ |
/// | low-pass | best of three-point, refined fit, RBJ per section, with cascade correction | RBJ |
/// | notch, band-pass, all-pass | **RBJ** (centre exact by pre-warping, no gain to cramp) | RBJ |
public enum DesignMethod: String, Sendable, CaseIterable, Codable {
    /// Matched to the analog magnitude up to Nyquist (`MatchedDesign`). Default.
    /// Notch, band-pass and all-pass use the RBJ design here too (see the table above).
    case matched
    /// RBJ cookbook bilinear transform (`BilinearDesign`): exact at f0, cramped near Nyquist.
    case bilinear
}

/// A complete description of one filter: type, frequency, gain, Q or Butterworth slope, and design.
///
/// For `highpass`/`lowpass`, `slopeDBPerOctave` of 12, 24, 36 or 48 gives a Butterworth
/// cascade of 1–4 sections with per-section Q `1 / (2 cos((2k−1)π / 2N))`, k = 1…N/2
/// (N the order); `q` instead gives one section with that Q (TheAmazingAudioEngine's
/// AEHighPassFilter). Notch, band-pass and all-pass use the RBJ design in both modes:
/// their centre is exact by pre-warping and they have no gain to cramp.
public struct FilterDesign: Sendable, Hashable {
    public var type: FilterType
    public var frequencyHz: Double
    public var gainDB: Double
    public var q: Double
    /// Butterworth slope for high/low-pass; nil means a single section with `q`.
    public var slopeDBPerOctave: Int?
    public var method: DesignMethod

    public init(type: FilterType, frequencyHz: Double, gainDB: Double = 0, q: Double = 1 / 2.0.squareRoot(),
                slopeDBPerOctave: Int? = nil, method: DesignMethod = .matched) {
        self.type = type; self.frequencyHz = frequencyHz; self.gainDB = gainDB; self.q = q
        self.slopeDBPerOctave = slopeDBPerOctave; self.method = method
    }

    /// Per-section Q values of an even-order Butterworth filter.
    public static func butterworthQs(order: Int) -> [Double] {
        precondition(order >= 2 && order % 2 == 0, "Butterworth order must be even")
        return (1...(order / 2)).map { k in 1 / (2 * cos(Double(2 * k - 1) * Double.pi / Double(2 * order))) }
    }

    /// The analog prototype sections this design approximates (normalised to ω0).
    public var prototypes: [AnalogBiquad] {
        switch type {
        case .highPass, .lowPass:
            let qs = slopeDBPerOctave.map { Self.butterworthQs(order: $0 / 6) } ?? [q]
            return qs.map { type == .highPass ? AnalogBiquad.highPass(q: $0) : AnalogBiquad.lowPass(q: $0) }
        case .peak: return [.peak(gainDB: gainDB, q: q)]
        case .lowShelf: return [.lowShelf(gainDB: gainDB, q: q)]
        case .highShelf: return [.highShelf(gainDB: gainDB, q: q)]
        case .notch: return [.notch(q: q)]
        case .bandPass: return [.bandPass(q: q)]
        case .allPass: return [.allPass(q: q)]
        }
    }

    /// The analog prototype's magnitude in dB at `hz` (the reference the designs approximate).
    public func analogMagnitudeDB(at hz: Double) -> Double {
        prototypes.reduce(0) { $0 + 10 * log10($1.magnitudeSquared(normalizedFrequency: hz / frequencyHz)) }
    }

    /// Whether the centre or corner is at or above 0.49 × `sampleRate`, where a digital section
    /// cannot be placed and ``sections(sampleRate:)`` fits what the prototype does below Nyquist.
    public func isAboveBand(sampleRate: Double) -> Bool { frequencyHz >= 0.49 * sampleRate }

    /// The largest |analog response| in dB from 20 Hz to 0.9 × Nyquist: what a section above the
    /// band still has to do there.
    public func analogEffectInBandDB(sampleRate fs: Double) -> Double {
        let lo = 20.0, hi = 0.45 * fs
        return (0...199).map { abs(analogMagnitudeDB(at: lo * pow(hi / lo, Double($0) / 199))) }.max() ?? 0
    }

    /// Digital second-order sections at `sampleRate`. A bell or shelf at 0 dB yields no section.
    ///
    /// Bells, shelves and low-passes whose centre or corner is at or above 0.49 × the rate (a
    /// 12 kHz presence bell at 22.05 kHz, an 8 kHz shelf at 8 kHz) are fitted to their analog
    /// prototype over 20 Hz … 0.9 × Nyquist with no point pinned (`MatchedDesign.freeFit`), so
    /// the part of the curve that lies below Nyquist is kept; when that part is under 0.01 dB
    /// the band is left out. A high-pass there would remove everything: callers refuse it.
    public func sections(sampleRate fs: Double) -> [BiquadCoefficients] {
        let f0 = frequencyHz
        let w0 = 2 * Double.pi * f0 / fs
        if isAboveBand(sampleRate: fs) && type != .highPass {
            return aboveBandSections(sampleRate: fs)
        }
        switch type {
        case .highPass, .lowPass:
            let qs = slopeDBPerOctave.map { Self.butterworthQs(order: $0 / 6) } ?? [q]
            var designed: [(BiquadCoefficients, AnalogBiquad)] = []
            // Highest Q first: the later, gentler sections absorb its residual error.
            for sq in qs.reversed() {
                let bilinear = type == .highPass
                    ? BilinearDesign.highPass(frequencyHz: f0, q: sq, sampleRate: fs)
                    : BilinearDesign.lowPass(frequencyHz: f0, q: sq, sampleRate: fs)
                let proto: AnalogBiquad = type == .highPass ? .highPass(q: sq) : .lowPass(q: sq)
                guard method == .matched else { designed.append((bilinear, proto)); continue }
                if type == .lowPass {
                    // Each section also corrects what the sections before it left over.
                    let before = designed
                    let correction: ((Double) -> Double)? = before.isEmpty ? nil : { w in
                        before.reduce(1.0) { acc, pair in
                            let r = pair.0.response(omega: w)
                            return acc * pair.1.magnitudeSquared(normalizedFrequency: w / w0) / max(r.re * r.re + r.im * r.im, 1e-300)
                        }
                    }
                    designed.append((MatchedDesign.design(proto, omega0: w0, sampleRate: fs, fallback: bilinear,
                                                             correction: correction, pinOmega0: qs.count == 1, wholeBand: true), proto))
                    continue
                }
                let m = MatchedDesign.highPass(q: sq, omega0: w0)
                let useMatched = m.isStable && MatchedDesign.worstErrorDB(m, proto, omega0: w0, sampleRate: fs, wholeBand: true)
                    <= MatchedDesign.worstErrorDB(bilinear, proto, omega0: w0, sampleRate: fs, wholeBand: true)
                designed.append((useMatched ? m : bilinear, proto))
            }
            return designed.map(\.0)
        case .peak, .lowShelf, .highShelf:
            if gainDB == 0 { return [] }
            if method == .bilinear {
                switch type {
                case .peak: return [BilinearDesign.peak(frequencyHz: f0, gainDB: gainDB, q: q, sampleRate: fs)]
                case .lowShelf: return [BilinearDesign.lowShelf(frequencyHz: f0, gainDB: gainDB, q: q, sampleRate: fs)]
                default: return [BilinearDesign.highShelf(frequencyHz: f0, gainDB: gainDB, q: q, sampleRate: fs)]
                }
            }
            // Design the boost; a cut is its exact inverse (boost followed by cut is flat).
            let boost = abs(gainDB)
            let proto: AnalogBiquad = type == .peak ? .peak(gainDB: boost, q: q)
                : type == .lowShelf ? .lowShelf(gainDB: boost, q: q) : .highShelf(gainDB: boost, q: q)
            let bilinear = type == .peak ? BilinearDesign.peak(frequencyHz: f0, gainDB: boost, q: q, sampleRate: fs)
                : type == .lowShelf ? BilinearDesign.lowShelf(frequencyHz: f0, gainDB: boost, q: q, sampleRate: fs)
                : BilinearDesign.highShelf(frequencyHz: f0, gainDB: boost, q: q, sampleRate: fs)
            let c = MatchedDesign.design(proto, omega0: w0, sampleRate: fs, fallback: bilinear)
            return [gainDB > 0 ? c : c.inverse]
        case .notch: return [BilinearDesign.notch(frequencyHz: f0, q: q, sampleRate: fs)]
        case .bandPass: return [BilinearDesign.bandPass(frequencyHz: f0, q: q, sampleRate: fs)]
        case .allPass: return [BilinearDesign.allPass(frequencyHz: f0, q: q, sampleRate: fs)]
        }
    }

    /// ``sections(sampleRate:)`` for a design above the band.
    func aboveBandSections(sampleRate fs: Double) -> [BiquadCoefficients] {
        let w0 = 2 * Double.pi * frequencyHz / fs
        switch type {
        case .peak, .lowShelf, .highShelf, .lowPass:
            if type.hasGain && gainDB == 0 { return [] }
            guard analogEffectInBandDB(sampleRate: fs) >= 0.01 else { return [] }
            if type == .lowPass {
                let qs = slopeDBPerOctave.map { Self.butterworthQs(order: $0 / 6) } ?? [q]
                return qs.compactMap { MatchedDesign.freeFit(.lowPass(q: $0), omega0: w0, sampleRate: fs, pinOmega0: false, wholeBand: true) }
            }
            let boost = abs(gainDB)
            let proto: AnalogBiquad = type == .peak ? .peak(gainDB: boost, q: q)
                : type == .lowShelf ? .lowShelf(gainDB: boost, q: q) : .highShelf(gainDB: boost, q: q)
            guard let c = MatchedDesign.freeFit(proto, omega0: w0, sampleRate: fs, pinOmega0: false, wholeBand: true) else { return [] }
            return [gainDB > 0 ? c : c.inverse]
        default:
            return []
        }
    }
}
