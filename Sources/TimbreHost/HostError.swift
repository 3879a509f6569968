import TimbreControl
import TimbreEngine
import TimbreFile

/// A failure of a session, with the exit code `timbre` reports it with (behind its one
/// `timbre: error:` prefix): 1 for usage and preset errors, 2 for processing and I/O errors.
public struct HostError: Error, CustomStringConvertible, RedactableError {
    /// One line naming the file, JSON path or option, the value and what is allowed.
    public var message: String
    /// 1: usage or preset; 2: processing or I/O.
    public var exitCode: Int32
    /// The message without values read from a file (what network senders hear); nil: the message.
    package var redacted: String?
    public var redactedDescription: String { redacted ?? message }

    package static func usage(_ m: String) -> HostError { HostError(message: m, exitCode: 1) }
    package static func io(_ m: String) -> HostError { HostError(message: m, exitCode: 2) }

    package init(message: String, exitCode: Int32) { self.message = message; self.exitCode = exitCode }

    public var description: String { message }

    package init(_ error: RenderError) {
        switch error {
        case .preset: self = .usage(error.description)
        case .request(let parameter, let m):
            self = .usage(parameter.map { "\(m) (\(HostError.option(for: $0)))" } ?? m)
        case .file(let e): self = .io(e.description)
        }
    }

    /// The `timbre render` option that sets a ``RenderRequest`` property: the library's errors
    /// name the property, the CLI names its flag.
    package static func option(for parameter: RenderRequest.Parameter) -> String {
        switch parameter {
        case .combination: "--concat or --mix"
        case .start: "--start"
        case .end: "--end"
        case .format: "--format"
        case .encoding: "--encoding"
        case .blockFrames: "--block-size"
        case .speed: "--speed"
        case .pitchSemitones: "--pitch"
        case .sampleRate: "--sample-rate"
        case .channelCount: "--channels"
        case .outputs: "--outputs"
        case .outputPath: "-o; --overwrite-input allows it"
        case .tagEdits: "--tag"
        case .bitrate: "--bitrate"
        case .encoderSettings: "--quality"
        }
    }
}
