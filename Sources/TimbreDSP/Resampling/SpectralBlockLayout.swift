/// The block geometry of a ``SpectralResampler``: transform sizes, hop and lead, chosen so
/// that every block's output lands on the global output grid and no sample it keeps is
/// touched by the circular wrap-around.
///
/// ```
///  input block j (N_in = M·q frames, starts at absolute frame j·hopIn − lead)
///  |<- lead ->|<------------- hopIn ------------->|<- ≥ T ->|
///  | history  |  frames whose outputs block j keeps |  look-  |
///  |  (≥ T)   |                                    |  ahead  |
///  output block (N_out = L·q frames): keeps indices lead·L/M ..< lead·L/M + hopOut
/// ```
///
/// The kernel reaches T input frames each side of an output position, so an output is exact
/// (free of wrap-around) when its position lies at least T frames inside the block. `lead`
/// and `hopIn` are multiples of M, which puts output index r of every block on absolute
/// output frame j·hopOut + r − lead·L/M.
public struct SpectralBlockLayout: Equatable, Sendable {
    /// Forward transform size, M·q input frames.
    public let inputBlock: Int
    /// Inverse transform size, L·q output frames.
    public let outputBlock: Int
    /// Input frames each block advances (a multiple of M).
    public let hopInput: Int
    /// Output frames each block yields, hopInput·L/M.
    public let hopOutput: Int
    /// Input frames of history before the first kept position (a multiple of M, ≥ T).
    public let leadInput: Int

    /// Kept frames per transformed frame below which a larger block is tried.
    /// Measured here (FFTW 3.3.10, FFTW_ESTIMATE, complex Double, Zen 3): blocks whose larger
    /// transform has 1–2 k points run fastest per frame (they stay in L1/L2); 75 % efficiency
    /// picks them for 44.1↔48 kHz (1176/1280, 1280/1176) and 2:1 (1024/2048, 2048/1024).
    static let minimumEfficiency = 0.75
    /// The larger transform is at least this long (smaller ones cost more per frame in calls).
    static let minimumTransform = 1024
    /// Above this, ratios of large coprime terms fall back to the polyphase engine.
    public static let maximumTransform = 1 << 20

    /// The smallest power-of-two q that keeps `minimumEfficiency` for ratio L/M and a kernel
    /// reaching `reach` input frames each side; nil when that needs a transform above
    /// ``maximumTransform``.
    public init?(ratio: RationalRatio, reach: Int) {
        let l = ratio.upsampling, m = ratio.downsampling
        let lead = (reach + m - 1) / m * m
        var q = 1
        while max(l, m) * q <= Self.maximumTransform {
            let nIn = m * q
            let hop = (nIn - 1 - lead - reach) / m * m
            if hop >= m, Double(hop) >= Self.minimumEfficiency * Double(nIn), max(nIn, l * q) >= Self.minimumTransform {
                inputBlock = nIn; outputBlock = l * q
                hopInput = hop; hopOutput = hop / m * l
                leadInput = lead
                return
            }
            q *= 2
        }
        return nil
    }
}
