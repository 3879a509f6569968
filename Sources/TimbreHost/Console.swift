import Foundation

/// Where Timbre's programs write: a line on stdout, or a diagnostic on stderr behind the one
/// prefix (`timbre: error: …`, `timbre: warning: …`, `timbre: note: …`). Written unbuffered
/// (scripts and tests read line by line; `fflush(nil)` would also take stdin's lock, which a
/// reader thread may hold).
package enum Console {
    package enum Kind: String { case error, warning, note }

    /// One line on stdout.
    @Sendable package static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    /// One diagnostic on stderr: `timbre: <kind>: <message>`.
    package static func report(_ kind: Kind, _ message: String) {
        FileHandle.standardError.write(Data("timbre: \(kind.rawValue): \(message)\n".utf8))
    }

    @Sendable package static func error(_ message: String) { report(.error, message) }
    @Sendable package static func warning(_ message: String) { report(.warning, message) }
    @Sendable package static func note(_ message: String) { report(.note, message) }
}
