// Per-block cost of every rate-change kernel as a real-time caller runs it: one sample is one
// block (64…4096 frames, stereo), so the time per sample is the cost per block (its
// percentiles show how bursty a kernel is: a stretcher synthesises a frame every hop, not
// every block), and the malloc count must stay 0. The kernel is built and run for 2 s of
// audio in `setup` (once per benchmark), so every measured block is a steady-state block.
// Input is a second of stereo noise, read round-robin.
import Benchmark
import Foundation
import TimbreDSP

let blockSizes = [64, 256, 1024, 4096]

/// A kernel, its input and output buffers, and one block's work (`step`), warmed up.
final class BlockRig {
    let material: Material
    let outs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let ins: UnsafeMutablePointer<UnsafePointer<Float>>
    var read = 0
    var step: () -> Void = {}

    init(rate: Int, outputFrames: Int) {
        material = Material(rate: rate)
        outs = .allocate(capacity: 2); ins = .allocate(capacity: 2)
        outs[0] = .allocate(capacity: outputFrames); outs[1] = .allocate(capacity: outputFrames)
    }
    deinit { outs[0].deallocate(); outs[1].deallocate(); outs.deallocate(); ins.deallocate() }

    /// Points `ins` at the next `need` input frames (wrapping to the start of the material).
    func feed(_ need: Int) {
        if read + need > material.rate { read = 0 }
        ins[0] = UnsafePointer(material.planar[0] + read); ins[1] = UnsafePointer(material.planar[1] + read)
        read += need
    }

    /// Runs `step` over `seconds` of audio of `block` frames.
    func warmUp(block: Int, seconds: Double = 2) -> BlockRig {
        for _ in 0..<Int(seconds * Double(material.rate) / Double(block)) + 1 { step() }
        return self
    }
}

/// A rig for a pull-model converter (owned by `box`, which the step keeps): each block asks
/// how many input frames `block` output frames take, feeds exactly those, and converts.
func pullRig<K: ~Copyable>(rate: Int, block: Int, _ box: KernelBox<K>, need: @escaping (borrowing K, Int) -> Int,
                           process: @escaping (borrowing K, UnsafePointer<UnsafePointer<Float>>, Int, UnsafePointer<UnsafeMutablePointer<Float>>, Int) -> Void) -> BlockRig {
    let rig = BlockRig(rate: rate, outputFrames: block)
    rig.step = { [unowned rig] in
        box.withKernel { k in
            let frames = need(k, block)
            rig.feed(frames)
            process(k, rig.ins, frames, rig.outs, block)
        }
    }
    return rig.warmUp(block: block)
}

func registerBlockBenchmarks() {
    let perBlock = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                           maxDuration: .milliseconds(700), maxIterations: 100_000)
    func measure(_ name: String, _ makeRig: @escaping () -> BlockRig) {
        Benchmark(name, configuration: perBlock) { benchmark, rig in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { rig.step() }
            benchmark.stopMeasurement()
        } setup: { makeRig() }
    }
    for block in blockSizes {
        for (fin, fout) in conversions {
            for (label, quality, engine) in resamplerVariants {
                measure("Resampler \(label) \(fin)→\(fout) block \(block)") {
                    let r = KernelBox(Resampler(inputRate: fin, outputRate: fout, channelCount: 2, quality: quality, maximumOutputFrames: block, engine: engine)!)
                    return pullRig(rate: fin, block: block, r, need: { $0.inputFramesNeeded(forOutputFrames: $1) },
                                   process: { $0.process(input: $1, inputFrames: $2, output: $3, outputFrames: $4) })
                }
            }
        }
        for step in [0.75, 1.5] {
            measure("VariableResampler step \(step) block \(block)") {
                let r = KernelBox(VariableResampler(channelCount: 2, step: step, maximumStep: 4, maximumOutputFrames: block))
                return pullRig(rate: 48_000, block: block, r, need: { $0.inputFramesNeeded(forOutputFrames: $1) },
                               process: { $0.process(input: $1, inputFrames: $2, output: $3, outputFrames: $4) })
            }
        }
        for rate in [0.5, 0.75, 1.5, 2.0] {
            measure("TimeStretcher rate \(rate) block \(block)") {
                let rig = BlockRig(rate: 48_000, outputFrames: 4 * block + 16_384)
                let box = KernelBox(TimeStretcher(sampleRate: 48_000, channelCount: 2, rate: rate, maximumPushFrames: block))
                rig.step = { [unowned rig] in
                    rig.feed(block)
                    box.withKernel { t in
                        t.push(rig.ins, frameCount: block)
                        let ready = t.availableFrames
                        if ready > 0 { t.pull(rig.outs, frameCount: ready) }
                    }
                }
                return rig.warmUp(block: block)
            }
        }
        measure("PitchShifter +7 st block \(block)") {
            let rig = BlockRig(rate: 48_000, outputFrames: block)
            let box = KernelBox(PitchShifter(sampleRate: 48_000, channelCount: 2, semitones: 7, maximumBlockFrames: block))
            rig.step = { [unowned rig] in
                rig.feed(block)
                box.withKernel { $0.process(input: rig.ins, output: rig.outs, frameCount: block) }
            }
            return rig.warmUp(block: block)
        }
    }
}
