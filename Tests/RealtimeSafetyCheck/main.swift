// RealtimeSanitizer run of the render path (`make rtsan`).
//
// Renders 12,000 blocks through a plan with every node type on a dedicated thread, each
// render call bracketed by __rtsan_realtime_enter/exit, while the main thread changes
// parameters, bypasses, inserts and removes nodes and loads whole presets. Any allocation,
// free, lock, syscall or I/O inside the bracket makes RealtimeSanitizer abort the process
// (exit code 43). `--self-test` allocates inside the bracket on purpose: it must die with 43,
// which shows the sanitizer is linked and active.
import CRealtimeSanitizer
import Foundation
import TimbreDSP
import TimbreEngine

let selfTest = CommandLine.arguments.contains("--self-test")
guard timbre_rtsan_available() != 0 else {
    FileHandle.standardError.write(Data("RealtimeSafetyCheck: not linked with RealtimeSanitizer (use `make rtsan`)\n".utf8))
    exit(3)
}

let chain = """
{"version": 1, "name": "every node", "chain": [
  {"type": "highpass", "id": "hp", "frequency": 30, "slope": 48}, {"type": "lowpass", "id": "lp", "frequency": 16000, "q": 0.8},
  {"type": "peak", "id": "pk", "frequency": 1000, "gain": 3}, {"type": "lowshelf", "id": "ls", "frequency": 100, "gain": 2},
  {"type": "highshelf", "id": "hs", "frequency": 8000, "gain": -2}, {"type": "notch", "id": "n", "frequency": 60},
  {"type": "bandpass", "id": "bp", "frequency": 500, "q": 0.3}, {"type": "allpass", "id": "ap", "frequency": 2000},
  {"type": "eq", "id": "eq"}, {"type": "gain", "id": "g", "volume": 0.8}, {"type": "pan", "id": "pan", "pan": 0.2}
]}
"""
let alternative = #"{"version": 1, "name": "other", "chain": [{"type": "eq", "id": "eq", "bands": [{"gain": 3}]}, {"type": "pan", "id": "pan"}]}"#
let engine = try LiveEngine(document: PresetDecoder.parse(Data(chain.utf8)), sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 2)
engine.warmUp()

let block = 128, blocks = 12_000
let input = UnsafeMutablePointer<Float>.allocate(capacity: block)
for i in 0..<block { input[i] = sin(Float(i) * 0.05) * 0.3 }
let outputs = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
nonisolated(unsafe) let inPtrs = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 1)
inPtrs[0] = UnsafePointer(input)
nonisolated(unsafe) let outPtrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
outPtrs[0] = outputs[0]; outPtrs[1] = outputs[1]
let renderer = engine.renderer
let finished = DispatchSemaphore(value: 0)

let audio = Thread {
    DenormalGuard.enable()
    for b in 0..<blocks {
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
    switch edits % 6 {
    case 0: try engine.set("eq.bands[\(edits % 10)].gain", Double(edits % 9) - 4)
    case 1: try engine.set("g.volume", Double(edits % 10) / 10)
    case 2: try engine.bypass("pk", edits % 4 == 2)
    case 3: try engine.insert(.object(["type": .string("gain"), "id": .string("extra"), "gain": .number(-1)]), at: 0)
    case 4: if engine.preset.chain.contains(where: { $0.id == "extra" }) { try engine.remove("extra") }
    default: try engine.set("pan.pan", Double(edits % 5) / 5 - 0.4)
    }
    if edits % 50 == 49 {
        try engine.load(document: PresetDecoder.parse(Data(alternative.utf8)))
        try engine.load(document: PresetDecoder.parse(Data(chain.utf8)))
    }
    engine.collectRetired()
    edits += 1
}
engine.collectRetired()
print("RealtimeSanitizer: \(engine.blocksRendered) blocks rendered in realtime sections with \(edits) concurrent edits (plan swaps); no violations")
