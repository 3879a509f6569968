/// A resampling ratio as a reduced fraction: `upsampling` output frames for every
/// `downsampling` input frames (L/M in the polyphase literature).
public struct RationalRatio: Equatable, Sendable, CustomStringConvertible {
    public let upsampling: Int
    public let downsampling: Int

    /// `numerator/denominator` reduced to lowest terms (both must be positive).
    public init(_ numerator: Int, _ denominator: Int) {
        precondition(numerator > 0 && denominator > 0, "a ratio needs positive terms")
        var a = numerator, b = denominator
        while b != 0 { (a, b) = (b, a % b) }
        upsampling = numerator / a
        downsampling = denominator / a
    }

    /// The conversion from `inputRate` to `outputRate` (whole Hz).
    public init(inputRate: Int, outputRate: Int) { self.init(outputRate, inputRate) }

    /// The fraction nearest `value` whose numerator and denominator are at most `limit`
    /// (continued-fraction convergents, Khinchin's theorem 15: each convergent is the best
    /// approximation with a denominator that small).
    public init(approximating value: Double, limit: Int = 1000) {
        precondition(value > 0 && value.isFinite, "a ratio must be positive and finite")
        var (h0, h1, k0, k1) = (0, 1, 1, 0)  // convergents h/k
        var x = value
        while true {
            let a = Int(x.rounded(.down))
            let (h2, k2) = (a * h1 + h0, a * k1 + k0)
            if h2 > limit || k2 > limit { break }
            (h0, h1, k0, k1) = (h1, h2, k1, k2)
            let f = x - Double(a)
            if f < 1e-12 { break }
            x = 1 / f
        }
        if h1 == 0 || k1 == 0 { (h1, k1) = (max(1, Int(value.rounded())), 1) }
        self.init(h1, k1)
    }

    public var value: Double { Double(upsampling) / Double(downsampling) }

    /// Output frames a signal of `n` input frames converts to at this ratio: ⌈n·L/M⌉.
    public func outputFrames(forInputFrames n: Int64) -> Int64 {
        (n * Int64(upsampling) + Int64(downsampling) - 1) / Int64(downsampling)
    }
    public var description: String { "\(upsampling)/\(downsampling)" }
}
