import Foundation

/// The bytes of a file named on the command line, or of standard input for `-`
/// (`--files-from -`, `presets import -`); nil when the file cannot be read.
package enum InputText {
    package static func contents(of path: String) -> Data? {
        path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
    }
}
