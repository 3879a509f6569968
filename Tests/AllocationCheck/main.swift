// Allocation count of the render path, in a process of its own (malloc-interposer's counters
// are process-wide, so a test process running other suites in parallel would pollute them).
//
// For a chain with every chain node type and a graph with every graph node, renders 10,000
// blocks of 256 frames each. Between measured stretches of 100 blocks the control thread
// publishes a new plan (parameter, switch, bypass, insert/remove, preset load), so adoption,
// state continuation, crossfade and retirement are all inside the measured windows. Prints
// the counts; exits 1 if any allocation or free happened, 2 if the interposer did not see a
// deliberate allocation (not active).
import Foundation
import MallocInterposerSwift
import TimbrePlugins
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreTestSupport

DenormalGuard.enable()
let block = 256
let input = UnsafeMutablePointer<Float>.allocate(capacity: block)
for i in 0..<block { input[i] = sin(Float(i) * 0.1) * 0.2 }
let ins = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 1)
ins[0] = UnsafePointer(input)
let outs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
outs[0] = .allocate(capacity: block); outs[1] = .allocate(capacity: block)

var failed = false

/// Renders 100 × 100 blocks through `engine`, calling `edit(round)` before each measured window
/// of 100 blocks (outside it), and counts the allocations and frees inside the windows.
@MainActor func measure(_ phase: String, _ engine: LiveEngine, what: String, edit: (Int) throws -> Void) throws {
    engine.warmUp()
    let renderer = engine.renderer
    var mallocs = 0, frees = 0
    for round in 0..<100 {
        try edit(round)
        MallocInterposerSwift.hook()
        let before = MallocInterposerSwift.getStatistics()
        for _ in 0..<100 { renderer.render(input: ins, output: outs, frameCount: block) }
        let after = MallocInterposerSwift.getStatistics()
        MallocInterposerSwift.unhook()
        mallocs += after.mallocCount - before.mallocCount
        frees += after.freeCount - before.freeCount
        engine.performHousekeeping()
    }
    print("Render path (\(phase)): \(100 * 100) measured blocks of \(block) frames with 100 \(what): \(mallocs) allocations, \(frees) frees")
    if mallocs != 0 || frees != 0 { failed = true }
}

for (phase, json) in [("chain", EveryNodePresets.chain), ("graph", EveryNodePresets.graph)] {
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(json.utf8)), sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 2)
    let interpreter = EveryNodePresets.interpreter(engine)
    try measure(phase, engine, what: "plan swaps") { try EveryNodePresets.edit(interpreter, step: $0) }
}
// Plugins: Timbre's render path around real LV2 and LADSPA plugins (the count includes the
// plugins' own run: these four do not allocate either), instances kept across the plan swaps.
do {
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(EveryNodePresets.plugins.utf8)), sampleRate: 48000, inputChannelCount: 1,
                                outputChannelCount: 2, host: HostServices(plugins: PluginHost.loader))
    let interpreter = EveryNodePresets.interpreter(engine)
    try measure("plugins", engine, what: "plan swaps") { try EveryNodePresets.editPlugins(interpreter, step: $0) }
}
// Convolution from files: a REW text FIR and a true-stereo room response resampled from
// 44.1 kHz, with mix, width, predelay (a new response) and gain edited between windows.
do {
    let fixture = try ResponseFileFixture()
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(fixture.preset.utf8)), sampleRate: 48000, inputChannelCount: 1,
                                outputChannelCount: 2, host: fixture.host)
    let interpreter = EveryNodePresets.interpreter(engine)
    try measure("fir and convolver from files", engine, what: "plan swaps") { try ResponseFileFixture.edit(interpreter, step: $0) }
}
// Players: the rings are filled between measured windows (the prefetch thread's job live;
// the counters are process-wide, so the file side must not run while measuring).
let fixture = try PlayerFixture()
let players = try LiveEngine(document: PresetDecoder.parse(Data(fixture.preset.utf8)), sampleRate: 48000, inputChannelCount: 1,
                             outputChannelCount: 2, host: fixture.host)
let playerInterpreter = EveryNodePresets.interpreter(players)
try measure("players", players, what: "player commands") { round in
    try PlayerFixture.edit(playerInterpreter, step: round)
    try PlayerFixture.fill(players)
}
// Fixed-ratio resamplers (the players' and the file pipeline's converters): every engine.
do {
    let drill = ResamplerDrill()
    MallocInterposerSwift.hook()
    let before = MallocInterposerSwift.getStatistics()
    for _ in 0..<2_000 { drill.convertBlock() }
    let after = MallocInterposerSwift.getStatistics()
    MallocInterposerSwift.unhook()
    let mallocs = after.mallocCount - before.mallocCount, frees = after.freeCount - before.freeCount
    print("Resamplers (spectral high, polyphase high, fast; 44.1→48 and 96→48 kHz): 2000 calls of \(drill.framesPerBlock) frames: \(mallocs) allocations, \(frees) frees")
    if mallocs != 0 || frees != 0 { failed = true }
}
// Recording: the audio thread's side of a take (`RecordingTap.capture`) with the ring
// drained between measured windows (the disk thread's job live), and on a ring nobody
// drains (every capture an overrun: the gap path).
do {
    let tap = RecordingTap(channelCount: 2, frames: 48_000), full = RecordingTap(channelCount: 2, frames: 512)
    tap.setEnabled(true); full.setEnabled(true)
    let frames = 256
    let buffers = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
    for b in buffers { b.initialize(repeating: 0.25, count: frames) }
    let channels = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
    channels[0] = buffers[0]; channels[1] = buffers[1]
    var mallocs = 0, frees = 0
    for _ in 0..<100 {
        MallocInterposerSwift.hook()
        let before = MallocInterposerSwift.getStatistics()
        for _ in 0..<100 { tap.capture(channels, frameCount: frames); full.capture(channels, frameCount: frames) }
        let after = MallocInterposerSwift.getStatistics()
        MallocInterposerSwift.unhook()
        mallocs += after.mallocCount - before.mallocCount; frees += after.freeCount - before.freeCount
        tap.consume(tap.framesWaiting)
    }
    print("Recording taps (a drained ring and a full one: \(full.overruns) overrun, \(full.droppedFrames) frames dropped): 2 x 10000 captures of \(frames) frames: \(mallocs) allocations, \(frees) frees")
    if mallocs != 0 || frees != 0 || full.droppedFrames == 0 { failed = true }
    tap.deallocate(); full.deallocate(); buffers.forEach { $0.deallocate() }; channels.deallocate()
}
MallocInterposerSwift.hook()
let before = MallocInterposerSwift.getStatistics()
let probe = UnsafeMutablePointer<Float>.allocate(capacity: 1000)
probe.deallocate()
let after = MallocInterposerSwift.getStatistics()
MallocInterposerSwift.unhook()
let probeSeen = after.mallocCount - before.mallocCount
print("Interposer self-check saw \(probeSeen) allocation")
if probeSeen < 1 { exit(2) }
exit(failed ? 1 : 0)
