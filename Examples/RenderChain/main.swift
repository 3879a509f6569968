// Builds a chain in code (no JSON), renders two seconds of noise through it with the
// library API and writes the result with libsndfile.
//
//   swift run RenderChainExample out.wav
import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

let output = CommandLine.arguments.dropFirst().first ?? "render-chain-example.wav"
let preset = Preset(name: "In code", form: .chain([
    NodeSpec(id: "hpf", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 100, slopeDBPerOctave: 24))),
    NodeSpec(id: "eq", kind: .eq([
        EQBand(frequencyHz: 250, gainDB: -3, q: 1.2),
        EQBand(frequencyHz: 4000, gainDB: 4, q: 0.9),
        EQBand(frequencyHz: 12000, gainDB: 3, q: 0.7, shape: .highShelf),
    ])),
    NodeSpec(id: "pan", kind: .pan(-0.3)),  // mono in, stereo out
]))

let sampleRate = 48000.0, frames = 96000, block = 512
let plan = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: 1, maxBlockFrames: block))
let writer = try SoundFileWriter(path: output, format: .wav, encoding: .pcm24, sampleRate: Int(sampleRate),
                                 channelCount: plan.outputChannelCount, dither: false)
var seed: UInt64 = 1
var input = [Float](repeating: 0, count: block)
var left = [Float](repeating: 0, count: block), right = [Float](repeating: 0, count: block)
var done = 0
while done < frames {
    let n = min(block, frames - done)
    for i in 0..<n {  // white noise at −12 dBFS
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        input[i] = Float(Int32(truncatingIfNeeded: seed >> 32)) / Float(Int32.max) * 0.25
    }
    try input.withUnsafeBufferPointer { inp in
        try left.withUnsafeMutableBufferPointer { l in
            try right.withUnsafeMutableBufferPointer { r in
                var ins = [inp.baseAddress!]
                var outs = [l.baseAddress!, r.baseAddress!]
                plan.render(input: &ins, output: &outs, frameCount: n)
                try writer.write(&outs, frameCount: n)
            }
        }
    }
    done += n
}
try writer.commit()
print("wrote \(frames) frames, \(plan.outputChannelCount) channels → \(output)")
