/// A fixed matrix from one channel layout to another channel count: the ITU downmixes, and
/// the plain upmixes sox and ffmpeg make.
///
/// - **Down to stereo** (ITU-R BS.775-3, Table 2): Lo = L + 0.7071·C + 0.7071·Ls,
///   Ro = R + 0.7071·C + 0.7071·Rs; the LFE is left out. With both sides and backs (7.1) each
///   pair goes in at 0.7071, a back centre at 0.7071 to both, left and right of centre at 1
///   to their side. Nothing is normalised: a loud mix can clip (counted and
///   reported as every clip is).
/// - **Down to mono**: the stereo downmix's mean, (Lo + Ro)/2 (sox's `channels 1` of stereo).
/// - **Up from mono**: stereo gets it in both channels; more channels in the centre (or both
///   fronts where there is no centre).
/// - **Up from stereo**: L and R to the front pair, every other channel silent — no centre
///   or surrounds are invented (what ffmpeg's `-ac 6` of stereo gives).
public struct ChannelConversion: Equatable, Sendable {
    public let from: ChannelLayout
    public let to: ChannelLayout
    /// `gains[o][i]`: input channel i's share of output channel o.
    public let gains: [[Double]]

    /// The conversion of `from` to `channelCount` channels (in their usual layout), nil when
    /// none is defined (`from` without a front pair, say).
    public init?(from: ChannelLayout, toChannelCount channelCount: Int) {
        let to = ChannelLayout.standard(channelCount: channelCount)
        let p = from.positions, n = p.count
        func index(_ q: ChannelLayout.Position) -> Int? { p.firstIndex(of: q) }
        var rows = [[Double]](repeating: [Double](repeating: 0, count: n), count: channelCount)
        let h = 0.7071067811865476
        if channelCount == n {
            guard let map = from.indices(for: to) ?? (from.positions.contains(.unknown) ? Array(0..<n) : nil) else { return nil }
            for (o, i) in map.enumerated() { rows[o][i] = 1 }
        } else if n == 1 {
            if channelCount == 2 { rows[0][0] = 1; rows[1][0] = 1 } else if let c = to.positions.firstIndex(of: .center) { rows[c][0] = 1 } else { return nil }
        } else if channelCount <= 2 {
            // The stereo downmix first.
            guard let l = index(.left), let r = index(.right) else { return nil }
            var lo = [Double](repeating: 0, count: n), ro = lo
            lo[l] = 1; ro[r] = 1
            for (i, q) in p.enumerated() {
                switch q {
                case .center, .backCenter: lo[i] += h; ro[i] += h
                case .sideLeft, .backLeft: lo[i] += h
                case .sideRight, .backRight: ro[i] += h
                case .leftOfCenter: lo[i] += 1
                case .rightOfCenter: ro[i] += 1
                case .left, .right, .lfe: break
                default: return nil  // heights, ambisonics, unknown: no ITU rule
                }
            }
            if channelCount == 2 { rows = [lo, ro] } else { rows = [zip(lo, ro).map { ($0 + $1) / 2 }] }
        } else if n == 2, from.positions == [.left, .right], let l = to.positions.firstIndex(of: .left), let r = to.positions.firstIndex(of: .right) {
            rows[l][0] = 1; rows[r][1] = 1
        } else {
            return nil
        }
        self.from = from; self.to = to; gains = rows
    }
}
