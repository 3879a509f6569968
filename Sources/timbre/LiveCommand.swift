import ArgumentParser
import Atomics
import Foundation
import TimbreEngine
import TimbreJack

/// Set by SIGINT/SIGTERM (async-signal-safe atomic store), read by the control loop.
let stopSignal = ManagedAtomic<Int32>(0)

struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Run a preset live as a JACK client; change it while it plays.",
        discussion: """
        Commands on stdin (and over OSC with --osc-port, loopback only):
          set <node>.<param> <value>     e.g. set eq.bands[3].gain 4, set trim.gain -6     (/timbre/set s f)
          bypass <node> on|off                                                          (/timbre/bypass s i)
          load <preset.json>             replace the whole preset                       (/timbre/load s)
          insert <position> <node JSON>  e.g. insert 0 {"type": "gain", "id": "pad", "gain": -6}
          remove <node>
          status                         one line of JSON: preset, rate, buffer, xruns, DSP load
          quit
        Every change crossfades over 15 ms and smooths gains, so nothing clicks. An invalid
        command or preset is reported and the running graph is kept.
        The server is found through $JACK_DEFAULT_SERVER like every JACK client.
        Exit status: 0 after quit/SIGINT/SIGTERM, 1 for a bad preset or usage, 2 when JACK fails or shuts down.
        """)

    @Option(name: .long, help: "Preset JSON file or shipped preset name.") var preset: String
    @Option(name: .long, help: "JACK client name.") var name: String = "timbre"
    @Option(name: .long, help: "Number of input ports.") var inputs: Int = 2
    @Option(name: .long, help: "Number of output ports.") var outputs: Int = 2
    @Option(name: .long, help: "Ports to connect to our inputs, comma-separated, in order.") var connectInputs: String?
    @Option(name: .long, help: "Ports to connect our outputs to, comma-separated, in order.") var connectOutputs: String?
    @Option(name: .long, help: "Listen for OSC on 127.0.0.1:PORT (UDP).") var oscPort: Int?
    @Flag(name: .long, help: "Reload the preset file when it changes.") var watch = false

    func run() throws {
        guard (1...32).contains(inputs), (1...32).contains(outputs) else { throw CLIError.usage("--inputs and --outputs must be 1…32") }
        if let p = oscPort, !(1...65535).contains(p) { throw CLIError.usage("--osc-port \(p) is out of range (allowed 1…65535)") }
        let (document, label) = try Self.loadDocument(preset)
        let host: JackHost
        do {
            host = try JackHost(name: name, document: document, inputs: inputs, outputs: outputs)
        } catch let e as PresetError {
            throw CLIError.usage("\(label): \(e)")
        } catch {
            throw CLIError.io("JACK: \(error)")
        }
        do { try host.activate() } catch { throw CLIError.io("JACK: \(error)") }
        for (k, port) in (connectInputs?.split(separator: ",").map(String.init) ?? []).enumerated() where k < inputs {
            do { try host.jack.connect(port, host.inputPortNames[k]) } catch { warn("\(error)") }
        }
        for (k, port) in (connectOutputs?.split(separator: ",").map(String.init) ?? []).enumerated() where k < outputs {
            do { try host.jack.connect(host.outputPortNames[k], port) } catch { warn("\(error)") }
        }
        signal(SIGINT) { _ in stopSignal.store(SIGINT, ordering: .relaxed) }
        signal(SIGTERM) { _ in stopSignal.store(SIGTERM, ordering: .relaxed) }
        signal(SIGPIPE, SIG_IGN)
        // The parent (or libjack) may have left these blocked in this thread: unblock them so
        // the handlers above run here, whatever the other threads block.
        var wanted = sigset_t()
        sigemptyset(&wanted); sigaddset(&wanted, SIGINT); sigaddset(&wanted, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)

        let inbox = Inbox()
        Inbox.readStandardInput(into: inbox)
        if let port = oscPort {
            do { try Inbox.listenOSC(port: UInt16(port), into: inbox) } catch { throw CLIError.io("OSC: \(error)") }
        }
        say("ready: \(host.jack.name) \(inputs) in / \(outputs) out at \(host.jack.sampleRate) Hz, buffer \(host.bufferSize); preset \(host.engine.preset.name)"
            + (oscPort.map { "; OSC on 127.0.0.1:\($0)" } ?? ""))

        var watchedDate = Self.modificationDate(preset)
        var lastWatchCheck = Date()
        var lastXrunReport = Date.distantPast
        while true {
            if stopSignal.load(ordering: .relaxed) != 0 {
                say("stopping (signal \(stopSignal.load(ordering: .relaxed)))")
                host.close()
                return
            }
            for event in host.pollEvents() {
                switch event {
                case .connected(let a, let b): say("connected: \(a) → \(b)")
                case .disconnected(let a, let b): say("disconnected: \(a) → \(b)")
                case .bufferSize(let n): say("buffer size: \(n)")
                case .sampleRate(let r): say("sample rate: \(r) Hz (plan recompiled)")
                case .xrun(let total):
                    // At most one xrun line a second (the dummy backend reports many).
                    if Date().timeIntervalSince(lastXrunReport) >= 1 { say("xruns: \(total)"); lastXrunReport = Date() }
                case .shutdown(let why):
                    FileHandle.standardError.write(Data("timbre: error: JACK server shut down: \(why)\n".utf8))
                    Foundation.exit(2)
                }
            }
            if host.isShutDown {
                FileHandle.standardError.write(Data("timbre: error: JACK server shut down\n".utf8))
                Foundation.exit(2)
            }
            for item in inbox.drain() {
                do {
                    let command: ControlCommand?
                    switch item {
                    case .line(let l): command = try ControlCommand.parse(line: l)
                    case .osc(let m): command = try m.command()
                    case .error(let e): throw ControlError(e)
                    }
                    guard let command else { continue }
                    if try perform(command, host: host) == false { host.close(); return }
                } catch {
                    warn("\(error)")
                }
            }
            if watch, Date().timeIntervalSince(lastWatchCheck) > 0.25 {
                lastWatchCheck = Date()
                let date = Self.modificationDate(preset)
                if date != watchedDate {
                    watchedDate = date
                    do { try perform(.load(path: preset), host: host) } catch { warn("\(error)") }
                }
            }
            usleep(5000)
        }
    }

    /// Applies a command; returns false for quit.
    @discardableResult
    func perform(_ command: ControlCommand, host: JackHost) throws -> Bool {
        let engine = host.engine
        switch command {
        case .set(let address, let value):
            try engine.set(address, value)
            say("ok: set \(address) \(value)")
        case .bypass(let node, let on):
            try engine.bypass(node, on)
            say("ok: bypass \(node) \(on ? "on" : "off")")
        case .load(let path):
            let (doc, label) = try Self.loadDocument(path)
            do { try engine.load(document: doc) } catch { throw ControlError("\(label): \(error)") }
            say("ok: loaded \(label) (\(engine.preset.name))")
        case .insert(let position, let node):
            try engine.insert(node, at: position)
            say("ok: inserted at \(position)")
        case .remove(let node):
            try engine.remove(node)
            say("ok: removed \(node)")
        case .status:
            let status: JSONValue = .object([
                "preset": .string(engine.preset.name),
                "sampleRate": .number(engine.sampleRate),
                "bufferSize": .number(Double(host.bufferSize)),
                "cycles": .number(Double(host.cycles)),
                "xruns": .number(Double(host.xruns)),
                "dspLoadPercent": .number((host.jack.cpuLoad * 100).rounded() / 100),
                "latencyFrames": .number(0),
                "inputs": .array(host.inputPortNames.map { .string($0) }),
                "outputs": .array(host.outputPortNames.map { .string($0) }),
                "document": engine.document,
            ])
            say("status: " + status.jsonText)
        case .quit:
            say("bye")
            return false
        }
        return true
    }

    static func loadDocument(_ argument: String) throws(CLIError) -> (JSONValue, String) {
        try PresetLoader.loadDocument(argument)
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// One line on stdout, written unbuffered (scripts and tests read it line by line;
    /// `fflush(nil)` would also take stdin's lock, which the reader thread holds).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func warn(_ line: String) {
        FileHandle.standardError.write(Data("timbre: error: \(line)\n".utf8))
    }
}

/// Commands arriving from stdin and OSC threads, drained by the control loop.
final class Inbox: @unchecked Sendable {
    enum Item { case line(String), osc(OSCMessage), error(String) }
    private var items: [Item] = []
    private let lock = NSLock()

    func push(_ i: Item) { lock.lock(); items.append(i); lock.unlock() }
    func drain() -> [Item] { lock.lock(); defer { lock.unlock() }; let out = items; items = []; return out }

    static func readStandardInput(into inbox: Inbox) {
        let t = Thread {
            while let line = readLine() { inbox.push(.line(line)) }
        }
        t.start()
    }

    /// Binds a UDP socket on 127.0.0.1 and queues every OSC message received.
    static func listenOSC(port: UInt16, into inbox: Inbox) throws(ControlError) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create a UDP socket") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { close(fd); throw ControlError("cannot bind 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        let t = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { continue }
                do { inbox.push(.osc(try OSCMessage.parse(Data(buffer[0..<n])))) } catch { inbox.push(.error("\(error)")) }
            }
        }
        t.start()
    }
}
