/// The independent reference every convolution test compares with: y[t] = Σ_m h[m]·x[t − m]
/// summed in Double, the first `x.count` outputs (no latency).
public enum DirectConvolution {
    public static func direct(_ x: [Float], _ h: [Float]) -> [Double] {
        var y = [Double](repeating: 0, count: x.count)
        for t in 0..<x.count {
            var s = 0.0
            for m in 0..<min(h.count, t + 1) { s += Double(h[m]) * Double(x[t - m]) }
            y[t] = s
        }
        return y
    }
}
