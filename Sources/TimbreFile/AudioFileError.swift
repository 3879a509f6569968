/// A file that could not be read or written. `description` names the file and the cause
/// (libsndfile's own text where it applies).
public struct AudioFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var message: String
    public init(path: String, _ message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }
}
