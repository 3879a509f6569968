/// How a host reads the files nodes name: a `convolver`'s impulse response (any sound file
/// libsndfile reads) and a `fir` node's coefficients (text or raw samples). The engine reads no
/// files itself; TimbreFile's `NodeFileReader.files(in:)` finds relative names in the preset's
/// folder. Each reader throws a ``PresetError`` at `path` (the node key's JSON path) naming
/// the file for one that is missing or unreadable.
public struct NodeFileReader: Sendable {
    /// A sound file's samples, one array per channel, and its sample rate.
    public var sound: @Sendable (_ name: String, _ path: String) throws(PresetError) -> (channels: [[Float]], sampleRate: Double)
    /// A file's bytes.
    public var bytes: @Sendable (_ name: String, _ path: String) throws(PresetError) -> [UInt8]
    /// Whether `name` is a sound file libsndfile reads (by its header, not its extension).
    public var isSoundFile: @Sendable (_ name: String) -> Bool

    public init(sound: @escaping @Sendable (String, String) throws(PresetError) -> (channels: [[Float]], sampleRate: Double),
                bytes: @escaping @Sendable (String, String) throws(PresetError) -> [UInt8],
                isSoundFile: @escaping @Sendable (String) -> Bool) {
        self.sound = sound; self.bytes = bytes; self.isSoundFile = isSoundFile
    }

    static let missing = "a node that names a file needs a host that reads files (timbre render or timbre live)"
}
