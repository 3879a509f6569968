// RealtimeSanitizer run of the render path (`make rtsan`).
//
// Renders blocks through a chain with every chain node type, then through a graph with every
// graph node (input copies, a sine generator, buses cleared and mixed, groups, pans), on a
// dedicated thread, each render call bracketed by __rtsan_realtime_enter/exit, while the main
// thread edits through the control interpreter: parameters, switches, bypasses, inserts and
// removes, and whole-preset loads. Any allocation, free, lock, syscall or I/O inside the
// bracket makes RealtimeSanitizer abort the process (exit code 43). `--self-test` allocates
// inside the bracket on purpose: it must die with 43, which shows the sanitizer is active.
import CJack
import CRealtimeSanitizer
import Foundation
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreJack
import TimbrePlugins
import TimbreTestSupport

let selfTest = CommandLine.arguments.contains("--self-test")
/// `--self-test-jack`: only the JACK phase, whose cycle hook allocates in the 10th cycle.
let selfTestJack = CommandLine.arguments.contains("--self-test-jack")
guard timbre_rtsan_available() != 0 else {
    FileHandle.standardError.write(Data("RealtimeSafetyCheck: not linked with RealtimeSanitizer (use `make rtsan`)\n".utf8))
    exit(3)
}

let block = 128, blocksPerPhase = 6_000
let input = UnsafeMutablePointer<Float>.allocate(capacity: block)
for i in 0..<block { input[i] = sin(Float(i) * 0.05) * 0.3 }
// Up to 8 channels (the widest phase); every input channel reads the same sine.
let outputs = (0..<8).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
nonisolated(unsafe) let inPtrs = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 8)
for c in 0..<8 { inPtrs[c] = UnsafePointer(input) }
nonisolated(unsafe) let outPtrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 8)
for c in 0..<8 { outPtrs[c] = outputs[c] }

var totalBlocks = 0, totalEdits = 0

/// Renders `blocksPerPhase` blocks through `engine` on a dedicated thread, each inside a
/// realtime section, sleeping `pause` µs between them, while this thread calls `edit(step)`
/// every `interval`. Returns the edits made.
@MainActor func run(_ engine: LiveEngine, pause: UInt32, interval: DispatchTimeInterval, edit: (Int) throws -> Void) throws -> Int {
    let renderer = engine.renderer
    let finished = DispatchSemaphore(value: 0)
    let audio = Thread {
        DenormalGuard.enable()
        for b in 0..<blocksPerPhase {
            timbre_rtsan_realtime_enter()
            renderer.render(input: inPtrs, output: outPtrs, frameCount: block)
            if selfTest && b == 10 { let p = UnsafeMutablePointer<Float>.allocate(capacity: 64); p.deallocate() }
            timbre_rtsan_realtime_exit()
            usleep(pause)  // outside the realtime section: pace the render so edits interleave
        }
        finished.signal()
    }
    audio.start()
    var edits = 0
    while finished.wait(timeout: .now() + interval) == .timedOut {
        try edit(edits)
        engine.performHousekeeping()
        edits += 1
    }
    engine.performHousekeeping()
    return edits
}

/// One phase over `json` on `channels` inputs and outputs: the engine warmed up, rendered by
/// ``run(_:pause:interval:edit:)`` while `edit(interpreter, step)` changes it, and counted.
@MainActor func phase(_ name: String, _ json: String, channels: Int, edit: (ControlInterpreter, Int) throws -> Void) throws {
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(json.utf8)), sampleRate: 48000, inputChannelCount: channels, outputChannelCount: max(2, channels))
    engine.warmUp()
    let interpreter = EveryNodePresets.interpreter(engine)
    let edits = try run(engine, pause: 40, interval: .microseconds(200)) { try edit(interpreter, $0) }
    print("RealtimeSanitizer (\(name)): \(engine.blocksRendered) blocks in realtime sections with \(edits) concurrent edits; no violations")
    totalBlocks += engine.blocksRendered; totalEdits += edits
}

for (name, json) in [("chain", EveryNodePresets.chain), ("graph", EveryNodePresets.graph)] where !selfTestJack {
    try phase(name, json, channels: 1) { try EveryNodePresets.edit($0, step: $1) }
}

// Eight channels: short cascades run four stereo pairs side by side (their own C loop), the
// 10-band EQ pair after pair, meters on every channel; band gains and a bypass edited.
let wide = #"{"version": 1, "name": "eight channels", "chain": [{"type": "peak", "id": "pk", "frequency": 1000, "gain": 3}, {"type": "meter", "id": "m"}, {"type": "eq", "id": "eq", "bands": [{"gain": 1}, {"gain": -2}, {"gain": 3}, {"gain": -1}, {"gain": 2}, {"gain": -3}, {"gain": 1}, {"gain": 2}, {"gain": -1}, {"gain": 3}]}, {"type": "gain", "id": "g", "gain": -1}]}"#
if !selfTestJack {
    try phase("8 channels", wide, channels: 8) { interpreter, k in
        let command: ControlCommand = switch k % 3 {
        case 0: .set(address: "eq.bands[\(k % 10)].gain", value: Double(k % 9) - 4)
        case 1: .set(address: "pk.gain", value: Double(k % 7) - 3)
        default: .bypass(node: "pk", on: k % 4 == 2)
        }
        _ = try interpreter.perform(command)
    }
}

// Buses wider than stereo: 5.1 stems into a six-channel group, a mono dialog upmixed into the
// centre, a six-channel aux with outputs of its own behind a delay, a six-channel master whose
// loudness compensation follows its volume; levels, sends, routes and band gains edited.
let wideGraph = #"""
{"version": 1, "name": "wide graph", "graph": {
  "channels": [{"id": "music", "input": [0, 1, 2, 3, 4, 5], "group": "stems", "sends": [{"aux": "wide", "level": 0.5, "pre": true}]},
               {"id": "fx", "input": [6, 7, 6, 7, 6, 7], "group": "stems", "chain": [{"type": "limiter", "id": "fxlim", "ceiling": -1}]},
               {"id": "dialog", "input": [0], "channels": 6, "chain": [{"type": "matrix", "id": "centre", "outputs": 6, "routes": [{"from": 0, "to": 2}]}]}],
  "groups": [{"id": "stems", "channels": 6, "chain": [{"type": "eq", "id": "geq", "bands": [{"gain": 2}]}]}],
  "auxes": [{"id": "wide", "channels": 6, "to": "outputs", "chain": [{"type": "delay", "id": "wdly", "time": 20}]}],
  "master": {"channels": 6, "chain": [{"type": "loudnessCompensation", "id": "lc", "followMaster": true}, {"type": "limiter", "id": "lim", "ceiling": -2}]}}}
"""#
if !selfTestJack {
    try phase("wide graph", wideGraph, channels: 8) { interpreter, k in
        let command: ControlCommand = switch k % 6 {
        case 0: .set(address: "music.volume", value: Double(k % 10) / 10)
        case 1: .set(address: "stems.volume", value: Double(k % 5) / 5)
        case 2: .set(address: "master.volume", value: Double(1 + k % 8) / 8)
        case 3: .set(address: "music.sends[0].level", value: Double(k % 4) / 4)
        case 4: .set(address: "centre.routes[0].gain", value: -Double(k % 12))
        default: .set(address: "geq.bands[0].gain", value: Double(k % 9) - 4)
        }
        _ = try interpreter.perform(command)
    }
}

// Plugins (LV2 through lilv and LADSPA, real Debian plugins): eg-amp as two mono instances,
// x42 fil4 (atom ports, parameter smoothing), x42 dpl (latency port), swh amp (LADSPA), with
// their controls and bypasses edited concurrently (each edit recompiles the plan; the
// instances continue). What runs in the realtime sections: Timbre's render path and the
// plugins' run — so a plugin that allocated or locked would be reported here too.
if !selfTestJack {
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(EveryNodePresets.plugins.utf8)), sampleRate: 48000, inputChannelCount: 1,
                                outputChannelCount: 2, host: HostServices(plugins: PluginHost.loader))
    engine.warmUp()
    let interpreter = EveryNodePresets.interpreter(engine)
    let edits = try run(engine, pause: 40, interval: .microseconds(400)) { try EveryNodePresets.editPlugins(interpreter, step: $0) }
    print("RealtimeSanitizer (plugins): \(engine.blocksRendered) blocks in realtime sections with \(edits) concurrent edits; no violations")
    totalBlocks += engine.blocksRendered; totalEdits += edits
}

// Convolution from files: a REW text FIR, and a true-stereo room response at 44.1 kHz
// resampled to 48 kHz, with mix, width, predelay (a new response each time, prepared on this
// thread) and gain edited concurrently.
let responses = try ResponseFileFixture()
if !selfTestJack {
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(responses.preset.utf8)), sampleRate: 48000, inputChannelCount: 1,
                                outputChannelCount: 2, host: responses.host)
    engine.warmUp()
    let interpreter = EveryNodePresets.interpreter(engine)
    let edits = try run(engine, pause: 40, interval: .microseconds(2_000)) { try ResponseFileFixture.edit(interpreter, step: $0) }
    print("RealtimeSanitizer (fir and convolver from files): \(engine.blocksRendered) blocks in realtime sections with \(edits) concurrent edits; no violations")
    totalBlocks += engine.blocksRendered; totalEdits += edits
}

// Under a real JACK server (jackd, dummy backend, 256-frame periods): `JackHost` with every
// chain node type and the plugins, each process cycle JACK runs — port buffers, renderer,
// plugins — marked as a realtime section through the host's cycle hooks, while this thread
// edits and the host's housekeeping frees retired plans. Skipped (said so) without jackd.
if FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd") {
    let enter: @convention(c) () -> Void = selfTestJack ? timbre_rtsan_realtime_enter_then_allocate : timbre_rtsan_realtime_enter
    // A violation ends this process before the server's deinit: `make rtsan` then stops it
    // by its name (timbre-rtsan-PID-N).
    let server = try JackServer(prefix: "timbre-rtsan")
    defer { server.stop() }
    // The convolver's phase: a 10-second true-stereo response.
    let long = try ResponseFileFixture(seconds: 10)
    var services = long.host
    services.plugins = PluginHost.loader
    for (phase, json, edit) in [("JACK, every chain node", EveryNodePresets.chain, EveryNodePresets.edit),
                                ("JACK, plugins", EveryNodePresets.plugins, EveryNodePresets.editPlugins),
                                ("JACK, fir and a 10 s true-stereo convolver from files", long.preset, ResponseFileFixture.edit)] {
        let host = try JackHost(name: "rtsan", document: PresetDecoder.parse(Data(json.utf8)), inputs: 1, outputs: 2, midiInput: true,
                                host: services,
                                cycleHooks: .init(enter: enter, exit: timbre_rtsan_realtime_exit))
        try host.activate()
        // MIDI into the host's midi_in every cycle (a controller, a note, a SysEx it ignores):
        // the host reads its MIDI port inside the realtime section.
        let midiSource = try JackClient(name: "rtsan-midi")
        let midiPort = UnsafeMutablePointer<OpaquePointer>.allocate(capacity: 1)
        midiPort.initialize(to: try midiSource.registerMIDIOutput(name: "out"))
        defer { midiSource.close(); midiPort.deallocate() }
        jack_set_process_callback(midiSource.client, MIDISource.process, UnsafeMutableRawPointer(midiPort))
        try midiSource.activate()
        try midiSource.connect("rtsan-midi:out", host.midiPortName!)
        var midiMessages = 0
        // Recording on: the master and the dry input into takes (paused, resumed, marked),
        // and a ring nobody drains (every cycle an overrun).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-rtsan-\(getpid())-\(phase.count)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let master = try TakeRecorder(.init(path: folder + "/master.wav", format: .wav, encoding: .float, sampleRate: host.jack.sampleRate, channelCount: 2))
        let dry = try TakeRecorder(.init(path: folder + "/dry.w64", format: .w64, encoding: .pcm24, sampleRate: host.jack.sampleRate, channelCount: 1))
        let stuck = RecordingTap(channelCount: 2, frames: 512)
        stuck.setEnabled(true)
        let slots = [try host.attach(master.tap, source: .outputs), try host.attach(dry.tap, source: .inputs), try host.attach(stuck, source: .outputs)]
        master.record(); dry.record()
        let interpreter = EveryNodePresets.interpreter(host.engine)
        var edits = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 4 {
            try edit(interpreter, edits)
            edits += 1
            if edits == 100 { master.pause(); master.marker("paused") }
            if edits == 200 { master.resume() }
            _ = host.pollEvents()
            midiMessages += host.drainMIDI().count
            usleep(5000)
        }
        let cycles = host.cycles
        let takes = [master.stop(), dry.stop()]
        for k in slots { host.detach(slot: k) }
        host.close()
        _ = host.pollEvents()
        print("RealtimeSanitizer (\(phase)): \(cycles) JACK process cycles in realtime sections with \(edits) concurrent edits, 3 recording taps and \(midiMessages) MIDI messages read (\(host.midiIgnored) SysEx ignored)"
              + " (takes of \(takes[0].frames) and \(takes[1].frames) frames, \(stuck.overruns) overrun on the undrained ring); no violations")
        stuck.deallocate()
        if takes.contains(where: { $0.frames < 48_000 || $0.error != nil }) { print("RealtimeSanitizer (JACK): a take failed"); exit(1) }
        if cycles < 100 { print("RealtimeSanitizer (JACK): too few cycles ran"); exit(1) }
        if midiMessages < cycles { print("RealtimeSanitizer (JACK): MIDI did not arrive"); exit(1) }
    }
} else {
    print("RealtimeSanitizer (JACK): skipped, /usr/bin/jackd is not installed")
}

// Players: two file players streamed by the prefetch thread while the main thread pauses,
// plays, seeks and changes rates, loops, volumes and pans.
let fixture = try PlayerFixture()
let players = try LiveEngine(document: PresetDecoder.parse(Data(fixture.preset.utf8)), sampleRate: 48000, inputChannelCount: 1,
                             outputChannelCount: 2, host: fixture.host)
players.warmUp()
let prefetcher = PlayerPrefetcher()
prefetcher.update(Array(players.playerStates.values))
prefetcher.start()
let playerInterpreter = EveryNodePresets.interpreter(players)
let commands = try run(players, pause: 200, interval: .milliseconds(2)) { step in
    try PlayerFixture.edit(playerInterpreter, step: step)
    prefetcher.update(Array(players.playerStates.values))
}
prefetcher.stop()
let underruns = players.plan.playerStates.map(\.state.underruns).reduce(0, +)
print("RealtimeSanitizer (players): \(players.blocksRendered) blocks in realtime sections with \(commands) concurrent player commands, \(underruns) underrun frames; no violations")
totalBlocks += players.blocksRendered; totalEdits += commands
// Fixed-ratio resamplers (every engine, FFTW executions included) inside realtime sections.
let drill = ResamplerDrill()
for _ in 0..<2_000 {
    timbre_rtsan_realtime_enter()
    drill.convertBlock()
    timbre_rtsan_realtime_exit()
}
print("RealtimeSanitizer (resamplers): 2000 calls of every engine (\(drill.framesPerBlock) frames each) in realtime sections; no violations")
print("RealtimeSanitizer: \(totalBlocks) blocks, \(totalEdits) concurrent edits (chain, graph, 8-channel, wide graph, plugin, fir and convolver from files, and player presets); no violations")

/// The MIDI-sending client's process callback, outside the main actor (top-level closures
/// would be isolated to it and trap on JACK's thread).
enum MIDISource {
    static let process: JackProcessCallback = { frames, arg in
        guard let buffer = jack_port_get_buffer(arg!.assumingMemoryBound(to: OpaquePointer.self).pointee, frames) else { return 0 }
        jack_midi_clear_buffer(buffer)
        var messages: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0xB0, 7, 64, 0x90, 60, 100, 0xF0, 0x7E, 0x7F, 0x06, 0xF7)
        withUnsafeBytes(of: &messages) { raw in
            let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            _ = jack_midi_event_write(buffer, 0, bytes, 3)
            _ = jack_midi_event_write(buffer, 1, bytes + 3, 3)
            _ = jack_midi_event_write(buffer, 2, bytes + 6, 5)
        }
        return 0
    }
}
