/// A JACK failure, with the server's status bits where they apply.
public struct JackError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
