import CSndFile
import TimbreDSP

/// libsndfile's channel map (`SFC_GET/SET_CHANNEL_MAP_INFO`: a WAVE_FORMAT_EXTENSIBLE
/// channel mask, a CAF channel layout) in terms of `ChannelLayout`.
extension ChannelLayout {
    /// The layout `file` declares, nil when it declares none.
    static func read(from file: OpaquePointer, channelCount: Int) -> ChannelLayout? {
        var map = [Int32](repeating: 0, count: channelCount)
        let ok = map.withUnsafeMutableBytes { sf_command(file, Int32(SFC_GET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count)) }
        guard ok == Int32(SF_TRUE) else { return nil }
        let layout = ChannelLayout(map.map(Position.init(libsndfile:)))
        return layout.positions.allSatisfy { $0 == .unknown } ? nil : layout
    }

    /// Declares the layout in `file` (before its first write); false when the container
    /// cannot hold it.
    /// A layout of unknown positions only (discrete channels: a crossover's bands) is written as
    /// such, so a WAVE_FORMAT_EXTENSIBLE file's mask is 0 rather than libsndfile's guess from
    /// the channel count; it declares nothing (false).
    func write(to file: OpaquePointer) -> Bool {
        var map = positions.map(\.libsndfileCode)
        guard positions.contains(where: { $0 != .unknown }) else {
            _ = map.withUnsafeMutableBytes { sf_command(file, Int32(SFC_SET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count)) }
            return false
        }
        return map.withUnsafeMutableBytes { sf_command(file, Int32(SFC_SET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count)) } == Int32(SF_TRUE)
    }
}

extension ChannelLayout.Position {
    init(libsndfile code: Int32) {
        switch Int(code) {
        case SF_CHANNEL_MAP_MONO: self = .mono
        case SF_CHANNEL_MAP_LEFT, SF_CHANNEL_MAP_FRONT_LEFT: self = .left
        case SF_CHANNEL_MAP_RIGHT, SF_CHANNEL_MAP_FRONT_RIGHT: self = .right
        case SF_CHANNEL_MAP_CENTER, SF_CHANNEL_MAP_FRONT_CENTER: self = .center
        case SF_CHANNEL_MAP_REAR_CENTER: self = .backCenter
        case SF_CHANNEL_MAP_REAR_LEFT: self = .backLeft
        case SF_CHANNEL_MAP_REAR_RIGHT: self = .backRight
        case SF_CHANNEL_MAP_LFE: self = .lfe
        case SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER: self = .leftOfCenter
        case SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER: self = .rightOfCenter
        case SF_CHANNEL_MAP_SIDE_LEFT: self = .sideLeft
        case SF_CHANNEL_MAP_SIDE_RIGHT: self = .sideRight
        case SF_CHANNEL_MAP_TOP_CENTER: self = .topCenter
        case SF_CHANNEL_MAP_TOP_FRONT_LEFT: self = .topFrontLeft
        case SF_CHANNEL_MAP_TOP_FRONT_RIGHT: self = .topFrontRight
        case SF_CHANNEL_MAP_TOP_FRONT_CENTER: self = .topFrontCenter
        case SF_CHANNEL_MAP_TOP_REAR_LEFT: self = .topBackLeft
        case SF_CHANNEL_MAP_TOP_REAR_RIGHT: self = .topBackRight
        case SF_CHANNEL_MAP_TOP_REAR_CENTER: self = .topBackCenter
        case SF_CHANNEL_MAP_AMBISONIC_B_W: self = .ambisonicW
        case SF_CHANNEL_MAP_AMBISONIC_B_X: self = .ambisonicX
        case SF_CHANNEL_MAP_AMBISONIC_B_Y: self = .ambisonicY
        case SF_CHANNEL_MAP_AMBISONIC_B_Z: self = .ambisonicZ
        default: self = .unknown
        }
    }

    var libsndfileCode: Int32 {
        let code: Int
        switch self {
        case .mono: code = SF_CHANNEL_MAP_MONO
        case .left: code = SF_CHANNEL_MAP_LEFT
        case .right: code = SF_CHANNEL_MAP_RIGHT
        case .center: code = SF_CHANNEL_MAP_CENTER
        case .lfe: code = SF_CHANNEL_MAP_LFE
        case .backLeft: code = SF_CHANNEL_MAP_REAR_LEFT
        case .backRight: code = SF_CHANNEL_MAP_REAR_RIGHT
        case .backCenter: code = SF_CHANNEL_MAP_REAR_CENTER
        case .sideLeft: code = SF_CHANNEL_MAP_SIDE_LEFT
        case .sideRight: code = SF_CHANNEL_MAP_SIDE_RIGHT
        case .leftOfCenter: code = SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER
        case .rightOfCenter: code = SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER
        case .topCenter: code = SF_CHANNEL_MAP_TOP_CENTER
        case .topFrontLeft: code = SF_CHANNEL_MAP_TOP_FRONT_LEFT
        case .topFrontRight: code = SF_CHANNEL_MAP_TOP_FRONT_RIGHT
        case .topFrontCenter: code = SF_CHANNEL_MAP_TOP_FRONT_CENTER
        case .topBackLeft: code = SF_CHANNEL_MAP_TOP_REAR_LEFT
        case .topBackRight: code = SF_CHANNEL_MAP_TOP_REAR_RIGHT
        case .topBackCenter: code = SF_CHANNEL_MAP_TOP_REAR_CENTER
        case .ambisonicW: code = SF_CHANNEL_MAP_AMBISONIC_B_W
        case .ambisonicX: code = SF_CHANNEL_MAP_AMBISONIC_B_X
        case .ambisonicY: code = SF_CHANNEL_MAP_AMBISONIC_B_Y
        case .ambisonicZ: code = SF_CHANNEL_MAP_AMBISONIC_B_Z
        case .unknown: code = SF_CHANNEL_MAP_INVALID
        }
        return Int32(code)
    }
}
