// Renders a buffer through a preset built in code, reads its typed loudness reading, then runs
// the same preset in a real-time callback of its own. Writes the rendered samples (32-bit
// floats, planar) to the file given as the first argument.
//
//   swift run EmbeddingExample out.f32
import Foundation
import TimbreEngine
import TimbreFile

// A voice chain, built in code.
let preset = Preset(name: "voice", form: .chain([
    NodeSpec(id: "rumble", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 80, slopeDBPerOctave: 24))),
    NodeSpec(id: "tone", kind: .eq([EQBand(frequencyHz: 250, gainDB: -3, q: 1.2), EQBand(frequencyHz: 5000, gainDB: 4)])),
    NodeSpec(id: "level", kind: .gain(linear: 0.8)),
    NodeSpec(id: "loudness", kind: .analysis(.loudness)),
]))

// Three seconds of a two-tone test signal, stereo.
let sampleRate = 48000.0, frames = 144_000
let left = (0..<frames).map { Float(0.3 * sin(2 * Double.pi * 200 * Double($0) / sampleRate) + 0.1 * sin(2 * Double.pi * 5000 * Double($0) / sampleRate)) }
let right = left.map { 0.5 * $0 }

// 1. Render a buffer.
let plan = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: 2, maxBlockFrames: 512))
let input = PlanarBuffer(channels: [left, right])
let output = PlanarBuffer(channelCount: plan.outputChannelCount, capacity: input.frameCount)
plan.render(input, into: output)
let reading = plan.readings["loudness"]   // typed: reading?.loudness?.integratedLUFS, reading?.channels[0].truePeakDBTP
print(String(format: "integrated %.2f LUFS, true peak (left) %.2f dBTP",
             reading?.loudness?.integratedLUFS ?? -.infinity, reading?.channels.first?.truePeakDBTP ?? -.infinity))

// 2. The same preset in a real-time callback: the engine compiles on this thread, the
//    callback only calls `renderer.render` with the host's pointers (no allocation, no locks).
let engine = try LiveEngine(preset: preset, sampleRate: sampleRate, inputChannelCount: 2, outputChannelCount: 2, maxBlockFrames: 256)
engine.warmUp()
let renderer = engine.renderer
let live = PlanarBuffer(channelCount: 2, capacity: frames)
// The host's port pointers, allocated before the stream starts.
let ins = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 2)
let outs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
defer { ins.deallocate(); outs.deallocate() }
DenormalGuard.enable()  // FTZ/DAZ: once, on the thread that renders
var done = 0
while done < frames {  // what a host's callback does, 256 frames at a time
    let n = min(256, frames - done)
    for c in 0..<2 { ins[c] = UnsafePointer(input[c].baseAddress! + done); outs[c] = live[c].baseAddress! + done }
    renderer.render(input: ins, output: outs, frameCount: n)
    done += n
}
let same = (0..<2).allSatisfy { output.samples(channel: $0) == live.samples(channel: $0) }
print("real-time callback output \(same ? "equals" : "DIFFERS FROM") the buffer render")

// 3. A plan swap while the stream runs: compiled on this thread, crossfaded in at the next
//    block; the control loop frees the plans the audio thread hands back.
try engine.load(showPreset())
for c in 0..<2 { ins[c] = UnsafePointer(input[c].baseAddress!); outs[c] = live[c].baseAddress! }
renderer.render(input: ins, output: outs, frameCount: 256)
engine.performHousekeeping()

// 4. A file through the same preset (TimbreFile).
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-embedding-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let writer = try SoundFileWriter(path: folder + "/in.wav", format: .wav, encoding: .float, sampleRate: 48000, channelCount: 2, dither: false)
try writer.write(input)
try writer.commit()
let summary = try renderFile(folder + "/in.wav", to: folder + "/out.wav", through: preset)
let file = try SoundFileReader(path: folder + "/out.wav").readAll()
let fileSame = file == output.channels
print("file render \(fileSame ? "equals" : "DIFFERS FROM") the buffer render (\(summary.frames) frames)")

if let path = CommandLine.arguments.dropFirst().first {
    var bytes = Data()
    for c in 0..<output.channelCount { output.samples(channel: c).withUnsafeBufferPointer { bytes.append(Data(buffer: $0)) } }
    try bytes.write(to: URL(fileURLWithPath: path))
}
if !same || !fileSame { exit(1) }
