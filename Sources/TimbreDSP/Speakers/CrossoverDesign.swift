import Foundation

/// A 2- to 5-way crossover: the filter sections of each band, designed as a value.
///
/// Each split point k has a low-pass `LPₖ` and a high-pass `HPₖ` with the same poles (a
/// Butterworth filter of order N, or for Linkwitz–Riley of order 2N two of them in a row).
/// Bands are a tree of splits, with the allpass `APₖ = LPₖ + s·HPₖ` of every later split in
/// the lower bands (D'Appolito, *Testing Loudspeakers*, and the usual active crossover layout):
///
/// ```
/// band 0      = LP₁ · AP₂ · … · APₖ
/// band j      = (s·HP₁) · … · (s·HPⱼ) · LPⱼ₊₁ · APⱼ₊₂ · …
/// band last   = (s·HP₁) · … · (s·HPₖ)
/// sum         = AP₁ · AP₂ · … · APₖ          (telescoping: LPₖ + s·HPₖ = APₖ)
/// ```
///
/// For Linkwitz–Riley of order 2N, `LP + s·HP = B(−s)/B(s)` exactly, B the Butterworth
/// polynomial of order N, with s = (−1)ᴺ: LR2 inverts every other band (its high band is
/// in antiphase by design), LR4 and LR8 sum in phase. The bands therefore sum to an allpass:
/// flat magnitude. The bilinear transform is a substitution, so the identity holds for the
/// digital sections too (all prewarped to their split frequency). Butterworth crossovers use
/// s = +1 for odd orders (their sum is flat) and for even ones the sign that gives +3 dB at
/// the split rather than a notch (s·jᴺ = 1: −1 for orders 2 and 6, +1 for 4 and 8); their lower
/// bands carry the Butterworth allpass `B(−s)/B(s)` of each later split, so a multi-way
/// Butterworth sum is close to, but not exactly, an allpass (ACCURACY.md states it).
public struct CrossoverDesign: Sendable, Equatable, Hashable {
    /// The filter family.
    public enum Alignment: String, Sendable, CaseIterable {
        case linkwitzRiley = "linkwitz-riley"
        case butterworth
    }

    public var alignment: Alignment
    /// The slope's order: 2, 4 or 8 for Linkwitz–Riley (12, 24, 48 dB/oct), 1…8 for Butterworth.
    public var order: Int
    /// The split frequencies, ascending: one per split (2 to 5 bands).
    public var frequenciesHz: [Double]

    /// Linkwitz–Riley orders.
    public static let linkwitzRileyOrders = [2, 4, 8]
    public static let butterworthOrders = 1...8
    /// Split frequencies a crossover takes (1 to 4 splits).
    public static let splitCounts = 1...4

    public init(alignment: Alignment = .linkwitzRiley, order: Int = 4, frequenciesHz: [Double]) {
        self.alignment = alignment; self.order = order; self.frequenciesHz = frequenciesHz
    }

    public var bandCount: Int { frequenciesHz.count + 1 }

    /// The Butterworth order N of one low- or high-pass filter (LR of order 2N uses two).
    var butterworthOrder: Int { alignment == .linkwitzRiley ? order / 2 : order }

    /// +1 when a split's bands sum in phase, −1 when the high side is inverted.
    public var highSign: Double {
        switch alignment {
        case .linkwitzRiley: butterworthOrder % 2 == 0 ? 1 : -1
        case .butterworth: order % 2 == 1 || order % 4 == 0 ? 1 : -1
        }
    }

    /// The quality factors of a Butterworth filter of order `n`'s second-order sections (a
    /// first-order section too when n is odd): poles at angles ψₖ = (2k − 1 + n mod 2)·π/(2n)
    /// from the negative real axis, Q = 1 / (2 cos ψₖ).
    public static func butterworthQs(order n: Int) -> [Double] {
        (0..<n / 2).map { k in 1 / (2 * cos(Double(2 * k + 1 + n % 2) * Double.pi / Double(2 * n))) }
    }

    /// The sections of band `index` (0 = lowest) at `sampleRate`, the band's polarity folded in.
    public func sections(band index: Int, sampleRate: Double) -> [BiquadCoefficients] {
        precondition((0..<bandCount).contains(index))
        var sections: [BiquadCoefficients] = []
        for (k, f) in frequenciesHz.enumerated() {
            if k < index {
                sections += pass(.high, at: f, sampleRate: sampleRate)
            } else if k == index {
                sections += pass(.low, at: f, sampleRate: sampleRate)
            } else if k > index {
                sections += allpass(at: f, sampleRate: sampleRate)
            }
        }
        // (s·HP) once per split below the band.
        if highSign < 0 && index % 2 == 1, !sections.isEmpty {
            var first = sections[0]
            first.b0 = -first.b0; first.b1 = -first.b1; first.b2 = -first.b2
            sections[0] = first
        }
        return sections
    }

    /// Every band's sections.
    public func bands(sampleRate: Double) -> [[BiquadCoefficients]] {
        (0..<bandCount).map { sections(band: $0, sampleRate: sampleRate) }
    }

    enum Side { case low, high }

    /// One split's low- or high-pass: Butterworth of order N, twice for Linkwitz–Riley.
    func pass(_ side: Side, at f: Double, sampleRate: Double) -> [BiquadCoefficients] {
        let n = butterworthOrder, k = tan(Double.pi * f / sampleRate)
        var one: [BiquadCoefficients] = []
        if n % 2 == 1 { one.append(side == .low ? Self.firstOrderLowpass(k) : Self.firstOrderHighpass(k)) }
        for q in Self.butterworthQs(order: n) { one.append(side == .low ? Self.lowpass(k, q) : Self.highpass(k, q)) }
        return alignment == .linkwitzRiley ? one + one : one
    }

    /// The Butterworth allpass B(−s)/B(s) of order N at a split.
    func allpass(at f: Double, sampleRate: Double) -> [BiquadCoefficients] {
        let n = butterworthOrder, k = tan(Double.pi * f / sampleRate)
        var sections: [BiquadCoefficients] = []
        if n % 2 == 1 { sections.append(Self.firstOrderAllpass(k)) }
        for q in Self.butterworthQs(order: n) { sections.append(Self.allpass(k, q)) }
        return sections
    }

    // Bilinear transform of the analog prototypes with s = (1/K)(1 − z⁻¹)/(1 + z⁻¹),
    // K = tan(πf/fs) (prewarped to f). RBJ's cookbook gives the same second-order forms.

    static func lowpass(_ k: Double, _ q: Double) -> BiquadCoefficients {
        let k2 = k * k, d = 1 + k / q + k2
        return BiquadCoefficients(b0: k2 / d, b1: 2 * k2 / d, b2: k2 / d, a1: 2 * (k2 - 1) / d, a2: (1 - k / q + k2) / d)
    }

    static func highpass(_ k: Double, _ q: Double) -> BiquadCoefficients {
        let k2 = k * k, d = 1 + k / q + k2
        return BiquadCoefficients(b0: 1 / d, b1: -2 / d, b2: 1 / d, a1: 2 * (k2 - 1) / d, a2: (1 - k / q + k2) / d)
    }

    /// (s² − s/Q + 1) / (s² + s/Q + 1).
    static func allpass(_ k: Double, _ q: Double) -> BiquadCoefficients {
        let k2 = k * k, d = 1 + k / q + k2, a2 = (1 - k / q + k2) / d, a1 = 2 * (k2 - 1) / d
        return BiquadCoefficients(b0: a2, b1: a1, b2: 1, a1: a1, a2: a2)
    }

    static func firstOrderLowpass(_ k: Double) -> BiquadCoefficients {
        BiquadCoefficients(b0: k / (k + 1), b1: k / (k + 1), b2: 0, a1: (k - 1) / (k + 1), a2: 0)
    }

    static func firstOrderHighpass(_ k: Double) -> BiquadCoefficients {
        BiquadCoefficients(b0: 1 / (k + 1), b1: -1 / (k + 1), b2: 0, a1: (k - 1) / (k + 1), a2: 0)
    }

    /// (1 − s) / (1 + s).
    static func firstOrderAllpass(_ k: Double) -> BiquadCoefficients {
        let a = (k - 1) / (k + 1)
        return BiquadCoefficients(b0: a, b1: 1, b2: 0, a1: a, a2: 0)
    }
}
