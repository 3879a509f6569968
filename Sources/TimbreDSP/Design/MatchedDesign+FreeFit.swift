import Foundation

extension MatchedDesign {
    /// A fit of all five coefficients to the analog |H|² with no pole placed in advance.
    ///
    /// Why: the other matched constructions start from impulse-invariant images of the
    /// analog poles. A high shelf's poles sit at √A·f0 (above f0 for a boost), so a shelf
    /// set near the top of the band has its poles beyond Nyquist, where impulse invariance
    /// folds them back and the three-point match and the refined fit start from a
    /// meaningless denominator (measured before this fit existed: a 20 kHz, +20 dB, Q 2
    /// high shelf at 44.1 kHz was 12.8 dB off its prototype at 19.8 kHz).
    ///
    /// Method: |B(e^{jω})|² and |A(e^{jω})|² of real quadratics are quadratics in
    /// φ = sin²(ω/2), so the magnitude target T(ω) is fitted as
    ///
    /// ```
    ///          p0 + p1 φ + p2 φ²
    /// T(ω) ≈ ---------------------     (q0 = 1)
    ///          1  + q1 φ + q2 φ²
    /// ```
    ///
    /// by linearised least squares (with ω0 weighted 10⁴× the heaviest band point when
    /// `pinOmega0`, so a bell's gain at its centre is what the user set), P − T·Q = 0 per grid point, each row divided by T·Q of
    /// the previous iteration (Steiglitz–McBride: the equation error becomes the relative
    /// error), then Lawson reweighting by the current dB error towards the minimax fit. The
    /// grid is the judged band (20 Hz to ``topOfBand(_:wholeBand:)``, log-spaced) plus a few
    /// lightly weighted points above it up to Nyquist, where the analog target may keep
    /// rising and a digital section cannot (its slope is zero at Nyquist). P and Q must be
    /// positive on [0, 1]; they are then factored into minimum-phase quadratics in
    /// Vicanek's power representation (``factor(_:_:_:)``: P0 = p0, P1 = p0 + p1 + p2,
    /// P2 = −p2/4), so the section is stable and its inverse (a cut) is too.
    ///
    /// References: K. Steiglitz, L. McBride, "A technique for the identification of linear
    /// systems", IEEE Trans. Automatic Control, 1965; C. L. Lawson, "Contributions to the
    /// theory of linear least maximum approximation", 1961.
    package static func freeFit(_ prototype: AnalogBiquad, omega0: Double, sampleRate: Double,
                               correction: ((Double) -> Double)? = nil, pinOmega0: Bool = true, wholeBand: Bool = false,
                               iterations: Int = 60) -> BiquadCoefficients? {
        let top = topOfBand(sampleRate, wholeBand: wholeBand, prototype: prototype)
        let lo = min(2 * Double.pi * 20 / sampleRate, omega0 / 4)
        var omegas = (0..<160).map { lo * pow(top / lo, Double($0) / 159) }
        let width = 1.5 * prototype.relativeBandwidth
        omegas += (0..<32).map { omega0 * (1 - width + 2 * width * Double($0) / 31) }.filter { $0 > lo && $0 < top }
        let fitted = omegas.count
        var weights = [Double](repeating: 1, count: fitted)
        for k in 1...10 { omegas.append(top + Double(k) * (0.999 * Double.pi - top) / 10); weights.append(0.05) }
        // ω0 last, with a weight kept far above the others so the set gain is met exactly.
        let pinned = pinOmega0 && omega0 < Double.pi
        if pinned { omegas.append(omega0); weights.append(1) }
        let target = omegas.map { prototype.magnitudeSquared(normalizedFrequency: $0 / omega0) * (correction?($0) ?? 1) }
        let phis = omegas.map { let s = sin($0 / 2); return s * s }
        var previousQ = [Double](repeating: 1, count: omegas.count)
        var best: (coefficients: BiquadCoefficients, error: Double)?
        for iteration in 0..<iterations {
            if pinned { weights[omegas.count - 1] = 1e4 * (weights[0..<fitted].max() ?? 1) }
            var rows = [[Double]](), rhs = [Double]()
            rows.reserveCapacity(omegas.count); rhs.reserveCapacity(omegas.count)
            for i in omegas.indices {
                let f = phis[i], t = target[i], s = weights[i] / (t * previousQ[i])
                rows.append([s, f * s, f * f * s, -t * f * s, -t * f * f * s])
                rhs.append(t * s)
            }
            guard let x = LeastSquares.solve(rows: rows, rhs: rhs) else { break }
            let p = (x[0], x[1], x[2]), q = (1.0, x[3], x[4])
            // An iterate that is not a valid squared magnitude is not kept, but the iteration
            // goes on from it: the reweighting usually brings the next one back.
            let valid = positiveOnUnitInterval(p) && positiveOnUnitInterval(q)
            var errors = [Double](repeating: 0, count: fitted)
            var qPositive = true
            for i in omegas.indices {
                let f = phis[i]
                let pv = p.0 + p.1 * f + p.2 * f * f, qv = q.0 + q.1 * f + q.2 * f * f
                if qv <= 0 { qPositive = false }
                if i < fitted { errors[i] = min(40, abs(10 * log10(max(pv, 1e-30) / (max(qv, 1e-30) * target[i])))) }
            }
            if qPositive {
                for i in omegas.indices { let f = phis[i]; previousQ[i] = q.0 + q.1 * f + q.2 * f * f }
            }
            if valid, let (b0, b1, b2) = factor(p.0, p.0 + p.1 + p.2, -p.2 / 4),
               let (a0, a1, a2) = factor(q.0, q.0 + q.1 + q.2, -q.2 / 4) {
                let c = BiquadCoefficients(b0: b0, b1: b1, b2: b2, a0: a0, a1: a1, a2: a2)
                let worst = errors.max() ?? .infinity
                if c.isStable, c.b0.isFinite, worst < (best?.error ?? .infinity) { best = (c, worst) }
            }
            if iteration >= 10 {  // Lawson: weight each point by its share of the error
                let mean = errors.reduce(0, +) / Double(fitted)
                if mean <= 1e-9 { break }
                for i in 0..<fitted { weights[i] *= errors[i] / mean + 1e-3 }
            }
        }
        return best?.coefficients
    }

    /// Whether c0 + c1 φ + c2 φ² > 0 for every φ in [0, 1] (ends and vertex).
    static func positiveOnUnitInterval(_ c: (Double, Double, Double)) -> Bool {
        guard c.0 > 0, c.0 + c.1 + c.2 > 0 else { return false }
        if c.2 > 0 {
            let v = -c.1 / (2 * c.2)
            if v > 0 && v < 1 { return c.0 + c.1 * v + c.2 * v * v > 0 }
        }
        return true
    }
}
