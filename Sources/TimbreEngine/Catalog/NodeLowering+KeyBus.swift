// Where a dynamics node's external key (`"key": "voice"`) is read from: the bus of a channel or
// group the graph renders before the node.

extension NodeLowering {
    /// The first work channel of the bus a dynamics node keys on (`"key": id`), or −1 for none.
    /// Throws in a chain preset, or when the id is not a channel or group rendered before the node.
    func keyBusBase(_ id: String?) throws(PresetError) -> Int {
        guard let id else { return -1 }
        guard let buses = finishedBuses else {
            throw PresetError(path: path + ".key", "a key channel needs a graph preset (channels, groups, master)")
        }
        guard let base = buses[id] else {
            let known = buses.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw PresetError(path: path + ".key", "no channel or group \"\(id)\" is rendered before this node (a key must come earlier in the graph; here: \(known.isEmpty ? "none" : known))")
        }
        return base
    }
}
