import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbrePlugins

/// Resolves `--preset`: a path to a JSON file, or the name of a shipped preset.
package enum PresetLoader {
    /// The parsed and validated document, with a label for messages (the path, or `preset NAME`).
    package static func loadDocument(_ argument: String) throws(HostError) -> (document: JSONValue, label: String) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: argument, isDirectory: &isDir) {
            if isDir.boolValue { throw .usage("\(argument): is a directory, not a preset file") }
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: argument)) else { throw .usage("\(argument): cannot read the file") }
            let doc: JSONValue
            do { doc = try PresetDecoder.parse(data) } catch {
                var e = HostError.usage("\(argument): \(error)"); e.redacted = "\(argument): not a JSON preset"; throw e
            }
            do { _ = try PresetDecoder.decode(doc) } catch {
                var e = HostError.usage("\(argument): \(error)"); e.redacted = "\(argument): \(error.redactedDescription)"; throw e
            }
            return (doc, argument)
        }
        let name = argument.hasSuffix(".json") ? String(argument.dropLast(5)) : argument
        if !argument.contains("/"), let shipped = EmbeddedPresets.all.first(where: { $0.name == name }) {
            do { return (try PresetDecoder.parse(Data(shipped.json.utf8)), "preset \(name)") }
            catch { throw .usage("shipped preset \(name): \(error)") }
        }
        let names = EmbeddedPresets.all.map(\.name).joined(separator: ", ")
        throw .usage("\(argument): no such preset file (shipped presets: \(names))")
    }

    /// The decoded preset, with a label for messages.
    package static func load(_ argument: String) throws(HostError) -> (preset: Preset, label: String) {
        let (document, label) = try loadDocument(argument)
        do { return (try PresetDecoder.decode(document), label) } catch { throw .usage("\(label): \(error)") }
    }

    /// Compiles `preset` (given as `argument`) at `sampleRate` as a host would — plugins
    /// loaded, the files its nodes name read from its folder — and returns its latency in
    /// frames (a linear-phase FIR's, a limiter's lookahead, a pitch node's); errors are usage errors.
    package static func compiledLatency(_ preset: Preset, argument: String, sampleRate: Double) throws(HostError) -> Int {
        try compiled(preset, argument: argument, sampleRate: sampleRate).latencyFrames
    }

    /// Compiles `preset` as a host would (see ``compiledLatency(_:argument:sampleRate:)``) for
    /// `inputChannelCount` inputs: its outputs, their names, its latency.
    package static func compiled(_ preset: Preset, argument: String, sampleRate: Double, inputChannelCount: Int = 2) throws(HostError) -> RenderPlan {
        let directory = FileManager.default.fileExists(atPath: argument) ? URL(fileURLWithPath: argument).deletingLastPathComponent().path : nil
        let registry = NodeStateRegistry(services: .files(in: directory, plugins: PluginHost.loader))
        do {
            return try RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: inputChannelCount, maxBlockFrames: 64), registry: registry)
        } catch { throw .usage("\(argument): \(error)") }
    }
}
