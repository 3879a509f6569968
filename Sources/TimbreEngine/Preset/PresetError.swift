/// A preset that cannot be used, with the JSON path of the offending value.
///
/// `description` reads `chain[1].bands[3].gain: 25 is out of range (allowed -20…20 dB)`;
/// hosts prefix it with the file name.
public struct PresetError: Error, CustomStringConvertible, Equatable, Sendable {
    /// JSON path, e.g. `chain[1].bands[3].gain` (empty for the document itself).
    public var path: String
    public var message: String

    public init(path: String, _ message: String) {
        self.path = path; self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
