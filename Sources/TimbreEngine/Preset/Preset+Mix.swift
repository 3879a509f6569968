extension Preset {
    /// The graph `timbre render --mix` runs: one channel per input file (the files' channels
    /// side by side as host inputs, `channelCounts` each, mono or stereo), summed at unity on
    /// the master bus, which runs `chain`'s nodes. A mono file sits centre (constant power,
    /// −3.01 dB each side), as a mono channel of any graph does.
    public static func mixing(_ names: [String], channelCounts: [Int], through chain: Preset) throws(PresetError) -> Preset {
        guard case .chain(let nodes) = chain.form else {
            throw PresetError(path: "graph", "mixing runs the files through a chain preset (this one is a graph: give its channels the files' inputs instead)")
        }
        var channels: [ChannelSpec] = []
        var first = 0
        for (k, count) in channelCounts.enumerated() {
            guard (1...2).contains(count) else {
                throw PresetError(path: "input[\(k)]", "\(names[k]) has \(count) channels; mixing takes mono or stereo files")
            }
            channels.append(ChannelSpec(id: "input\(k + 1)", source: .inputs(Array(first..<(first + count))), chain: [],
                                        volume: 1, pan: 0, mute: false, solo: false, group: nil, path: "input[\(k)]"))
            first += count
        }
        return Preset(name: chain.name, description: chain.description,
                      form: .graph(GraphSpec(channels: channels, groups: [], master: BusSpec(chain: nodes, volume: 1, path: "master"))))
    }

    /// A preset that passes audio unchanged (`render` without `--preset`).
    public static let none = Preset(name: "none", form: .chain([]))
}
