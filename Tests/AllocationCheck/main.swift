// Allocation count of the render path, in a process of its own (malloc-interposer's counters
// are process-wide, so a test process running other suites in parallel would pollute them).
//
// Renders 10,000 blocks of 256 frames through a live engine holding every node type. Between
// measured stretches of 100 blocks the control thread publishes a new plan (parameter
// change, bypass, insert/remove), so adoption, state continuation, crossfade and retirement
// are all inside the measured windows. Prints the counts; exits 1 if any allocation or free
// happened, 2 if the interposer did not see a deliberate allocation (not active).
import Foundation
import MallocInterposerSwift
import TimbreDSP
import TimbreEngine

let every = """
{"version": 1, "name": "every node", "chain": [
  {"type": "highpass", "id": "hp", "frequency": 30, "slope": 48}, {"type": "lowpass", "id": "lp", "frequency": 16000, "q": 0.8},
  {"type": "peak", "id": "pk", "frequency": 1000, "gain": 3}, {"type": "lowshelf", "id": "ls", "frequency": 100, "gain": 2},
  {"type": "highshelf", "id": "hs", "frequency": 8000, "gain": -2}, {"type": "notch", "id": "n", "frequency": 60},
  {"type": "bandpass", "id": "bp", "frequency": 500, "q": 0.3}, {"type": "allpass", "id": "ap", "frequency": 2000},
  {"type": "eq", "id": "eq", "bands": [{"gain": 2}, {"gain": -2}]}, {"type": "gain", "id": "g", "volume": 0.8}, {"type": "pan", "id": "pan", "pan": 0.2}
]}
"""
let engine = try LiveEngine(document: PresetDecoder.parse(Data(every.utf8)), sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 2)
engine.warmUp()
DenormalGuard.enable()
let block = 256
let input = UnsafeMutablePointer<Float>.allocate(capacity: block)
for i in 0..<block { input[i] = sin(Float(i) * 0.1) * 0.2 }
let ins = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 1)
ins[0] = UnsafePointer(input)
let outs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
outs[0] = .allocate(capacity: block); outs[1] = .allocate(capacity: block)
let renderer = engine.renderer
renderer.render(input: ins, output: outs, frameCount: block)

var mallocs = 0, frees = 0
for round in 0..<100 {
    switch round % 4 {
    case 0: try engine.set("g.volume", Double(round % 10) / 10)
    case 1: try engine.bypass("pk", round % 8 == 1)
    case 2: try engine.insert(.object(["type": .string("peak"), "id": .string("x"), "frequency": .number(300), "gain": .number(2)]), at: 3)
    default: try engine.remove("x")
    }
    MallocInterposerSwift.hook()
    let before = MallocInterposerSwift.getStatistics()
    for _ in 0..<100 { renderer.render(input: ins, output: outs, frameCount: block) }
    let after = MallocInterposerSwift.getStatistics()
    MallocInterposerSwift.unhook()
    mallocs += after.mallocCount - before.mallocCount
    frees += after.freeCount - before.freeCount
    engine.collectRetired()
}
MallocInterposerSwift.hook()
let before = MallocInterposerSwift.getStatistics()
let probe = UnsafeMutablePointer<Float>.allocate(capacity: 1000)
probe.deallocate()
let after = MallocInterposerSwift.getStatistics()
MallocInterposerSwift.unhook()
let probeSeen = after.mallocCount - before.mallocCount
print("Render path: \(engine.blocksRendered - 1) blocks of \(block) frames with 100 plan swaps: \(mallocs) allocations, \(frees) frees (interposer self-check saw \(probeSeen) allocation)")
if probeSeen < 1 { exit(2) }
exit(mallocs == 0 && frees == 0 ? 0 : 1)
