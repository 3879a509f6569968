import Foundation
import TimbreEngine

/// Resolves `--preset`: a path to a JSON file, or the name of a shipped preset.
enum PresetLoader {
    static func load(_ argument: String) throws(CLIError) -> (preset: Preset, label: String) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: argument, isDirectory: &isDir) {
            if isDir.boolValue { throw .usage("\(argument): is a directory, not a preset file") }
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: argument)) else { throw .usage("\(argument): cannot read the file") }
            do { return (try PresetDecoder.decode(data), argument) } catch { throw .usage("\(argument): \(error)") }
        }
        let name = argument.hasSuffix(".json") ? String(argument.dropLast(5)) : argument
        if !argument.contains("/"), let shipped = EmbeddedPresets.all.first(where: { $0.name == name }) {
            do { return (try PresetDecoder.decode(Data(shipped.json.utf8)), "preset \(name)") }
            catch { throw .usage("shipped preset \(name): \(error)") }
        }
        let names = EmbeddedPresets.all.map(\.name).joined(separator: ", ")
        throw .usage("\(argument): no such preset file (shipped presets: \(names))")
    }
}
