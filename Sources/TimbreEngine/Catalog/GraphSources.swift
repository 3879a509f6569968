/// The graph's own entries in the catalog: its channels' sources — host inputs, a sine
/// generator, a file player — and the buses (channel, group, master) with their volume and
/// pan. Their numbers are ``ParameterSpec``s as a node kind's are: the decoder takes its
/// ranges and defaults from them, `make schema` writes them into the schema's `graph`
/// definition, MIDI `learn` and `timbre presets parameters` list them.
package enum GraphSources {
    /// `"input": [0]` or `[0, 1]`: the host's capture channels.
    package static let input = ParameterSpec("channels[].input[]", range: 0...31, in: ["graph"])

    /// `"generator": {"type": "sine", …}`.
    package enum Sine {
        package static let frequency = ParameterSpec("channels[].generator.frequency", unit: "Hz", range: ParameterRanges.frequencyHz,
                                                     default: 1000, scale: .logarithmic, in: ["graph"])
        package static let level = ParameterSpec("channels[].generator.level", unit: "dBFS", range: -96...0, default: -20, scale: .decibel, in: ["graph"])
    }

    /// `"player": {"file": …}` (AVAudioPlayer's settings).
    package enum Player {
        package static let rate = ParameterSpec("channels[].player.rate", range: ParameterRanges.playerRate, default: 1, scale: .logarithmic, in: ["graph"])
        package static let loops = ParameterSpec("channels[].player.loops", range: ParameterRanges.playerLoops, default: 0, in: ["graph"])
        package static let start = ParameterSpec("channels[].player.start", unit: "s", range: 0...86_400, default: 0, in: ["graph"])
        package static let end = ParameterSpec("channels[].player.end", unit: "s", range: 0...86_400, in: ["graph"])
        package static let offset = ParameterSpec("channels[].player.offset", unit: "s", range: 0...86_400, default: 0, in: ["graph"])
        package static let volume = ParameterSpec("channels[].player.volume", range: ParameterRanges.volume, in: ["graph"])
        package static let pan = ParameterSpec("channels[].player.pan", range: ParameterRanges.pan, in: ["graph"])
    }

    /// The buses' mix: moved in place by a live `set` (``ValueMotion`` on the mix and pan kernels).
    package enum Bus {
        package static let channelVolume = ParameterSpec("channels[].volume", range: ParameterRanges.volume, default: 1, movesLive: true, in: ["graph"])
        package static let channelPan = ParameterSpec("channels[].pan", range: ParameterRanges.pan, default: 0, movesLive: true, in: ["graph"])
        package static let groupVolume = ParameterSpec("groups[].volume", range: ParameterRanges.volume, default: 1, movesLive: true, in: ["graph"])
        package static let masterVolume = ParameterSpec("master.volume", range: ParameterRanges.volume, default: 1, movesLive: true, in: ["graph"])
        package static let masterPan = ParameterSpec("master.pan", range: ParameterRanges.pan, default: 0, movesLive: true, in: ["graph"])
        package static let channelSendLevel = ParameterSpec("channels[].sends[].level", range: ParameterRanges.volume, default: 1, movesLive: true, in: ["graph"])
        package static let groupSendLevel = ParameterSpec("groups[].sends[].level", range: ParameterRanges.volume, default: 1, movesLive: true, in: ["graph"])
        package static let auxVolume = ParameterSpec("auxes[].volume", range: ParameterRanges.volume, default: 1, movesLive: true, in: ["graph"])
        /// A bus's channels (structure: a change compiles a new plan).
        package static let widthRange: ClosedRange<Double> = 2...Double(NodeLowering.maximumChannels)
        package static let channelWidth = ParameterSpec("channels[].channels", range: widthRange, wholeNumber: true, in: ["graph"])
        package static let groupWidth = ParameterSpec("groups[].channels", range: widthRange, default: 2, wholeNumber: true, in: ["graph"])
        package static let auxWidth = ParameterSpec("auxes[].channels", range: widthRange, default: 2, wholeNumber: true, in: ["graph"])
        package static let masterWidth = ParameterSpec("master.channels", range: widthRange, default: 2, wholeNumber: true, in: ["graph"])
    }

    /// Every graph parameter, in schema order.
    package static let parameterSpecs: [ParameterSpec] = [
        input, Sine.frequency, Sine.level, Player.rate, Player.loops, Player.start, Player.end, Player.offset, Player.volume, Player.pan,
        Bus.channelVolume, Bus.channelPan, Bus.groupVolume, Bus.masterVolume, Bus.masterPan,
        Bus.channelSendLevel, Bus.groupSendLevel, Bus.auxVolume,
        Bus.channelWidth, Bus.groupWidth, Bus.auxWidth, Bus.masterWidth,
    ]
}
