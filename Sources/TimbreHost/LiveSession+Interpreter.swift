import TimbreFile
import Foundation
import TimbreControl
import TimbreEngine
import TimbreJack

// The session's interpreter: where `load` may read and `save` may write, what `status` adds
// for this host, and takes joining the grammar.
extension LiveSession {
    func makeInterpreter() -> ControlInterpreter {
        let host = host, takes = takes!, web = web
        let controlClock = ThreadCPUClock.current  // the thread that builds the session runs its loop
        let interpreter = ControlInterpreter(engine: host.engine, loadDocument: controlLoad, hostStatus: {
            [
                "takes": takes.statusJSON,
                "bufferSize": .number(Double(host.bufferSize)),
                "cycles": .number(Double(host.cycles)),
                "xruns": .number(Double(host.xruns)),
                "missedCycles": .number(Double(host.missedCycles)),
                "missedFrames": .number(Double(host.missedFrames)),
                "startFrameTime": host.startFrameTime.map { .number(Double($0)) } ?? .null,
                "dspLoadPercent": .number((host.jack.cpuLoad * 100).rounded() / 100),
                "cpuSeconds": LiveText.cpuSeconds(audio: host.audioThreadCPUSeconds, control: controlClock?.seconds, web: web?.threadClock?.seconds),
                "inputs": .array(host.inputPortNames.map { .string($0) }),
                "outputs": .array(host.outputPortNames.map { .string($0) }),
                "outputNames": host.engine.plan.outputChannelNames.map { .array($0.map { .string($0) }) } ?? .null,
                "convolution": LiveText.convolutionStatus(host.engine.convolutionCounters),
                "players": .object(Dictionary(PlayerStatus.all(host.engine).map { ($0.id, $0.json) }) { a, _ in a }),
                "midiInput": host.midiPortName.map { .object(["port": .string($0), "dropped": .number(Double(host.midiDropped)),
                                                               "ignored": .number(Double(host.midiIgnored))]) } ?? .null,
            ]
        })
        if options.midi { interpreter.midi = MIDIMapper(mappings: host.engine.preset.midi, range: { MIDIMapper.defaultRange($0, in: host.engine.preset) }) }
        interpreter.playerPositions = {
            Dictionary(PlayerStatus.all(host.engine).map { ($0.id, (offset: max(0, $0.currentTime - $0.state.spec.start), playing: $0.playing)) }) { a, _ in a }
        }
        interpreter.saveDocument = saveDocument
        interpreter.recordTakes = { words throws(ControlError) in try takes.perform(words) }
        return interpreter
    }

    /// `load` from a control message: a file inside the presets folder (links followed), or a
    /// shipped preset's name; anything else only with `allowAnyPath`.
    var controlLoad: (String) throws -> (JSONValue, String) {
        let folder = options.presetsFolder, anyPath = options.allowAnyPath
        return { argument in
            if anyPath { return try PresetLoader.loadDocument(argument) }
            let resolved = try ControlPolicy.presetPath(argument, inside: folder)
            if FileManager.default.fileExists(atPath: resolved) { return (try PresetLoader.loadDocument(resolved).0, argument) }
            if !argument.contains("/") { return try PresetLoader.loadDocument(argument) }  // a shipped preset's name
            throw ControlError("\(argument): no such preset in \(folder)")
        }
    }

    /// `save`: over the preset file the session started with (the user's own), or a file in
    /// the presets folder; written to a temporary file beside it, then renamed.
    var saveDocument: (JSONValue, String?) throws -> String {
        let folder = options.presetsFolder, anyPath = options.allowAnyPath
        let launchedFrom = FileManager.default.fileExists(atPath: options.preset) ? options.preset : nil
        return { document, requested in
            let target: String
            if let requested {
                target = anyPath ? requested : try ControlPolicy.presetPath(requested, inside: folder)
            } else {
                guard let launchedFrom else { throw ControlError("the preset is a shipped one: give a file name (save my.json)") }
                target = launchedFrom
            }
            let object = try JSONSerialization.jsonObject(with: Data(document.jsonText.utf8))
            let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            do { try AtomicFileWrite.write(pretty + Data("\n".utf8), to: target) } catch { throw ControlError("\(error)") }
            return requested ?? target
        }
    }
}
