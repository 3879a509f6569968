import TimbreEngine

/// A control input that was rejected, or a live edit that could not be applied; the running
/// graph is kept. `description` is one short line for `timbre: error: …`.
///
/// `remoteMessage` is what senders on the network (OSC, the web page) hear: it names the file
/// and JSON path of a bad preset but quotes nothing read from the file (a `load` of a file a
/// sender cannot read must not echo its contents). Stdin and the control socket, which only the
/// user reaches, get `message`.
public struct ControlError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    public var remoteMessage: String
    public init(_ message: String, remote: String? = nil) { self.message = message; remoteMessage = remote ?? message }
    public var description: String { message }

    /// `text` shortened for an error message (a 1 MB line is not echoed back whole), with
    /// control characters made visible.
    public static func quote(_ text: some StringProtocol, limit: Int = 60) -> String {
        var out = ""
        for (k, ch) in text.unicodeScalars.enumerated() {
            if k == limit { out += "…(\(text.unicodeScalars.count) characters)"; break }
            switch ch {
            case "\"": out += "\\\""
            case _ where ch.value < 0x20 || ch.value == 0x7F: out += String(format: "\\u%04X", ch.value)
            default: out.unicodeScalars.append(ch)
            }
        }
        return "\"" + out + "\""
    }
}

/// An error whose message may quote what a file holds, with a form that names only where
/// (the file, the JSON path): what ``ControlInterpreter`` replies to network senders.
public protocol RedactableError: Error, CustomStringConvertible {
    /// The message without values read from the file.
    var redactedDescription: String { get }
}

extension PresetError {
    /// Where the preset is wrong (its JSON path), without the value found there.
    public var redactedDescription: String { path.isEmpty ? "invalid preset" : "invalid preset at \(path)" }
}
