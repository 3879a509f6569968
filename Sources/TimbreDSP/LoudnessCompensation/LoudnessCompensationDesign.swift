import Foundation

/// Loudness compensation after the ISO 226:2003 contours (``EqualLoudnessContour``): music
/// balanced at a reference loudness (`referencePhon` at 1 kHz) and played `volumeDB` quieter
/// loses bass and the top octave to the ear; this design puts back what the contours say is
/// lost, so the balance heard at the lower level matches the one heard at the reference:
///
/// ```
/// boost(f) = Lp(ref + v, f) − Lp(ref, f) − v        (v = volumeDB ≤ 0; boost(1 kHz) ≈ 0)
/// ```
///
/// Realised as five biquads of fixed frequency and Q (a low shelf at 71.2 Hz, bells at 19.3 Hz,
/// 79.3 Hz and 2634.7 Hz, a high shelf at 9869.5 Hz; RBJ cookbook forms) whose
/// gains are solved per listening level by Gauss–Newton least squares on the standard's 29
/// frequencies (weight 1), the 12.5 kHz value held up to 20 kHz and the 20 Hz value held down to
/// 5 Hz (weight 0.5 each, so the boost levels off instead of climbing towards DC). The shapes
/// were chosen once, by a joint fit over references 60–90 phon and levels 20 phon upwards
/// (`scripts/loudness-compensation-shapes.py`); with the gains alone to solve, the fit is
/// linear-like, unique, and its gains move smoothly with the level. The sections are designed
/// here at 1-phon steps; between two steps the coefficients are interpolated on a straight
/// line, which is all a live volume change does on the audio thread.
///
/// The listening level `ref + v` is held within 20 phon (the standard's lowest contour) and
/// the reference: louder than the reference nothing changes.
public struct LoudnessCompensationDesign: Sendable {
    /// The reference loudness levels offered, phon.
    public static let referenceRange: ClosedRange<Double> = 60...90
    /// The lowest listening level the contours cover, phon.
    public static let lowestLevel = 20.0
    /// Section kinds, frequencies (Hz) and Qs of the five sections.
    static let shapes: [(kind: Kind, frequencyHz: Double, q: Double)] = [
        (.lowShelf, 71.2, 0.376), (.peak, 19.3, 1.459), (.peak, 79.3, 0.216), (.peak, 2634.7, 0.404), (.highShelf, 9869.5, 0.979),
    ]
    /// How many sections a design has.
    public static let sectionCount = 5

    enum Kind: Sendable { case lowShelf, peak, highShelf }

    public let referencePhon: Double
    public let sampleRate: Double
    /// The sections per listening level, designed here (never on the audio thread): level
    /// `lowestLevel + i × step` from `i × tableStride`, five sections of (b0 b1 b2 a1 a2), up to
    /// the reference (identities).
    public let coefficients: [Double]
    /// The table's level step, phon (1 or a little less).
    public let step: Double
    /// Doubles per level in ``coefficients``.
    public static let tableStride = sectionCount * 5

    public init(referencePhon: Double, sampleRate: Double) {
        self.referencePhon = referencePhon
        self.sampleRate = sampleRate
        let frequencies = Self.shapes.map { min($0.frequencyHz, 0.4 * sampleRate) }
        let levels = max(2, Int((referencePhon - Self.lowestLevel).rounded(.up)) + 1)
        let step = (referencePhon - Self.lowestLevel) / Double(levels - 1)
        self.step = step
        var table = [Double](repeating: 0, count: levels * Self.tableStride)
        var g = [Double](repeating: 0, count: Self.sectionCount)
        // From the reference down, each fit starting from the one above it.
        for i in stride(from: levels - 1, through: 0, by: -1) {
            if i < levels - 1 {
                let level = Self.lowestLevel + Double(i) * step
                g = Self.fit(target: Self.targetPoints(referencePhon: referencePhon, volumeDB: level - referencePhon, sampleRate: sampleRate),
                             frequencies: frequencies, sampleRate: sampleRate, start: g)
            }
            for k in 0..<Self.sectionCount {
                let c = Self.section(k, gainDB: g[k], frequencyHz: frequencies[k], sampleRate: sampleRate)
                for (j, v) in [c.b0, c.b1, c.b2, c.a1, c.a2].enumerated() { table[i * Self.tableStride + 5 * k + j] = v }
            }
        }
        coefficients = table
    }

    /// The boost the contours ask for at ``EqualLoudnessContour/frequencies`` (dB), `volumeDB`
    /// below the reference (held within 20 phon and the reference).
    public static func boost(referencePhon: Double, volumeDB: Double) -> [Double] {
        let v = min(0, max(lowestLevel - referencePhon, volumeDB))
        return EqualLoudnessContour.frequencies.indices.map {
            EqualLoudnessContour.soundPressureLevel(phon: referencePhon + v, at: $0) - EqualLoudnessContour.soundPressureLevel(phon: referencePhon, at: $0) - v
        }
    }

    /// The fit's points: (frequency, target dB, weight).
    static func targetPoints(referencePhon: Double, volumeDB: Double, sampleRate: Double) -> [(Double, Double, Double)] {
        let b = boost(referencePhon: referencePhon, volumeDB: volumeDB)
        var points = zip(EqualLoudnessContour.frequencies, b).map { ($0, $1, 1.0) }
        for f in [14000.0, 16000, 18000, 20000] { points.append((f, b[b.count - 1], 0.5)) }
        for f in [5.0, 10, 15] { points.append((f, b[0], 0.5)) }
        return points.filter { $0.0 < 0.45 * sampleRate }
    }

    /// Gauss–Newton on the five gains: each section's dB response depends on its own gain only,
    /// so the Jacobian is five finite-difference columns.
    static func fit(target: [(Double, Double, Double)], frequencies: [Double], sampleRate fs: Double, start: [Double]) -> [Double] {
        var g = start
        func response(_ k: Int, _ gain: Double, _ f: Double) -> Double {
            section(k, gainDB: gain, frequencyHz: frequencies[k], sampleRate: fs).magnitudeDB(at: f, sampleRate: fs)
        }
        for _ in 0..<12 {
            var rows: [[Double]] = [], rhs: [Double] = []
            for (f, t, w) in target {
                var model = 0.0, row = [Double](repeating: 0, count: sectionCount)
                for k in 0..<sectionCount {
                    let r = response(k, g[k], f)
                    model += r
                    row[k] = w * (response(k, g[k] + 1e-3, f) - r) / 1e-3
                }
                rows.append(row); rhs.append(w * (t - model))
            }
            guard let step = LeastSquares.solve(rows: rows, rhs: rhs) else { break }
            for k in 0..<sectionCount { g[k] += step[k] }
            if step.map(abs).max()! < 1e-7 { break }
        }
        return g
    }

    /// Section `k` at `gainDB` (RBJ cookbook).
    static func section(_ k: Int, gainDB: Double, frequencyHz: Double, sampleRate: Double) -> BiquadCoefficients {
        let q = shapes[k].q
        switch shapes[k].kind {
        case .lowShelf: return BilinearDesign.lowShelf(frequencyHz: frequencyHz, gainDB: gainDB, q: q, sampleRate: sampleRate)
        case .peak: return BilinearDesign.peak(frequencyHz: frequencyHz, gainDB: gainDB, q: q, sampleRate: sampleRate)
        case .highShelf: return BilinearDesign.highShelf(frequencyHz: frequencyHz, gainDB: gainDB, q: q, sampleRate: sampleRate)
        }
    }

    /// Section `k` at `volumeDB`: a straight line between the table's two levels around it (a
    /// biquad's stable denominators form a convex set, so every point on it is stable; the
    /// levels are at most 1 phon apart). Real-time safe: loads and multiplies.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    static func section(_ k: Int, volumeDB: Double, table: UnsafePointer<Double>, levels: Int, referencePhon: Double, step: Double) -> BiquadCoefficients {
        var i = levels - 2, t = 1.0
        if step > 0, volumeDB < 0 {
            let x = min(Double(levels - 1), max(0, (referencePhon + volumeDB - lowestLevel) / step))
            i = min(levels - 2, Int(x)); t = x - Double(i)
        }
        let a = table + i * tableStride + 5 * k, b = a + tableStride
        return BiquadCoefficients(b0: a[0] + t * (b[0] - a[0]), b1: a[1] + t * (b[1] - a[1]), b2: a[2] + t * (b[2] - a[2]),
                                  a1: a[3] + t * (b[3] - a[3]), a2: a[4] + t * (b[4] - a[4]))
    }

    /// The sections at `volumeDB`, as the filter runs them.
    public func sections(volumeDB: Double) -> [BiquadCoefficients] {
        coefficients.withUnsafeBufferPointer { table in
            (0..<Self.sectionCount).map {
                Self.section($0, volumeDB: volumeDB, table: table.baseAddress!, levels: coefficients.count / Self.tableStride, referencePhon: referencePhon, step: step)
            }
        }
    }
}
