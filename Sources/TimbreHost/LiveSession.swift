import Atomics
import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbreJack
import TimbrePlugins
import TimbreWeb

/// `timbre live` as a library: a preset running as a JACK client (or under PipeWire's JACK
/// library), changed while it plays from stdin, a Unix-domain socket, OSC, MIDI and the web
/// page — one command grammar (`ControlCommand`), one interpreter, replies routed back to
/// the transport each command came from.
///
/// ```swift
/// var options = LiveSession.Options(preset: "vocal.json")
/// options.oscPort = 9000
/// let session = try LiveSession(options, say: { print($0) }, reportError: { print("error: \($0)") })
/// let status = session.run()   // until `quit`, requestStop() or the server going away
/// ```
///
/// `run()` is the control loop: it applies commands, reports JACK's events, players' events and
/// takes, reloads a watched preset file, and sleeps until the next thing is due. The audio
/// thread never waits for it: edits reach the render through the engine's plan swap.
public final class LiveSession {
    /// What `timbre live`'s options set.
    public struct Options: Sendable {
        /// A preset file or a shipped preset's name.
        public var preset: String
        public var clientName = "timbre"
        /// Input ports: nil for as many as the preset's graph reads, at least two.
        public var inputs: Int? = nil
        /// Output ports: nil for the preset's own outputs (a crossover's bands), at least two.
        public var outputs: Int? = nil
        /// Ports to connect to the inputs and from the outputs, in order.
        public var connectInputs: [String] = []
        public var connectOutputs: [String] = []
        /// OSC on 127.0.0.1:port (UDP), off when nil.
        public var oscPort: Int?
        /// A JACK MIDI input port, with the preset's mappings and `learn`.
        public var midi = false
        public var connectMIDI: [String] = []
        /// The control page at `[HOST:]PORT`, off when nil; a token is needed beyond loopback.
        public var http: String?
        public var httpToken: String?
        /// A Unix-domain socket (mode 0600) taking command lines, off when nil.
        public var controlSocket: String?
        /// Where `load` and `save` from control messages may read and write.
        public var presetsFolder = "."
        public var allowAnyPath = false
        /// Reload the preset file when it changes on disk.
        public var watch = false
        /// Say a meter line about ten times a second.
        public var meters = false
        /// Delays each player's file read (tests of underruns), seconds.
        public var playerReadDelay = 0.0

        public init(preset: String) { self.preset = preset }
    }

    /// Set by ``stopOnSignals()``'s handlers (async-signal-safe atomic store), read by every loop.
    package static let signalled = ManagedAtomic<Int32>(0)

    public let options: Options
    let say: (String) -> Void
    let reportError: (String) -> Void
    let reportWarning: (String) -> Void
    let host: JackHost
    let prefetcher = PlayerPrefetcher()
    let inbox = ControlInbox()
    var web: WebControlServer?
    var webSession: WebSession?
    var takes: TakeSession!
    var interpreter: ControlInterpreter!
    let stopRequest = ManagedAtomic<Bool>(false)
    var loop = LoopState()

    /// The engine the session runs (its document, meters and players).
    public var engine: LiveEngine { host.engine }

    /// Opens the JACK client with the preset, activates it, connects the ports and opens the
    /// control transports. `say` receives the lines `timbre live` prints on stdout,
    /// `reportError` the failures it prints on stderr (the session goes on after them),
    /// `reportWarning` its warnings (NaN reaching the output).
    public init(_ options: Options, say: @escaping (String) -> Void, reportError: @escaping (String) -> Void,
                reportWarning: ((String) -> Void)? = nil) throws(HostError) {
        guard (0...64).contains(options.inputs ?? 2), (1...64).contains(options.outputs ?? 1) else {
            throw .usage("--inputs must be 0…64 (0: a graph of players only) and --outputs 1…64")
        }
        if let p = options.oscPort, !(1...65535).contains(p) { throw .usage("--osc-port \(p) is out of range (allowed 1…65535)") }
        if !options.connectMIDI.isEmpty && !options.midi { throw .usage("--connect-midi needs --midi") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.presetsFolder, isDirectory: &isFolder), isFolder.boolValue else {
            throw .usage("--presets-dir \(options.presetsFolder) is not a folder")
        }
        self.options = options; self.say = say; self.reportError = reportError; self.reportWarning = reportWarning ?? reportError
        host = try Self.openHost(options)
        prefetcher.readDelay = options.playerReadDelay
        prefetcher.update(Array(host.engine.playerStates.values))
        prefetcher.start()
        do { try host.activate() } catch { prefetcher.stop(); throw .io("JACK: \(error)") }
        connectPorts()
        do throws(HostError) { try openTransports() } catch { close(); throw error }
        takes = TakeSession(host: host, say: say, fail: reportError)
        interpreter = makeInterpreter()
        if let web {
            let schema = (try? PresetDecoder.parse(Data(EmbeddedPresets.schema.utf8))) ?? .object([:])
            webSession = WebSession(server: web, host: host, interpreter: interpreter, takes: takes, presetsFolder: options.presetsFolder, schema: schema)
        }
    }

    static func openHost(_ options: Options) throws(HostError) -> JackHost {
        let (document, label) = try PresetLoader.loadDocument(options.preset)
        let directory = FileManager.default.fileExists(atPath: options.preset) ? URL(fileURLWithPath: options.preset).deletingLastPathComponent().path : nil
        do {
            let inputs = options.inputs ?? max(2, (try? PresetDecoder.decode(document))?.inputChannelsUsed ?? 0)
            return try JackHost(name: options.clientName, document: document, inputs: inputs, outputs: options.outputs, midiInput: options.midi,
                                host: .files(in: directory, plugins: PluginHost.loader))
        } catch let e as PresetError {
            throw .usage("\(label): \(e)")
        } catch {
            throw .io("JACK: \(error)")
        }
    }

    func connectPorts() {
        for (k, port) in options.connectInputs.enumerated() where k < host.inputPortNames.count {
            do { try host.jack.connect(port, host.inputPortNames[k]) } catch { reportError("\(error)") }
        }
        for (k, port) in options.connectOutputs.enumerated() where k < host.outputPortNames.count {
            do { try host.jack.connect(host.outputPortNames[k], port) } catch { reportError("\(error)") }
        }
        if let midiPort = host.midiPortName {
            for port in options.connectMIDI {
                do { try host.jack.connect(port, midiPort) } catch { reportError("\(error)") }
            }
        }
    }

    func openTransports() throws(HostError) {
        inbox.readStandardInput()
        if let port = options.oscPort {
            do { try inbox.listenOSC(port: UInt16(port)) } catch { throw .io("OSC: \(error)") }
        }
        if let path = options.controlSocket {
            do { try inbox.listenUnixSocket(path: path) } catch { throw .usage("--control-socket: \(error)") }
        }
        if let http = options.http { web = try openWeb(http) }
    }

    func openWeb(_ http: String) throws(HostError) -> WebControlServer {
        let parts = http.split(separator: ":", omittingEmptySubsequences: false)
        let (address, portText) = parts.count >= 2 ? (parts.dropLast().joined(separator: ":"), String(parts.last!)) : ("127.0.0.1", http)
        guard let port = Int(portText), (0...65535).contains(port), !address.isEmpty else {
            throw .usage("--http \(http): expected [HOST:]PORT, e.g. 127.0.0.1:8080 or 8080")
        }
        let token = options.httpToken ?? (WebAccessPolicy.isLoopback(address) ? nil : WebAccessPolicy.makeToken())
        let inbox = inbox
        let server = WebControlServer(policy: WebAccessPolicy(host: address, port: port, token: token), assets: WebPage.assets,
                                      connected: { inbox.push(.webConnected($0)) }, receive: { inbox.push(.webMessage($0, from: $1)) })
        do { _ = try server.start() } catch { throw .io("--http \(http): \(error)") }
        return server
    }

    /// Asks ``run()`` to return: takes are finished, the client closed.
    public func requestStop() { stopRequest.store(true, ordering: .relaxed) }

    /// Stops a session from any thread (a timer, a UI) while ``run()`` holds the session's.
    public struct Stopper: Sendable {
        let flag: ManagedAtomic<Bool>
        /// As ``LiveSession/requestStop()``.
        public func stop() { flag.store(true, ordering: .relaxed) }
    }

    /// A handle that stops this session from another thread.
    public var stopper: Stopper { Stopper(flag: stopRequest) }

    /// SIGINT and SIGTERM end every session's ``run()`` as `quit` does (the handlers only
    /// store a flag); SIGPIPE and SIGXFSZ are ignored, so a closed socket or a file size limit
    /// fails a write instead of ending the process.
    public static func stopOnSignals() {
        signal(SIGINT) { _ in LiveSession.signalled.store(SIGINT, ordering: .relaxed) }
        signal(SIGTERM) { _ in LiveSession.signalled.store(SIGTERM, ordering: .relaxed) }
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        // The parent (or libjack) may have left these blocked in this thread: unblock them so
        // the handlers run here, whatever the other threads block.
        var wanted = sigset_t()
        sigemptyset(&wanted); sigaddset(&wanted, SIGINT); sigaddset(&wanted, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
    }

    /// Stops the prefetcher, the page's server and the control socket.
    func close() {
        prefetcher.stop()
        web?.stop()
        inbox.closeControlSocket()
    }
}
