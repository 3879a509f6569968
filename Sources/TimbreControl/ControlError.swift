/// A control input that was rejected, or a live edit that could not be applied; the running
/// graph is kept. `description` is one short line for `timbre: error: …`.
public struct ControlError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
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
