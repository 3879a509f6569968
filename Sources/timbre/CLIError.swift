import TimbreEngine
import TimbreFile

/// A failure the CLI reports with one `timbre: error:` prefix and an exit code:
/// 1 for usage and preset errors, 2 for processing and I/O errors.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    static func usage(_ m: String) -> CLIError { CLIError(message: m, exitCode: 1) }
    static func io(_ m: String) -> CLIError { CLIError(message: m, exitCode: 2) }

    init(message: String, exitCode: Int32) { self.message = message; self.exitCode = exitCode }

    var description: String { message }

    init(_ error: RenderError) {
        switch error {
        case .preset: self = .usage(error.description)
        case .usage(let m): self = .usage(m)
        case .file(let e): self = .io(e.description)
        }
    }
}
