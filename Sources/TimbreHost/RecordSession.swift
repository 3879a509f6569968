import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbreJack
import TimbrePlugins

/// `timbre record` as a library: JACK inputs, dry or through a preset, recorded to a take
/// that survives a crash (`TakeRecorder`), driven by the control grammar's `record` command
/// from stdin and OSC (`pause`, `marker intro`, `stop` … may stand alone).
public final class RecordSession {
    /// What `timbre record`'s options set.
    public struct Options: Sendable {
        public var output: String
        /// Record through this preset (file or shipped name); nil: the inputs as they arrive.
        public var preset: String?
        /// With a preset: record the inputs, not its output.
        public var dry = false
        /// Ports to connect to the inputs, in order (their count sets the channels).
        public var inputs: [String] = []
        /// Input ports when `inputs` is empty (1…64; default 2).
        public var channels: Int?
        public var durationSeconds: Double?
        public var format: String?
        public var encoding: String?
        public var preRollSeconds = 0.0
        public var armed = false
        public var ringSeconds = 4.0
        public var meters = false
        public var clientName = "timbre-record"
        public var oscPort: Int?

        public init(output: String) { self.output = output }
    }

    public let options: Options
    let say: (String) -> Void
    let reportError: (String) -> Void
    let host: JackHost
    let takes: TakeSession
    let take: TakeRecorder
    let inbox = ControlInbox()
    var failed = false

    /// Opens the client, connects the inputs and starts (or arms) the take.
    public init(_ options: Options, say: @escaping (String) -> Void, reportError: @escaping (String) -> Void) throws(HostError) {
        let count = try Self.check(options)
        self.options = options; self.say = say; self.reportError = reportError
        var document = JSONValue.object(["version": .number(1), "name": .string("dry"), "chain": .array([])]), label = "dry"
        if let preset = options.preset { (document, label) = try PresetLoader.loadDocument(preset) }
        do {
            host = try JackHost(name: options.clientName, document: document, inputs: count, outputs: count, host: .files(in: nil, plugins: PluginHost.loader))
        } catch let e as PresetError {
            throw .usage("\(label): \(e)")
        } catch {
            throw .io("JACK: \(error)")
        }
        takes = TakeSession(host: host, say: say, fail: reportError)
        takes.ringSeconds = options.ringSeconds
        let source: TakeSession.Source = options.preset == nil || options.dry ? .inputs : .master
        do {
            try host.activate()
            for (k, port) in options.inputs.enumerated() { try host.jack.connect(port, host.inputPortNames[k]) }
            take = try takes.start(path: options.output, source: source, format: options.format, encoding: options.encoding,
                                   preRollSeconds: options.preRollSeconds, durationSeconds: options.durationSeconds, armed: options.armed)
            inbox.readStandardInput()
            if let port = options.oscPort { try inbox.listenOSC(port: UInt16(port)) }
        } catch {
            takes.stop(); host.close()
            throw error as? HostError ?? .io("\(error)")
        }
        let what = source == .inputs ? "\(count) input\(count == 1 ? "" : "s")" : "preset \(host.engine.preset.name)"
        let waiting = options.preRollSeconds > 0 || options.armed
        say("\(waiting ? "armed" : "recording"): \(options.output) (\(take.options.format.rawValue) \(take.options.encoding.rawValue), \(what), \(host.jack.sampleRate) Hz)"
            + (options.preRollSeconds > 0 ? String(format: "; pre-roll %.1f s: type record", options.preRollSeconds) : options.armed ? "; type record" : ""))
    }

    /// The options' ranges; the channel count.
    static func check(_ o: Options) throws(HostError) -> Int {
        let count = o.inputs.isEmpty ? (o.channels ?? 2) : o.inputs.count
        guard (1...64).contains(count) else { throw .usage("--channels \(count) is out of range (allowed 1…64)") }
        if let c = o.channels, !o.inputs.isEmpty, c != o.inputs.count { throw .usage("--channels \(c) and \(o.inputs.count) --inputs ports disagree") }
        if let d = o.durationSeconds, !(d > 0 && d <= 86_400 * 7) { throw .usage("--duration \(d) is out of range (allowed > 0 … 604800 s)") }
        guard (0...3600).contains(o.preRollSeconds) else { throw .usage("--pre-roll \(o.preRollSeconds) is out of range (allowed 0…3600 s)") }
        guard (4...60).contains(o.ringSeconds) else { throw .usage("--ring \(o.ringSeconds) is out of range (allowed 4…60 s)") }
        if o.dry && o.preset == nil { throw .usage("--dry records the inputs beside a preset: give --preset") }
        if let p = o.oscPort, !(1...65535).contains(p) { throw .usage("--osc-port \(p) is out of range (allowed 1…65535)") }
        if FileManager.default.fileExists(atPath: o.output) { throw .usage("\(o.output) exists already (a take never replaces a file)") }
        return count
    }

    /// Records until `stop`, `quit`, `discard`, the duration, SIGINT/SIGTERM (after
    /// ``LiveSession/stopOnSignals()``) or the server going away. Returns the exit status:
    /// 0 the take was written (or discarded), 2 when it failed.
    public func run() -> Int32 {
        var lastMeter = Date.distantPast
        while true {
            let signalled = LiveSession.signalled.load(ordering: .relaxed)
            if signalled != 0 { return finish("stopping (signal \(signalled))") }
            if let gone = serverGone() { reportError("JACK server shut down\(gone); the take is closed"); failed = true; return finish(nil) }
            if takes.poll() { host.close(); return take.status.error != nil ? 2 : 0 }
            for item in inbox.drain().items {
                if let status = handle(item) { return status }
            }
            if options.meters, Date().timeIntervalSince(lastMeter) >= 0.1 {
                lastMeter = Date()
                let s = take.status
                say(LiveText.meterLine(host.engine.meters) + String(format: " | %.1f s, ring %.0f %%", s.seconds, s.ringFill * 100))
            }
            usleep(5000)
        }
    }

    func serverGone() -> String? {
        for event in host.pollEvents() { if case .shutdown(let why) = event { return ": \(why)" } }
        return host.isShutDown ? "" : nil
    }

    /// One command; the exit status when it ends the session.
    func handle(_ item: ControlInbox.Item) -> Int32? {
        let command: ControlCommand?
        do throws(ControlError) {
            switch item {
            case .line(let text): command = try ControlCommand.parse(takeLine: text)
            case .packet(let data, _): command = try OSCMessage.parse(data).command()
            default: command = nil
            }
        } catch { reportError(error.message); return nil }
        switch command {
        case nil: return nil
        case .quit: return finish("bye")
        case .status: _ = takes.handle(["status"])
        case .record(let words) where words.isEmpty: take.record(); say("recording: \(options.output)")
        case .record(let words) where words == ["stop"] || words == ["stop", options.output]: return finish(nil)
        case .record(let words) where words.first == "discard": takes.discard(); host.close(); return 0
        case .record(let words):
            do { for line in try takes.perform(words) { say(line) } } catch { reportError(error.message) }
        default: reportError("not a command of timbre record: record | pause | resume | stop | marker [label] | discard | status | quit")
        }
        return nil
    }

    /// Closes the take and the client; the exit status.
    func finish(_ why: String?) -> Int32 {
        if let why { say(why) }
        let s = take.status
        takes.stop()
        host.close()
        return failed || s.state == .failed || s.error != nil ? 2 : 0
    }
}
