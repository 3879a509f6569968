// RealtimeSanitizer run of the render path (`make rtsan`).
//
// Renders blocks through a chain with every chain node type, then through a graph with every
// graph node (input copies, a sine generator, buses cleared and mixed, groups, pans), on a
// dedicated thread, each render call bracketed by __rtsan_realtime_enter/exit, while the main
// thread edits through the control interpreter: parameters, switches, bypasses, inserts and
// removes, and whole-preset loads. Any allocation, free, lock, syscall or I/O inside the
// bracket makes RealtimeSanitizer abort the process (exit code 43). `--self-test` allocates
// inside the bracket on purpose: it must die with 43, which shows the sanitizer is active.
import CRealtimeSanitizer
import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreTestSupport

let selfTest = CommandLine.arguments.contains("--self-test")
guard timbre_rtsan_available() != 0 else {
    FileHandle.standardError.write(Data("RealtimeSafetyCheck: not linked with RealtimeSanitizer (use `make rtsan`)\n".utf8))
    exit(3)
}

let block = 128, blocksPerPhase = 6_000
let input = UnsafeMutablePointer<Float>.allocate(capacity: block)
for i in 0..<block { input[i] = sin(Float(i) * 0.05) * 0.3 }
let outputs = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
nonisolated(unsafe) let inPtrs = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 1)
inPtrs[0] = UnsafePointer(input)
nonisolated(unsafe) let outPtrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
outPtrs[0] = outputs[0]; outPtrs[1] = outputs[1]

var totalBlocks = 0, totalEdits = 0
for (phase, json) in [("chain", EveryNodePresets.chain), ("graph", EveryNodePresets.graph)] {
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(json.utf8)), sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 2)
    engine.warmUp()
    let interpreter = EveryNodePresets.interpreter(engine)
    let renderer = engine.renderer
    let finished = DispatchSemaphore(value: 0)
    let audio = Thread {
        DenormalGuard.enable()
        for b in 0..<blocksPerPhase {
            timbre_rtsan_realtime_enter()
            renderer.render(input: inPtrs, output: outPtrs, frameCount: block)
            if selfTest && b == 10 { let p = UnsafeMutablePointer<Float>.allocate(capacity: 64); p.deallocate() }
            timbre_rtsan_realtime_exit()
            usleep(40)  // outside the realtime section: pace the render so edits interleave
        }
        finished.signal()
    }
    audio.start()
    var edits = 0
    while finished.wait(timeout: .now() + .microseconds(200)) == .timedOut {
        try EveryNodePresets.edit(interpreter, step: edits)
        engine.collectRetired()
        edits += 1
    }
    engine.collectRetired()
    print("RealtimeSanitizer (\(phase)): \(engine.blocksRendered) blocks in realtime sections with \(edits) concurrent edits; no violations")
    totalBlocks += engine.blocksRendered; totalEdits += edits
}
// Players: two file players streamed by the prefetch thread while the main thread pauses,
// plays, seeks and changes rates, loops, volumes and pans.
do {
    let fixture = try PlayerFixture()
    let engine = try LiveEngine(document: PresetDecoder.parse(Data(fixture.preset.utf8)), sampleRate: 48000, inputChannelCount: 1,
                                outputChannelCount: 2, makePlayer: fixture.makePlayer)
    engine.warmUp()
    let prefetcher = PlayerPrefetcher()
    prefetcher.update(Array(engine.playerStates.values))
    prefetcher.start()
    let interpreter = EveryNodePresets.interpreter(engine)
    let renderer = engine.renderer
    let finished = DispatchSemaphore(value: 0)
    let audio = Thread {
        DenormalGuard.enable()
        for _ in 0..<blocksPerPhase {
            timbre_rtsan_realtime_enter()
            renderer.render(input: inPtrs, output: outPtrs, frameCount: block)
            timbre_rtsan_realtime_exit()
            usleep(200)
        }
        finished.signal()
    }
    audio.start()
    var edits = 0
    while finished.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
        try PlayerFixture.edit(interpreter, step: edits)
        prefetcher.update(Array(engine.playerStates.values))
        engine.collectRetired()
        edits += 1
    }
    prefetcher.stop()
    engine.collectRetired()
    let underruns = engine.plan.playerStates.map(\.state.underruns).reduce(0, +)
    print("RealtimeSanitizer (players): \(engine.blocksRendered) blocks in realtime sections with \(edits) concurrent player commands, \(underruns) underrun frames; no violations")
    totalBlocks += engine.blocksRendered; totalEdits += edits
}
print("RealtimeSanitizer: \(totalBlocks) blocks, \(totalEdits) concurrent edits (chain, graph and player presets); no violations")
