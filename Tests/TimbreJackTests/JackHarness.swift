import Atomics
import CJack
import Foundation
import TimbreJack
import TimbreTestSupport

/// `timbre live` as a child process, with its stdin for commands and stdout read line by line.
final class LiveProcess: @unchecked Sendable {
    let process = Process()
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    private var lines: [String] = []
    private var errText = ""
    private let lock = NSLock()

    static var binary: String { ProcessRunner.timbreBinary }

    init(_ args: [String], command: String = "live", environment: [String: String] = [:], cwd: String? = nil) throws {
        // A child that exited must not take the test process with it when a line is sent.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [command] + args
        // A folder of its own unless told: a fuzzed `save` must never write into the checkout.
        process.currentDirectoryURL = URL(fileURLWithPath: try cwd ?? ProcessRunner.temporaryDirectory("timbre-live-cwd"))
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        stdout.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self, !d.isEmpty else { return }
            self.lock.lock()
            let text = String(decoding: d, as: UTF8.self)
            self.partial += text
            while let nl = self.partial.firstIndex(of: "\n") {
                self.lines.append(String(self.partial[..<nl]))
                self.partial = String(self.partial[self.partial.index(after: nl)...])
            }
            self.lock.unlock()
        }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self, !d.isEmpty else { return }
            self.lock.lock(); self.errText += String(decoding: d, as: UTF8.self); self.lock.unlock()
        }
        try process.run()
    }
    private var partial = ""

    var output: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    var errors: String { lock.lock(); defer { lock.unlock() }; return errText }

    /// Waits until a stdout line satisfies `predicate`; returns it (nil on timeout).
    @discardableResult
    func waitForLine(timeout: Double = 10, after index: Int = 0, _ predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let out = output
            if out.count > index, let l = out[index...].first(where: predicate) { return l }
            if !process.isRunning { let out = output; return out.count > index ? out[index...].first(where: predicate) : nil }
            usleep(10000)
        }
        return nil
    }

    /// Sends a line; to a process that has exited it sends nothing (the test then fails on
    /// what it expected, with the process's errors, instead of the write trapping the whole run).
    func send(_ line: String) {
        try? stdin.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Sends `status` and returns the parsed JSON of the reply.
    func status() throws -> [String: Any] {
        let mark = output.count
        send("status")
        guard let line = waitForLine(after: mark, { $0.hasPrefix("status: ") }) else { throw JackError("no status reply; stderr: \(errors)") }
        guard let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst(8).utf8)) as? [String: Any] else {
            throw JackError("status is not a JSON object: \(line)")
        }
        return json
    }

    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        stdout.fileHandleForReading.readabilityHandler = nil
        stderr.fileHandleForReading.readabilityHandler = nil
    }
}

/// Render-side memory of a test client that plays planar buffers out of its output ports
/// or records its input ports into planar buffers, from the moment `running` is set.
struct TapContext {
    let ports: UnsafeMutablePointer<OpaquePointer>
    let count: Int
    let isPlayer: Bool
    let buffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let length: Int
    let position: UnsafeAtomic<Int>
    let running: UnsafeAtomic<Bool>
    let client: OpaquePointer
    /// The server's frame time of the first running cycle (-1 before it).
    let startFrameTime: UnsafeAtomic<Int>
}

/// A JACK client that plays (`player`) or records (`recorder`) a fixed-length planar signal.
final class TapClient {
    let jack: JackClient
    let context: UnsafeMutablePointer<TapContext>

    init(name: String, channels: Int, player: Bool, signal: [[Float]]? = nil, length: Int) throws {
        jack = try JackClient(name: name)
        try jack.registerPorts(prefix: player ? "out" : "in", count: channels, input: !player)
        let ports = UnsafeMutablePointer<OpaquePointer>.allocate(capacity: channels)
        for (k, p) in (player ? jack.outputPorts : jack.inputPorts).enumerated() { ports[k] = p }
        let buffers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channels)
        for c in 0..<channels {
            buffers[c] = .allocate(capacity: length)
            buffers[c].initialize(repeating: 0, count: length)
            if let signal { for i in 0..<min(length, signal[c].count) { buffers[c][i] = signal[c][i] } }
        }
        context = .allocate(capacity: 1)
        context.initialize(to: TapContext(ports: ports, count: channels, isPlayer: player, buffers: buffers, length: length,
                                          position: .create(0), running: .create(false),
                                          client: jack.client, startFrameTime: .create(-1)))
        jack_set_process_callback(jack.client, { frames, arg in
            let c = arg!.assumingMemoryBound(to: TapContext.self).pointee
            let n = Int(frames)
            let running = c.running.load(ordering: .acquiring)
            let pos = c.position.load(ordering: .relaxed)
            if running && pos == 0 { c.startFrameTime.store(Int(jack_last_frame_time(c.client)), ordering: .relaxed) }
            for k in 0..<c.count {
                guard let raw = jack_port_get_buffer(c.ports[k], frames) else { continue }
                let buf = raw.assumingMemoryBound(to: Float.self)
                for i in 0..<n {
                    let j = pos + i
                    if c.isPlayer {
                        buf[i] = running && j < c.length ? c.buffers[k][j] : 0
                    } else if running && j < c.length {
                        c.buffers[k][j] = buf[i]
                    }
                }
            }
            if running { c.position.store(pos + n, ordering: .relaxed) }
            return 0
        }, UnsafeMutableRawPointer(context))
        try jack.activate()
    }

    func start() { context.pointee.running.store(true, ordering: .releasing) }
    var position: Int { context.pointee.position.load(ordering: .relaxed) }
    var isDone: Bool { position >= context.pointee.length }
    /// The server's frame time at which the first played or recorded frame passed (nil before).
    var startFrameTime: Int? {
        let t = context.pointee.startFrameTime.load(ordering: .relaxed)
        return t < 0 ? nil : t
    }

    func channel(_ c: Int) -> [Float] { Array(UnsafeBufferPointer(start: context.pointee.buffers[c], count: context.pointee.length)) }
    var portNames: [String] { (context.pointee.isPlayer ? jack.outputPorts : jack.inputPorts).map(jack.fullName) }

    func close() { jack.close() }

    deinit {
        jack.close()
        let c = context.pointee
        for k in 0..<c.count { c.buffers[k].deallocate() }
        c.buffers.deallocate(); c.ports.deallocate(); c.position.destroy(); c.running.destroy(); c.startFrameTime.destroy()
        context.deallocate()
    }

    /// Waits until the tap has passed its whole length.
    func waitUntilDone(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !isDone && Date() < deadline { usleep(10000) }
        return isDone
    }
}

/// What a ``MIDISender``'s process callback reads: messages the test queued, as bytes with
/// their ends, and how many it has sent.
struct MIDISenderContext {
    let port: OpaquePointer
    let bytes: UnsafeMutablePointer<UInt8>
    let ends: UnsafeMutablePointer<Int>
    let queued: UnsafeAtomic<Int>
    let sent: UnsafeAtomic<Int>
    /// At most this many messages in one cycle.
    let perCycle: Int
}

/// A JACK client with one MIDI output port (`<name>:midi_out`) that sends the messages a
/// test queues, up to `perCycle` a cycle, spread over the period.
final class MIDISender {
    let jack: JackClient
    let context: UnsafeMutablePointer<MIDISenderContext>
    static let byteCapacity = 1 << 22, messageCapacity = 1 << 18
    private var byteCount = 0

    init(name: String, perCycle: Int = 16) throws {
        jack = try JackClient(name: name)
        let port = try jack.registerMIDIOutput(name: "midi_out")
        context = .allocate(capacity: 1)
        context.initialize(to: MIDISenderContext(port: port, bytes: .allocate(capacity: Self.byteCapacity), ends: .allocate(capacity: Self.messageCapacity),
                                                 queued: .create(0), sent: .create(0), perCycle: perCycle))
        jack_set_process_callback(jack.client, { frames, arg in
            let c = arg!.assumingMemoryBound(to: MIDISenderContext.self).pointee
            guard let buffer = jack_port_get_buffer(c.port, frames) else { return 0 }
            jack_midi_clear_buffer(buffer)
            let queued = c.queued.load(ordering: .acquiring)
            var next = c.sent.load(ordering: .relaxed)
            var k = 0
            while next < queued && k < c.perCycle {
                let start = next == 0 ? 0 : c.ends[next - 1]
                let time = jack_nframes_t(k * Int(frames) / c.perCycle)
                _ = jack_midi_event_write(buffer, time, c.bytes + start, c.ends[next] - start)
                next += 1; k += 1
            }
            c.sent.store(next, ordering: .releasing)
            return 0
        }, UnsafeMutableRawPointer(context))
        try jack.activate()
    }

    var portName: String { "\(jack.name):midi_out" }

    /// Queues messages (each 1 or more bytes) to be sent from the next cycle on.
    func send(_ messages: [[UInt8]]) {
        var n = context.pointee.queued.load(ordering: .relaxed)
        for m in messages where !m.isEmpty && n < Self.messageCapacity && byteCount + m.count <= Self.byteCapacity {
            for (i, b) in m.enumerated() { context.pointee.bytes[byteCount + i] = b }
            byteCount += m.count
            context.pointee.ends[n] = byteCount
            n += 1
        }
        context.pointee.queued.store(n, ordering: .releasing)
    }

    var sentCount: Int { context.pointee.sent.load(ordering: .acquiring) }

    /// Waits until every queued message went out.
    func waitUntilSent(timeout: Double) -> Bool {
        ProcessRunner.wait(timeout: timeout) { self.sentCount == self.context.pointee.queued.load(ordering: .acquiring) }
    }

    func close() { jack.close() }

    deinit {
        jack.close()
        let c = context.pointee
        c.bytes.deallocate(); c.ends.deallocate(); c.queued.destroy(); c.sent.destroy()
        context.deallocate()
    }
}
