/// The `graph` form of a preset: TheAmazingAudioEngine's model of channels, groups and a
/// master bus.
///
/// ```
/// channel (input ports or a generator) ─chain─ volume ─ pan ─┐
/// channel …                                                  ├─▶ group ─chain─ volume ─┐
///                                                            └──────────────────────────┴─▶ master ─chain─ volume ─▶ outputs
/// ```
/// Buses are stereo after a channel's pan (mono channels without `pan` are placed centre).
/// `mute` silences a channel or group; when any channel is soloed, only soloed channels sound.
///
/// Aux buses (`auxes`) take sends from channels and groups, pre- or post-fader, run their own
/// chain and volume, and return into the master (a reverb return) or go to outputs of their
/// own after the master's (a monitor mix).
public struct GraphSpec: Sendable, Equatable {
    public var channels: [ChannelSpec]
    public var groups: [GroupSpec]
    public var auxes: [AuxSpec] = []
    public var master: BusSpec

    public init(channels: [ChannelSpec], groups: [GroupSpec] = [], auxes: [AuxSpec] = [], master: BusSpec = BusSpec()) {
        self.channels = channels; self.groups = groups; self.auxes = auxes; self.master = master
    }
}

/// A send from a channel or group to an aux bus.
public struct SendSpec: Sendable, Equatable {
    /// The aux bus's id.
    public var aux: String
    /// 0…1, as a volume.
    public var level: Double
    /// Taken before the channel's volume and mute (a monitor mix the front-of-house fader does
    /// not move); false: after them.
    public var preFader: Bool
    public var path: String

    public init(aux: String, level: Double = 1, preFader: Bool = false, path: String = "") {
        self.aux = aux; self.level = level; self.preFader = preFader; self.path = path
    }
}

/// An aux bus (stereo unless it declares more channels), fed by sends.
public struct AuxSpec: Sendable, Equatable {
    /// Where an aux bus goes.
    public enum Destination: String, Sendable, CaseIterable {
        /// Mixed into the master bus, before its chain (effect returns).
        case master
        /// Outputs of its own (as many as its channels), after the master's (monitor mixes).
        case outputs
    }

    public var id: String
    public var chain: [NodeSpec]
    public var volume: Double
    public var mute: Bool
    public var destination: Destination
    /// The bus's channels, 2…64 (2 unless given).
    public var channelCount = 2
    public var path: String

    public init(id: String, chain: [NodeSpec] = [], volume: Double = 1, mute: Bool = false, destination: Destination = .master, channelCount: Int = 2, path: String = "") {
        self.id = id; self.chain = chain; self.volume = volume; self.mute = mute; self.destination = destination
        self.channelCount = channelCount; self.path = path
    }
}

/// Where a channel's audio comes from.
public enum ChannelSource: Sendable, Equatable {
    /// Host inputs by zero-based index (one for mono, two for stereo, up to 64: a 5.1 stem on six).
    case inputs([Int])
    /// A sine generator (test tones, reference signals).
    case sine(frequencyHz: Double, levelDB: Double)
    /// A file player.
    case player(PlayerSpec)
}

public struct ChannelSpec: Sendable, Equatable {
    public var id: String
    public var source: ChannelSource
    public var chain: [NodeSpec]
    public var volume: Double
    public var pan: Double
    public var mute: Bool
    public var solo: Bool
    /// The group this channel feeds, or nil for the master bus.
    public var group: String?
    /// Sends to aux buses.
    public var sends: [SendSpec] = []
    /// The most channels its chain may make (a mono dialog upmixed into a 5.1 centre): nil for
    /// as many as its source gives, at least 2.
    public var channelCount: Int?
    public var path: String

    public init(id: String, source: ChannelSource, chain: [NodeSpec] = [], volume: Double = 1, pan: Double = 0,
                mute: Bool = false, solo: Bool = false, group: String? = nil, sends: [SendSpec] = [], path: String = "") {
        self.id = id; self.source = source; self.chain = chain; self.volume = volume; self.pan = pan
        self.mute = mute; self.solo = solo; self.group = group; self.sends = sends; self.path = path
    }
}

public struct GroupSpec: Sendable, Equatable {
    public var id: String
    public var chain: [NodeSpec]
    public var volume: Double
    public var mute: Bool
    /// Sends to aux buses.
    public var sends: [SendSpec] = []
    /// The bus's channels, 2…64 (2 unless given).
    public var channelCount = 2
    public var path: String

    public init(id: String, chain: [NodeSpec] = [], volume: Double = 1, mute: Bool = false, sends: [SendSpec] = [], channelCount: Int = 2, path: String = "") {
        self.id = id; self.chain = chain; self.volume = volume; self.mute = mute; self.sends = sends; self.channelCount = channelCount; self.path = path
    }
}

public struct BusSpec: Sendable, Equatable {
    public var chain: [NodeSpec]
    public var volume: Double
    /// −1…1, a stereo balance after the chain.
    public var pan: Double = 0
    /// How live control addresses it (`set master.volume 0.5`): "master" unless the preset names it.
    public var id: String = "master"
    /// The bus's channels before its chain, 2…64 (2 unless given; the chain may widen it).
    public var channelCount = 2
    public var path: String

    public init(chain: [NodeSpec] = [], volume: Double = 1, path: String = "") {
        self.chain = chain; self.volume = volume; self.path = path
    }
}
