/// Where each channel of a signal is meant to play: the speaker positions of a channel
/// layout, in channel order, as a WAVE_FORMAT_EXTENSIBLE mask, a CAF layout or a FLAC/Vorbis
/// channel mask names them.
public struct ChannelLayout: Equatable, Sendable, CustomStringConvertible {
    /// A speaker position (the WAVE_FORMAT_EXTENSIBLE names; libsndfile's channel map).
    public enum Position: String, CaseIterable, Sendable {
        case mono = "M"
        case left = "L", right = "R", center = "C", lfe = "LFE"
        case backLeft = "BL", backRight = "BR", backCenter = "BC"
        case sideLeft = "SL", sideRight = "SR"
        case leftOfCenter = "Lc", rightOfCenter = "Rc"
        case topCenter = "TC", topFrontLeft = "TFL", topFrontRight = "TFR", topFrontCenter = "TFC"
        case topBackLeft = "TBL", topBackRight = "TBR", topBackCenter = "TBC"
        case ambisonicW = "W", ambisonicX = "X", ambisonicY = "Y", ambisonicZ = "Z"
        /// A channel whose position the file does not say.
        case unknown = "?"
    }

    public var positions: [Position]

    public init(_ positions: [Position]) { self.positions = positions }

    public var channelCount: Int { positions.count }

    /// The usual layout for `channelCount` channels in WAV/SMPTE order (ITU-R BS.775 and
    /// Microsoft's default masks): mono, stereo, 3.0 (L R C), quad (L R BL BR), 5.0 (L R C BL
    /// BR), 5.1 (L R C LFE BL BR), 6.1 (L R C LFE BC SL SR), 7.1 (L R C LFE BL BR SL SR);
    /// other counts are unknown positions.
    public static func standard(channelCount: Int) -> ChannelLayout {
        switch channelCount {
        case 1: ChannelLayout([.mono])
        case 2: ChannelLayout([.left, .right])
        case 3: ChannelLayout([.left, .right, .center])
        case 4: ChannelLayout([.left, .right, .backLeft, .backRight])
        case 5: ChannelLayout([.left, .right, .center, .backLeft, .backRight])
        case 6: ChannelLayout([.left, .right, .center, .lfe, .backLeft, .backRight])
        case 7: ChannelLayout([.left, .right, .center, .lfe, .backCenter, .sideLeft, .sideRight])
        case 8: ChannelLayout([.left, .right, .center, .lfe, .backLeft, .backRight, .sideLeft, .sideRight])
        default: ChannelLayout([Position](repeating: .unknown, count: max(0, channelCount)))
        }
    }

    /// The layout's usual name (`5.1`, `7.1`, `stereo`…), nil when it has none.
    public var name: String? {
        let p = Set(positions), n = positions.count
        guard p.count == n else { return nil }
        switch (n, p) {
        case (1, [.mono]), (1, [.center]): return "mono"
        case (2, [.left, .right]): return "stereo"
        case (3, [.left, .right, .center]): return "3.0"
        case (3, [.left, .right, .lfe]): return "2.1"
        case (4, [.left, .right, .backLeft, .backRight]), (4, [.left, .right, .sideLeft, .sideRight]): return "quad"
        case (5, [.left, .right, .center, .backLeft, .backRight]), (5, [.left, .right, .center, .sideLeft, .sideRight]): return "5.0"
        case (6, [.left, .right, .center, .lfe, .backLeft, .backRight]), (6, [.left, .right, .center, .lfe, .sideLeft, .sideRight]): return "5.1"
        case (7, [.left, .right, .center, .lfe, .backCenter, .sideLeft, .sideRight]): return "6.1"
        case (8, [.left, .right, .center, .lfe, .backLeft, .backRight, .sideLeft, .sideRight]): return "7.1"
        default: return nil
        }
    }

    /// `5.1 (L R C LFE BL BR)`, or the positions alone.
    public var description: String {
        let list = positions.map(\.rawValue).joined(separator: " ")
        return name.map { "\($0) (\(list))" } ?? list
    }

    /// ITU-R BS.1770-4's channel weights Gᵢ: 0 for the LFE; 1.41 (+1.5 dB) for the
    /// surrounds, the channels at 60–120° of azimuth — the side pair, or the back pair of a
    /// layout without sides (5.0/5.1's surrounds, which WAV masks call back left and right,
    /// stand at ±110°); 1 for the front, the centre and the backs of a layout with sides
    /// (7.1's back pair at ±135–150°, as libebur128 weighs them; ffmpeg's ebur128 filter
    /// gives every side and back channel 1.41). Unknown positions count 1.
    public var loudnessWeights: [Double] {
        let hasSides = positions.contains(.sideLeft) || positions.contains(.sideRight)
        return positions.map { p in
            switch p {
            case .lfe: 0
            case .sideLeft, .sideRight: 1.41
            case .backLeft, .backRight: hasSides ? 1 : 1.41
            default: 1
            }
        }
    }

    /// The channel order Ogg Vorbis and Opus (mapping family 1) fix for 3–8 channels (Vorbis I
    /// specification §4.3.9; RFC 7845 §5.1.1.2): L C R, quad, L C R BL BR, 5.1 with the LFE
    /// last, 6.1 and 7.1 with the sides before the backs. nil for other counts (mono and
    /// stereo are as in WAV).
    public static func vorbisOrder(channelCount: Int) -> ChannelLayout? {
        switch channelCount {
        case 3: ChannelLayout([.left, .center, .right])
        case 4: ChannelLayout([.left, .right, .backLeft, .backRight])
        case 5: ChannelLayout([.left, .center, .right, .backLeft, .backRight])
        case 6: ChannelLayout([.left, .center, .right, .backLeft, .backRight, .lfe])
        case 7: ChannelLayout([.left, .center, .right, .sideLeft, .sideRight, .backCenter, .lfe])
        case 8: ChannelLayout([.left, .center, .right, .sideLeft, .sideRight, .backLeft, .backRight, .lfe])
        default: nil
        }
    }

    /// For each channel of `target`, the index of the channel of this layout at its position
    /// (a surround pair called side in one and back in the other is the same pair when the
    /// layout has only one); nil when a position is missing or the counts differ.
    public func indices(for target: ChannelLayout) -> [Int]? {
        guard target.channelCount == channelCount else { return nil }
        let alias: [Position: Position] = [.sideLeft: .backLeft, .sideRight: .backRight, .backLeft: .sideLeft, .backRight: .sideRight]
        var out: [Int] = []
        for p in target.positions {
            guard let i = positions.firstIndex(of: p) ?? alias[p].flatMap({ a in positions.contains(p) ? nil : positions.firstIndex(of: a) }) else { return nil }
            out.append(i)
        }
        return Set(out).count == out.count ? out : nil
    }
}
