/// Four-point (third-order) Lagrange interpolation: the signal at φ (0 < φ ≤ 1) past y₀, from
/// y₋₁, y₀, y₁, y₂ (Laakso et al., "Splitting the unit delay", IEEE SPM 1996, §3.3). Read at a
/// position between y₀ and y₁ — the centred interval — its magnitude never exceeds 1, so it
/// may sit inside a feedback loop. The echo delay's short reads use it; the chorus's C kernel
/// (`timbre_modulated_voice`) computes the same weights eight lanes at a time.
public enum LagrangeRead {
    @inline(__always)
    public static func value(_ ym: Float, _ y0: Float, _ y1: Float, _ y2: Float, at p: Float) -> Float {
        // The four weights from two shared products, multiplied by ½ and ⅙ (no division per read).
        let bc = p * (p - 1), ad = (p + 1) * (p - 2)
        let sixth: Float = 1.0 / 6.0
        return -bc * (p - 2) * sixth * ym + ad * (p - 1) * 0.5 * y0 - ad * p * 0.5 * y1 + (p + 1) * bc * sixth * y2
    }
}
