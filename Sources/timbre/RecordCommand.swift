import TimbreHost
import ArgumentParser
import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbreJack
import TimbrePlugins

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record JACK inputs, dry or through a preset, to a sound file that survives a crash.",
        usage: "timbre record -o <take.wav> [<options>]",
        discussion: """
        A JACK client with --channels input ports (or one per --inputs port, which it \
        connects). Without --preset the inputs are recorded as they arrive; with one, \
        its output (also on the client's output ports) — add --dry to record the \
        inputs all the same. Recording starts at once; with --pre-roll S (or \
        --armed) the client waits for `record`, and the take begins S seconds before \
        it. --duration stops after exactly that many seconds of frames.

        Commands on stdin (and OSC with --osc-port, /timbre/record s…):
          record | pause | resume | stop | marker [label] | discard | status | quit
        Pause and resume join the parts with 5 ms fades. Markers and every JACK xrun \
        become cue points (WAV, RF64) and entries in the sidecar <take>.json, with \
        overruns (frames the ring had no room for, written as silence at their place).

        The file is written under its own name (an existing file is never replaced); \
        once a second its header is brought up to date and the data flushed to the \
        disk, so a crash loses at most the last second or two; `timbre repair` fixes \
        what is left. SIGINT, SIGTERM, quit, the JACK server shutting down and a full \
        disk all close the file properly. A WAV take switches to RF64 past 4 GiB.

        Exit status: 0 the take was written, 1 usage, 2 JACK or write failure.
        """)

    @Option(name: .shortAndLong, help: "The take's file (.wav, .rf64, .w64, .caf, .flac, .aiff).") var output: String
    @Option(name: .long, help: "Record through this preset (file or shipped name).") var preset: String?
    @Flag(name: .long, help: "With --preset: record the inputs, not the preset's output.") var dry = false
    @Option(name: .long, help: "JACK ports to record, comma-separated (connected to our inputs in order).") var inputs: String?
    @Option(name: .long, help: "Input ports when --inputs is not given (1…64).") var channels: Int?
    @Option(name: .long, help: "Stop after this many seconds.") var duration: Double?
    @Option(name: .long, help: "Container (default from the extension).") var format: String?
    @Option(name: .long, help: "pcm16, pcm24, pcm32, float or double (default pcm24).") var encoding: String?
    @Option(name: .long, help: "Seconds before `record` to keep in the take (waits for `record`).") var preRoll: Double = 0
    @Flag(name: .long, help: "Wait for `record` before recording.") var armed = false
    @Option(name: .long, help: "Seconds the ring between the audio and disk threads holds (4…60).") var ring: Double = 4
    @Flag(name: .long, help: "Print a meter line about ten times a second.") var meters = false
    @Option(name: .long, help: "JACK client name.") var name: String = "timbre-record"
    @Option(name: .long, help: "Listen for OSC on 127.0.0.1:PORT (UDP).") var oscPort: Int?

    func run() throws {
        let ports = inputs?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        let count = ports.isEmpty ? (channels ?? 2) : ports.count
        guard (1...64).contains(count) else { throw HostError.usage("--channels \(count) is out of range (allowed 1…64)") }
        if let c = channels, !ports.isEmpty, c != ports.count { throw HostError.usage("--channels \(c) and \(ports.count) --inputs ports disagree") }
        if let d = duration, !(d > 0 && d <= 86_400 * 7) { throw HostError.usage("--duration \(d) is out of range (allowed > 0 … 604800 s)") }
        guard (0...3600).contains(preRoll) else { throw HostError.usage("--pre-roll \(preRoll) is out of range (allowed 0…3600 s)") }
        guard (4...60).contains(ring) else { throw HostError.usage("--ring \(ring) is out of range (allowed 4…60 s)") }
        if dry && preset == nil { throw HostError.usage("--dry records the inputs beside a preset: give --preset") }
        if let p = oscPort, !(1...65535).contains(p) { throw HostError.usage("--osc-port \(p) is out of range (allowed 1…65535)") }
        if FileManager.default.fileExists(atPath: output) { throw HostError.usage("\(output) exists already (a take never replaces a file)") }

        var document = JSONValue.object(["version": .number(1), "name": .string("dry"), "chain": .array([])]), label = "dry"
        if let preset { (document, label) = try PresetLoader.loadDocument(preset) }
        let host: JackHost
        do {
            host = try JackHost(name: name, document: document, inputs: count, outputs: count,
                                host: .files(in: nil, plugins: PluginHost.loader))
        } catch let e as PresetError {
            throw HostError.usage("\(label): \(e)")
        } catch {
            throw HostError.io("JACK: \(error)")
        }
        do { try host.activate() } catch { throw HostError.io("JACK: \(error)") }
        for (k, port) in ports.enumerated() {
            do { try host.jack.connect(port, host.inputPortNames[k]) } catch { host.close(); throw HostError.io("\(error)") }
        }
        signal(SIGINT) { _ in stopSignal.store(SIGINT, ordering: .relaxed) }
        signal(SIGTERM) { _ in stopSignal.store(SIGTERM, ordering: .relaxed) }
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)  // a file size limit fails the write (EFBIG), which closes the take properly
        var wanted = sigset_t()
        sigemptyset(&wanted); sigaddset(&wanted, SIGINT); sigaddset(&wanted, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)

        let session = TakeSession(host: host, say: say, fail: reportError)
        session.ringSeconds = ring
        let source: TakeSession.Source = preset == nil || dry ? .inputs : .master
        let take: TakeRecorder
        do {
            take = try session.start(path: output, source: source, format: format, encoding: encoding, preRollSeconds: preRoll,
                                     durationSeconds: duration, armed: armed)
        } catch {
            host.close()
            throw error
        }
        let what = source == .inputs ? "\(count) input\(count == 1 ? "" : "s")" : "preset \(host.engine.preset.name)"
        say("\(preRoll > 0 || armed ? "armed" : "recording"): \(output) (\(take.options.format.rawValue) \(take.options.encoding.rawValue), \(what), \(host.jack.sampleRate) Hz)"
            + (preRoll > 0 ? String(format: "; pre-roll %.1f s: type record", preRoll) : armed ? "; type record" : ""))

        let inbox = ControlInbox()
        inbox.readStandardInput()
        if let port = oscPort {
            do { try inbox.listenOSC(port: UInt16(port)) } catch { session.stop(); host.close(); throw HostError.io("OSC: \(error)") }
        }
        var lastMeter = Date.distantPast
        var failed = false
        func finish(_ why: String?) -> Never {
            if let why { say(why) }
            let s = take.status
            session.stop()
            host.close()
            Foundation.exit(failed || s.state == .failed || s.error != nil ? 2 : 0)
        }
        while true {
            if stopSignal.load(ordering: .relaxed) != 0 { finish("stopping (signal \(stopSignal.load(ordering: .relaxed)))") }
            for event in host.pollEvents() {
                if case .shutdown(let why) = event {
                    reportError("JACK server shut down: \(why); the take is closed")
                    failed = true
                    finish(nil)
                }
            }
            if host.isShutDown { reportError("JACK server shut down; the take is closed"); failed = true; finish(nil) }
            if session.poll() {
                host.close()
                Foundation.exit(take.status.error != nil ? 2 : 0)
            }
            for item in inbox.drain().items {
                var words: [String] = []
                switch item {
                case .line(let text): words = text.split(separator: " ").map(String.init)
                case .packet(let data, _):
                    if let m = try? OSCMessage.parse(data), m.address.hasPrefix("/timbre/") {
                        words = [String(m.address.dropFirst("/timbre/".count))] + m.arguments.compactMap { if case .string(let s) = $0 { return s }; return nil }
                    }
                default: break
                }
                guard let first = words.first else { continue }
                switch first {
                case "quit": finish("bye")
                case "record" where words.count == 1: take.record(); say("recording: \(output)")
                case "record": if !session.handle(Array(words.dropFirst())) { reportError("unknown command: \(words.joined(separator: " "))") }
                case "stop": finish(nil)
                case "pause", "resume", "marker", "discard", "status":
                    if first == "discard" { session.discard(); host.close(); Foundation.exit(0) }
                    _ = session.handle(words)
                default: reportError("unknown command: \(first) (record, pause, resume, stop, marker, discard, status, quit)")
                }
            }
            if meters, Date().timeIntervalSince(lastMeter) >= 0.1 {
                lastMeter = Date()
                let s = take.status
                say(LiveCommand.meterLine(host.engine.meters) + String(format: " | %.1f s, ring %.0f %%", s.seconds, s.ringFill * 100))
            }
            usleep(5000)
        }
    }

    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    func reportError(_ line: String) { FileHandle.standardError.write(Data("timbre: error: \(line)\n".utf8)) }
}
