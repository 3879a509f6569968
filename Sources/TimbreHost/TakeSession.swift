import TimbreControl
import Foundation
import TimbreEngine
import TimbreFile
import TimbreJack

/// The takes of a `timbre record` or `timbre live` process: each a ``TakeRecorder`` fed by a
/// recording slot of the JACK host. Commands (`record start FILE [master|inputs]`, `record
/// stop|pause|resume|marker|discard|status`) come as words from stdin or OSC.
package final class TakeSession {
    package struct Take {
        package let recorder: TakeRecorder
        /// The host's recording slot (master, inputs), or the channel or group whose bus it taps.
        package let slot: Int?
        package let bus: String?
    }

    /// What a take records.
    package enum Source: Equatable {
        case master, inputs
        /// A channel's or group's bus of a graph preset (after its chain and pan).
        case bus(String)
    }

    package let host: JackHost
    /// Where acknowledgements and failures go (``handle(_:echo:echoFailure:)`` adds a listener
    /// for one command).
    package private(set) var say: (String) -> Void
    package private(set) var fail: (String) -> Void
    package private(set) var takes: [Take] = []
    package var defaultEncoding: SampleEncoding?
    package var ringSeconds: Double = 4

    package init(host: JackHost, say: @escaping (String) -> Void, fail: @escaping (String) -> Void) {
        self.host = host; self.say = say; self.fail = fail
    }

    /// Opens a take of `path` listening to `source`; with `preRoll` > 0 it is armed (waiting
    /// for `record`), otherwise it records at once.
    @discardableResult
    package func start(path: String, source: Source, channels: Int? = nil, format: String? = nil, encoding: String? = nil,
               preRollSeconds: Double = 0, durationSeconds: Double? = nil, armed: Bool = false) throws(HostError) -> TakeRecorder {
        let fmt: SoundFileFormat
        if let format {
            guard let f = SoundFileFormat(rawValue: format.lowercased()) else { throw .usage("--format \(format) is not known (allowed: wav, rf64, w64, caf, flac, aiff)") }
            fmt = f
        } else {
            guard let f = SoundFileFormat(extension: URL(fileURLWithPath: path).pathExtension) else {
                throw .usage("\(path): the extension names no format (use .wav, .rf64, .w64, .caf, .flac or .aiff, or --format)")
            }
            fmt = f
        }
        let enc: SampleEncoding
        if let encoding {
            guard let e = SampleEncoding(rawValue: encoding.lowercased()), fmt.encodings.contains(e) else {
                throw .usage("--encoding \(encoding) is not allowed for \(fmt.rawValue) (allowed: \(fmt.encodings.map(\.rawValue).joined(separator: ", ")))")
            }
            enc = e
        } else {
            enc = defaultEncoding.flatMap { fmt.encodings.contains($0) ? $0 : nil } ?? fmt.encodings[0]
        }
        let ports: Int
        switch source {
        case .inputs: ports = host.inputPortNames.count
        case .master: ports = host.outputPortNames.count
        case .bus(let id):
            ports = host.engine.plan.busWidths[id] ?? 2
            guard case .graph(let g) = host.engine.preset.form, (g.channels.map(\.id) + g.groups.map(\.id)).contains(id) else {
                throw .usage("record start \(path) \(id): the source is master, inputs, or a channel or group of the graph preset")
            }
        }
        guard ports > 0 else { throw .usage("record start \(path): this host has no \(source == .inputs ? "input" : "output") ports to record") }
        var options = TakeRecorder.Options(path: path, format: fmt, encoding: enc, sampleRate: host.jack.sampleRate, channelCount: channels ?? ports)
        switch source {
        case .inputs: options.source = "inputs"
        case .master: options.source = "master"
        case .bus(let id): options.source = id
        }
        options.preRollSeconds = preRollSeconds
        options.ringSeconds = ringSeconds
        if let d = durationSeconds { options.durationFrames = Int((d * Double(host.jack.sampleRate)).rounded()) }
        let recorder: TakeRecorder
        do { recorder = try TakeRecorder(options) } catch { throw .io(error.description) }
        let jack = host
        recorder.xrunCount = { jack.xruns }
        var slot: Int?, bus: String?
        do {
            switch source {
            case .inputs: slot = try host.attach(recorder.tap, source: .inputs)
            case .master: slot = try host.attach(recorder.tap, source: .outputs)
            case .bus(let id): try host.engine.setBusTap(recorder.tap, bus: id); bus = id
            }
        } catch {
            recorder.discard()
            throw .io("\(path): \(error)")
        }
        takes.append(Take(recorder: recorder, slot: slot, bus: bus))
        if preRollSeconds > 0 || armed { recorder.arm() } else { recorder.record() }
        return recorder
    }

    /// Takes whose tap the audio thread may still hold (kept, never freed).
    private var stranded: [TakeRecorder] = []

    /// Lets go of a finished take's tap: the slot or the bus's plan step.
    private func release(_ t: Take) {
        if let slot = t.slot { host.detach(slot: slot) }
        if let bus = t.bus, !host.engine.removeBusTap(bus: bus) { stranded.append(t.recorder) }
    }

    /// Stops every take whose path is `path` (all when nil) and prints what each holds.
    package func stop(_ path: String? = nil) {
        var kept: [Take] = []
        for t in takes {
            guard path == nil || t.recorder.options.path == path else { kept.append(t); continue }
            let s = t.recorder.stop()
            release(t)
            report(t.recorder, s, verb: "stopped")
        }
        takes = kept
    }

    package func discard(_ path: String? = nil) {
        var kept: [Take] = []
        for t in takes {
            guard path == nil || t.recorder.options.path == path else { kept.append(t); continue }
            t.recorder.discard()
            release(t)
            say("discarded: \(t.recorder.options.path)")
        }
        takes = kept
    }

    package func report(_ r: TakeRecorder, _ s: TakeRecorder.Status, verb: String) {
        var line = String(format: "%@: %@, %lld frames (%.3f s)", verb, r.options.path, s.frames, s.seconds)
        line += ", \(s.markers) marker\(s.markers == 1 ? "" : "s"), \(s.xruns) xrun\(s.xruns == 1 ? "" : "s"), \(s.overruns) overrun\(s.overruns == 1 ? "" : "s")"
        if s.droppedFrames > 0 { line += " (\(s.droppedFrames) frames of silence in their place)" }
        say(line)
        if let e = s.error { fail("\(r.options.path): recording stopped: \(e)") }
    }

    /// Polled by the control loop: takes that stopped by themselves (a duration reached, a
    /// write failure) are closed and reported. Returns true when one finished.
    @discardableResult
    package func poll() -> Bool {
        var finished = false
        var kept: [Take] = []
        for t in takes {
            let s = t.recorder.status
            if s.state == .stopped || s.state == .failed {
                let final = t.recorder.stop()
                release(t)
                report(t.recorder, final, verb: s.state == .failed ? "failed" : "finished")
                finished = true
            } else {
                kept.append(t)
            }
        }
        takes = kept
        return finished
    }

    /// Status of every take as JSON objects.
    /// The takes without meters (the web page's meter frames carry those once).
    package var summaryJSON: JSONValue {
        .array(takes.map { t in
            let s = t.recorder.status
            return .object(["path": .string(t.recorder.options.path), "source": .string(t.recorder.options.source), "state": .string(s.state.rawValue),
                            "seconds": .number((s.seconds * 1000).rounded() / 1000), "ringFill": .number((s.ringFill * 1000).rounded() / 1000),
                            "overruns": .number(Double(s.overruns)), "error": s.error.map { .string($0) } ?? .null])
        })
    }

    package var statusJSON: JSONValue {
        .array(takes.map { t in
            let s = t.recorder.status
            var o: [String: JSONValue] = [
                "path": .string(t.recorder.options.path), "source": .string(t.recorder.options.source), "state": .string(s.state.rawValue),
                "seconds": .number((s.seconds * 1000).rounded() / 1000), "frames": .number(Double(s.frames)), "fileBytes": .number(Double(s.fileBytes)),
                "ringFill": .number((s.ringFill * 1000).rounded() / 1000), "overruns": .number(Double(s.overruns)),
                "droppedFrames": .number(Double(s.droppedFrames)), "xruns": .number(Double(s.xruns)), "markers": .number(Double(s.markers)),
            ]
            if let e = s.error { o["error"] = .string(e) }
            o["meters"] = host.engine.meters
            return .object(o)
        })
    }

    /// Carries out one `record …` command (the words after `record`) for the control
    /// grammar (``ControlInterpreter/recordTakes``): the lines it says, or its failure.
    package func perform(_ words: [String]) throws(ControlError) -> [String] {
        var said: [String] = [], failed: [String] = []
        let (sayBefore, failBefore) = (say, fail)
        say = { said.append($0) }
        fail = { failed.append($0) }
        let known = handle(words)
        (say, fail) = (sayBefore, failBefore)
        guard known else { throw ControlError("record: unknown verb \(ControlError.quote(words.first ?? ""))") }
        if !failed.isEmpty { throw ControlError(failed.joined(separator: "; ")) }
        return said
    }

    /// Handles one `record …` command (the words after "record"); false if it is not one.
    package func handle(_ words: [String]) -> Bool {
        guard let verb = words.first else {
            // `record` alone: start armed takes.
            for t in takes { t.recorder.record() }
            say(takes.isEmpty ? "no take is armed (record start FILE)" : "recording: " + takes.map(\.recorder.options.path).joined(separator: ", "))
            return true
        }
        let rest = Array(words.dropFirst())
        switch verb {
        case "start":
            guard let path = rest.first else { fail("record start FILE [master|inputs|<channel or group id>]"); return true }
            let sourceWord = rest.count > 1 ? rest[1] : "master"
            let source: Source
            switch sourceWord {
            case "master", "outputs": source = .master
            case "inputs", "dry": source = .inputs
            default: source = .bus(sourceWord)
            }
            do { try start(path: path, source: source); say("recording: \(path) (\(sourceWord))") } catch { fail(error.description) }
        case "stop": stop(rest.first)
        case "pause": takes.forEach { $0.recorder.pause() }; say("paused")
        case "resume": takes.forEach { $0.recorder.resume() }; say("resumed")
        case "marker":
            let label = rest.joined(separator: " ")
            takes.forEach { $0.recorder.marker(label.isEmpty ? "marker" : label) }
            say("marker" + (label.isEmpty ? "" : ": \(label)"))
        case "discard": discard(rest.first)
        case "status": say("record: " + statusJSON.jsonText)
        default: return false
        }
        return true
    }
}
