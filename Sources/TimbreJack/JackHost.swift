import Atomics
import CJack
import CTimbreSupport
import Foundation
import TimbreDSP
import TimbreEngine

/// What the JACK threads share with the control thread: raw memory, no reference counting.
struct JackProcessContext {
    let renderer: RealtimeRenderer
    let inputPorts: UnsafeMutablePointer<OpaquePointer>
    let inputCount: Int
    let outputPorts: UnsafeMutablePointer<OpaquePointer>
    let outputCount: Int
    let inBuffers: UnsafeMutablePointer<UnsafePointer<Float>>
    /// With no input ports (a player-only graph): the one silent input the engine reads.
    let silence: UnsafeMutablePointer<Float>
    let outBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let xruns: UnsafeAtomic<Int>
    let bufferSize: UnsafeAtomic<Int>
    let sampleRate: UnsafeAtomic<Int>
    let shutdown: UnsafeAtomic<Bool>
    let cycles: UnsafeAtomic<Int>
    /// The plan's own latency in frames, added to what the latency callback passes through.
    let latencyFrames: UnsafeAtomic<Int>
    /// Called first and last in every process cycle (`JackHost.CycleHooks`), or nil.
    let cycleEnter: (@convention(c) () -> Void)?
    let cycleExit: (@convention(c) () -> Void)?
    /// Recording taps (``JackHost/attach(_:source:)``): each slot nil or a `RecordingSlot`.
    let recordSlots: UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>>
    let client: OpaquePointer
    /// The frame time the next cycle should start at (audio thread only; -1 before the first).
    let expectedFrameTime: UnsafeMutablePointer<Int64>
    /// Cycles the server's clock ran without calling us, and their frames: what PipeWire's
    /// skipped periods look like from inside (it reports no xrun for them).
    let missedCycles: UnsafeAtomic<Int>
    let missedFrames: UnsafeAtomic<Int>
    /// The server's frame time at the first cycle this client rendered (-1 before it).
    let startFrameTime: UnsafeAtomic<Int>
    /// The MIDI input port (`--midi`), or nil, and the ring its messages go into.
    let midiPort: OpaquePointer?
    let midiRing: MIDIEventRing
    /// Messages longer than 3 bytes (SysEx), not queued.
    let midiIgnored: UnsafeAtomic<Int>
}

/// What a recording slot points at: the tap and where it listens.
struct RecordingSlot {
    let tap: RecordingTap
    /// true: the input ports as they arrive (dry); false: the output ports after rendering.
    let fromInputs: Bool
}

/// Runs a `LiveEngine` inside a JACK client: renders in the process callback directly on
/// JACK's port buffers, sets FTZ/DAZ in the thread-init callback, and turns JACK's
/// notifications (buffer size, sample rate, xruns, connections, shutdown) into events the
/// control thread reads with ``pollEvents()``.
public final class JackHost: @unchecked Sendable {
    public let engine: LiveEngine
    package let jack: JackClient
    let context: UnsafeMutablePointer<JackProcessContext>
    let events = EventQueue()
    /// The CPU-time clock of the thread JACK calls our process callback on (known once active).
    private(set) var audioThreadClock: ThreadCPUClock?
    var reportedXruns = 0
    var reportedMissedCycles = 0
    var reportedBufferSize = 0

    /// Something that happened in JACK, reported on the control thread.
    public enum Event: Sendable, Equatable {
        case bufferSize(Int)
        case sampleRate(Int)
        case xrun(total: Int)
        /// The server's clock ran cycles without calling us (totals since the start).
        case missedCycles(total: Int, frames: Int)
        case connected(String, String)
        case disconnected(String, String)
        case shutdown(String)
    }

    final class EventQueue: @unchecked Sendable {
        private var items: [Event] = []
        private let lock = NSLock()
        func push(_ e: Event) { lock.lock(); items.append(e); lock.unlock() }
        func drain() -> [Event] { lock.lock(); defer { lock.unlock() }; let out = items; items = []; return out }
    }

    /// Opens the client, registers `inputs`/`outputs` ports, compiles `document` at the
    /// server's rate and warms up. Call ``activate()`` to start processing.
    /// `host`: how `player` channels get their streams and `plugin` nodes load
    /// (TimbreFile's `HostServices.files(in:plugins:)` with TimbrePlugins' `PluginHost.loader`).
    /// `midiInput`: registers a MIDI input port `midi_in`, whose short messages the control
    /// thread reads with ``drainMIDI()``.
    public convenience init(name: String, document: JSONValue, inputs: Int, outputs: Int? = nil, midiInput: Bool = false,
                            host: HostServices = .none) throws {
        try self.init(name: name, document: document, inputs: inputs, outputs: outputs, midiInput: midiInput, host: host, cycleHooks: nil)
    }

    /// As the public initialiser, with `cycleHooks`: C functions called first and last in every
    /// process cycle (the RealtimeSanitizer run's markers).
    package init(name: String, document: JSONValue, inputs: Int, outputs requested: Int?, midiInput: Bool = false,
                 host: HostServices = .none, cycleHooks: CycleHooks?) throws {
        jack = try JackClient(name: name)
        try jack.registerPorts(prefix: "in", count: inputs, input: true)
        let midiPort = midiInput ? try jack.registerMIDIInput(name: "midi_in") : nil
        let rate = Double(jack.sampleRate)
        // Convolution workers one step under JACK's real-time thread when it has one.
        var host = host
        if host.convolution == nil {
            let priority = jack_client_real_time_priority(jack.client)
            host.convolution = ConvolutionThreading(usesWorkers: true, waitsForLateWork: false, realtimePriority: priority > 1 ? priority - 1 : nil)
        }
        // No input ports (players only): the engine reads one channel of silence.
        engine = try LiveEngine(document: document, sampleRate: rate, inputChannelCount: max(1, inputs), outputChannelCount: requested,
                                maxBlockFrames: 8192, host: host)
        // A port per output channel: as asked, or the preset's own outputs.
        let outputs = engine.outputChannelCount
        try jack.registerPorts(prefix: "out", count: outputs, input: false)
        // Discrete outputs (a crossover's bands, named drivers) are named by an alias
        // (`timbre:tweeter L`), which `jack_lsp -A` and patchbays show beside `out_5`.
        if let names = engine.plan.outputChannelNames {
            for (k, port) in jack.outputPorts.enumerated() where k < names.count { _ = jack_port_set_alias(port, "\(jack.name):\(names[k])") }
        } else if outputs > 2 {
            // Positional outputs wider than stereo (a 5.1 master) by their speaker, in WAV's
            // order: `timbre:LFE` beside `out_4`.
            let positions = ChannelLayout.standard(channelCount: outputs).positions
            for (k, port) in jack.outputPorts.enumerated() where positions[k] != .unknown {
                _ = jack_port_set_alias(port, "\(jack.name):\(positions[k].rawValue)")
            }
        }
        engine.warmUp()
        let inPorts = UnsafeMutablePointer<OpaquePointer>.allocate(capacity: inputs)
        for (k, p) in jack.inputPorts.enumerated() { inPorts[k] = p }
        let outPorts = UnsafeMutablePointer<OpaquePointer>.allocate(capacity: outputs)
        for (k, p) in jack.outputPorts.enumerated() { outPorts[k] = p }
        context = .allocate(capacity: 1)
        context.initialize(to: JackProcessContext(
            renderer: engine.renderer, inputPorts: inPorts, inputCount: inputs, outputPorts: outPorts, outputCount: outputs,
            inBuffers: .allocate(capacity: max(1, inputs)), silence: Self.makeSilence(), outBuffers: .allocate(capacity: outputs),
            xruns: .create(0), bufferSize: .create(jack.bufferSize), sampleRate: .create(jack.sampleRate),
            shutdown: .create(false), cycles: .create(0), latencyFrames: .create(engine.latencyFrames),
            cycleEnter: cycleHooks?.enter, cycleExit: cycleHooks?.exit, recordSlots: Self.makeSlots(),
            client: jack.client, expectedFrameTime: Self.makeFrameTime(), missedCycles: .create(0), missedFrames: .create(0), startFrameTime: .create(-1),
            midiPort: midiPort, midiRing: MIDIEventRing(capacity: 4096), midiIgnored: .create(0)))
        let arg = UnsafeMutableRawPointer(context)
        // JACK's thread for this client: FTZ/DAZ, and a name (`timbre-jack`) that tools and
        // the cost tests tell apart from the control side's threads.
        jack_set_thread_init_callback(jack.client, { _ in _ = timbre_enable_ftz_daz(); timbre_name_this_thread("timbre-jack") }, nil)
        jack_set_process_callback(jack.client, { frames, arg in
            JackHost.process(arg!.assumingMemoryBound(to: JackProcessContext.self), frames: Int(frames))
            return 0
        }, arg)
        jack_set_buffer_size_callback(jack.client, { frames, arg in
            // Not a real-time thread. The renderer splits any size into blocks it was built for.
            arg!.assumingMemoryBound(to: JackProcessContext.self).pointee.bufferSize.store(Int(frames), ordering: .relaxed)
            return 0
        }, arg)
        jack_set_sample_rate_callback(jack.client, { rate, arg in
            arg!.assumingMemoryBound(to: JackProcessContext.self).pointee.sampleRate.store(Int(rate), ordering: .relaxed)
            return 0
        }, arg)
        jack_set_xrun_callback(jack.client, { arg in
            arg!.assumingMemoryBound(to: JackProcessContext.self).pointee.xruns.wrappingIncrement(ordering: .relaxed)
            return 0
        }, arg)
        let eventsPointer = Unmanaged.passUnretained(self).toOpaque()
        jack_set_port_connect_callback(jack.client, { a, b, connect, arg in
            // Notification thread (not real-time): safe to look names up and queue an event.
            let host = Unmanaged<JackHost>.fromOpaque(arg!).takeUnretainedValue()
            let na = host.jack.portName(id: a), nb = host.jack.portName(id: b)
            let ours = host.jack.name + ":"
            guard na.hasPrefix(ours) || nb.hasPrefix(ours) else { return }
            host.events.push(connect != 0 ? .connected(na, nb) : .disconnected(na, nb))
        }, eventsPointer)
        // jackd calls the info callback when one is set; PipeWire's JACK (0.3.x) calls only
        // the plain one. Both are set; the first to come reports.
        jack_on_info_shutdown(jack.client, { _, reason, arg in
            Unmanaged<JackHost>.fromOpaque(arg!).takeUnretainedValue().serverShutDown(reason.map { String(cString: $0) } ?? "unknown reason")
        }, eventsPointer)
        jack_on_shutdown(jack.client, { arg in
            Unmanaged<JackHost>.fromOpaque(arg!).takeUnretainedValue().serverShutDown("the server went away")
        }, eventsPointer)
        jack_set_latency_callback(jack.client, { mode, arg in
            JackHost.publishLatency(arg!.assumingMemoryBound(to: JackProcessContext.self).pointee, mode: mode)
        }, arg)
    }

    /// Sets our ports' latency for `mode`: the upstream (capture) or downstream (playback)
    /// latency passed through, plus the plan's own (computed by the plan, so latency-reporting
    /// nodes add theirs). Called by JACK's latency callback, and by us after activation
    /// (PipeWire's JACK does not call the callback until a port is linked).
    static func publishLatency(_ ctx: JackProcessContext, mode: jack_latency_callback_mode_t) {
        let own = UInt32(max(0, ctx.latencyFrames.load(ordering: .relaxed)))
        var range = jack_latency_range_t(min: 0, max: 0)
        let (from, fromCount, to, toCount) = mode == JackCaptureLatency
            ? (ctx.inputPorts, ctx.inputCount, ctx.outputPorts, ctx.outputCount)
            : (ctx.outputPorts, ctx.outputCount, ctx.inputPorts, ctx.inputCount)
        for k in 0..<fromCount {
            var r = jack_latency_range_t(); jack_port_get_latency_range(from[k], mode, &r)
            range.min = max(range.min, r.min); range.max = max(range.max, r.max)
        }
        range.min += own; range.max += own
        for k in 0..<toCount { jack_port_set_latency_range(to[k], mode, &range) }
    }

    deinit {
        jack.close()
        let c = context.pointee
        c.inputPorts.deallocate(); c.outputPorts.deallocate(); c.inBuffers.deallocate(); c.outBuffers.deallocate(); c.silence.deallocate()
        for k in 0..<Self.recordSlotCount {
            if let p = c.recordSlots[k].load(ordering: .acquiring) { p.assumingMemoryBound(to: RecordingSlot.self).deallocate() }
            c.recordSlots[k].destroy()
        }
        c.recordSlots.deallocate()
        c.expectedFrameTime.deallocate(); c.missedCycles.destroy(); c.missedFrames.destroy(); c.startFrameTime.destroy()
        c.midiRing.deallocate(); c.midiIgnored.destroy()
        c.xruns.destroy(); c.bufferSize.destroy(); c.sampleRate.destroy(); c.shutdown.destroy(); c.cycles.destroy(); c.latencyFrames.destroy()
        context.deinitialize(count: 1)
        context.deallocate()
    }

    /// The process callback body: fetch port buffers, render. No allocation, locks or I/O.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    static func process(_ ctx: UnsafeMutablePointer<JackProcessContext>, frames: Int) {
        let c = ctx.pointee
        _unsafePerformance { c.cycleEnter?() }
        defer { _unsafePerformance { c.cycleExit?() } }
        _unsafePerformance {
            for k in 0..<c.inputCount {
                c.inBuffers[k] = UnsafePointer(jack_port_get_buffer(c.inputPorts[k], jack_nframes_t(frames))!.assumingMemoryBound(to: Float.self))
            }
            if c.inputCount == 0 { c.inBuffers[0] = UnsafePointer(c.silence) }
            // A jump of the frame clock: the server ran cycles without us.
            let now = Int64(jack_last_frame_time(c.client))
            let expected = c.expectedFrameTime.pointee
            if expected < 0 { c.startFrameTime.store(Int(now), ordering: .relaxed) }
            if expected >= 0 && now != expected {
                let gap = Int(UInt32(truncatingIfNeeded: now - expected))
                if gap < Int(Int32.max) {
                    c.missedCycles.wrappingIncrement(ordering: .relaxed)
                    c.missedFrames.wrappingIncrement(by: gap, ordering: .relaxed)
                }
            }
            c.expectedFrameTime.pointee = Int64(UInt32(truncatingIfNeeded: now + Int64(frames)))
            for k in 0..<c.outputCount {
                c.outBuffers[k] = jack_port_get_buffer(c.outputPorts[k], jack_nframes_t(frames))!.assumingMemoryBound(to: Float.self)
            }
            // MIDI: complete short messages into the ring, for the control thread to map.
            if let port = c.midiPort, let buffer = jack_port_get_buffer(port, jack_nframes_t(frames)) {
                let count = jack_midi_get_event_count(buffer)
                var event = jack_midi_event_t()
                for k in 0..<count where jack_midi_event_get(&event, buffer, k) == 0 {
                    if (1...3).contains(event.size), let bytes = event.buffer, bytes[0] >= 0x80 {
                        c.midiRing.push(bytes, count: Int(event.size))
                    } else {
                        c.midiIgnored.wrappingIncrement(ordering: .relaxed)
                    }
                }
            }
        }
        c.renderer.render(input: UnsafePointer(c.inBuffers), output: UnsafePointer(c.outBuffers), frameCount: frames)
        // Recording taps: a copy of the dry inputs or of the rendered outputs into each ring.
        for k in 0..<Self.recordSlotCount {
            guard let p = c.recordSlots[k].load(ordering: .acquiring) else { continue }
            let slot = p.assumingMemoryBound(to: RecordingSlot.self).pointee
            let source = slot.fromInputs ? UnsafeRawPointer(c.inBuffers) : UnsafeRawPointer(c.outBuffers)
            slot.tap.capture(source.assumingMemoryBound(to: UnsafeMutablePointer<Float>.self), frameCount: frames)
        }
        c.cycles.wrappingIncrement(ordering: .relaxed)
    }

    static let recordSlotCount = 8

    /// The largest period JACK or PipeWire hands us (the renderer splits it into blocks), silent.
    static func makeSilence() -> UnsafeMutablePointer<Float> {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: 16_384)
        p.initialize(repeating: 0, count: 16_384)
        return p
    }

    static func makeFrameTime() -> UnsafeMutablePointer<Int64> {
        let p = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        p.initialize(to: -1)
        return p
    }

    static func makeSlots() -> UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>> {
        let slots = UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>>.allocate(capacity: recordSlotCount)
        for k in 0..<recordSlotCount { (slots + k).initialize(to: .create(nil)) }
        return slots
    }

    /// Where a take listens.
    public enum RecordSource: Sendable, Equatable {
        /// The output ports, after the graph (the master).
        case outputs
        /// The input ports as they arrive (dry).
        case inputs
    }

    /// Starts feeding `tap` from the next cycle on; returns its slot. The tap's channel count
    /// must not exceed the ports it listens to. Throws when all 8 slots are taken.
    package func attach(_ tap: RecordingTap, source: RecordSource) throws(JackError) -> Int {
        let ports = source == .inputs ? context.pointee.inputCount : context.pointee.outputCount
        guard tap.channelCount <= ports else { throw JackError("a take of \(tap.channelCount) channels cannot listen to \(ports) ports") }
        let slot = UnsafeMutablePointer<RecordingSlot>.allocate(capacity: 1)
        slot.initialize(to: RecordingSlot(tap: tap, fromInputs: source == .inputs))
        for k in 0..<Self.recordSlotCount {
            if context.pointee.recordSlots[k].compareExchange(expected: nil, desired: UnsafeMutableRawPointer(slot), ordering: .acquiringAndReleasing).exchanged {
                return k
            }
        }
        slot.deallocate()
        throw JackError("\(Self.recordSlotCount) takes are running already")
    }

    /// Stops feeding the tap in `slot` and returns once the audio thread has let go of it
    /// (two cycles later, or at once when JACK no longer runs us).
    public func detach(slot k: Int) {
        guard let p = context.pointee.recordSlots[k].exchange(nil, ordering: .acquiringAndReleasing) else { return }
        let start = cycles, deadline = Date().addingTimeInterval(1)
        while cycles - start < 2 && !isShutDown && Date() < deadline { usleep(1_000) }
        p.assumingMemoryBound(to: RecordingSlot.self).deallocate()
    }

    /// Instrumentation of the process cycle: `enter` runs before anything else in a cycle,
    /// `exit` after everything (plain C functions: nothing is retained or allocated). The
    /// RealtimeSanitizer run passes its realtime-section markers, so every cycle JACK runs —
    /// port buffers, the renderer, the plugins — is checked.
    package struct CycleHooks: Sendable {
        package var enter: @convention(c) () -> Void
        package var exit: @convention(c) () -> Void
        package init(enter: @convention(c) () -> Void, exit: @convention(c) () -> Void) { self.enter = enter; self.exit = exit }
    }

    /// Starts processing and publishes the ports' latency at once (PipeWire's JACK would
    /// otherwise show 0 until a port is linked).
    public func activate() throws {
        try jack.activate()
        // JACK's process thread (jack2's client thread; PipeWire's data loop): its CPU clock.
        var clock = clockid_t()
        let thread = jack_client_thread_id(jack.client)
        if thread != 0, pthread_getcpuclockid(thread, &clock) == 0 { audioThreadClock = ThreadCPUClock(clock: clock) }
        Self.publishLatency(context.pointee, mode: JackCaptureLatency)
        Self.publishLatency(context.pointee, mode: JackPlaybackLatency)
        jack_recompute_total_latencies(jack.client)
    }

    /// Called from a JACK thread when the server goes away (once).
    func serverShutDown(_ why: String) {
        guard !context.pointee.shutdown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        events.push(.shutdown(why))
    }

    public var inputPortNames: [String] { jack.inputPorts.map(jack.fullName) }
    public var outputPortNames: [String] { jack.outputPorts.map(jack.fullName) }
    public var xruns: Int { context.pointee.xruns.load(ordering: .relaxed) }
    public var cycles: Int { context.pointee.cycles.load(ordering: .relaxed) }
    /// Cycles the server's frame clock advanced without calling us (PipeWire's skipped
    /// periods, which it does not report as xruns), and how many frames they held.
    public var missedCycles: Int { context.pointee.missedCycles.load(ordering: .relaxed) }
    public var missedFrames: Int { context.pointee.missedFrames.load(ordering: .relaxed) }
    /// The server's frame time (`jack_last_frame_time`) of the first cycle this client
    /// rendered: where frame 0 of its stream sits on the server's clock, so a recording made
    /// by another client can be placed on the stream (nil before the first cycle).
    public var startFrameTime: Int? {
        let t = context.pointee.startFrameTime.load(ordering: .relaxed)
        return t < 0 ? nil : t
    }

    /// The MIDI input port's full name (nil without `midiInput`).
    public var midiPortName: String? { context.pointee.midiPort.map(jack.fullName) }
    /// MIDI messages since the last call, oldest first (control thread only).
    public func drainMIDI() -> [[UInt8]] { context.pointee.midiPort == nil ? [] : context.pointee.midiRing.drain() }
    /// MIDI messages dropped because the ring was full, and SysEx or malformed ones ignored.
    public var midiDropped: Int { context.pointee.midiRing.dropped.load(ordering: .relaxed) }
    public var midiIgnored: Int { context.pointee.midiIgnored.load(ordering: .relaxed) }
    public var bufferSize: Int { context.pointee.bufferSize.load(ordering: .relaxed) }
    public var isShutDown: Bool { context.pointee.shutdown.load(ordering: .acquiring) }
    /// CPU seconds JACK's process thread for this client has used (nil before activation).
    public var audioThreadCPUSeconds: Double? {
        guard let s = audioThreadClock?.seconds, s.isFinite else { return nil }
        return s
    }

    /// Events since the last call, plus buffer-size, rate and xrun changes. Recompiles the
    /// plan when the sample rate changed. Frees plans the audio thread retired.
    public func pollEvents() -> [Event] {
        engine.performHousekeeping()
        var out = events.drain()
        // A plan whose latency changed: tell JACK, which calls the latency callback again.
        let latency = engine.latencyFrames
        if context.pointee.latencyFrames.exchange(latency, ordering: .relaxed) != latency {
            jack_recompute_total_latencies(jack.client)
        }
        let rate = context.pointee.sampleRate.load(ordering: .relaxed)
        if Double(rate) != engine.sampleRate {
            do { try engine.setSampleRate(Double(rate)); out.append(.sampleRate(rate)) } catch {
                out.append(.shutdown("the preset does not fit the new sample rate \(rate) Hz: \(error)"))
            }
        }
        let size = bufferSize
        if size != reportedBufferSize {
            if reportedBufferSize != 0 { out.append(.bufferSize(size)) }
            reportedBufferSize = size
        }
        let x = xruns
        if x != reportedXruns { reportedXruns = x; out.append(.xrun(total: x)) }
        let missed = missedCycles
        if missed != reportedMissedCycles { reportedMissedCycles = missed; out.append(.missedCycles(total: missed, frames: missedFrames)) }
        return out
    }

    public func close() { jack.close() }
}
