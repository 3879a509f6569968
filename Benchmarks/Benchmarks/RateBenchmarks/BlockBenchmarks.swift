// Per-block cost of every rate-change kernel as a real-time caller runs it: one iteration is
// one block (64…4096 frames, stereo), so the time per iteration is the cost per block and the
// malloc count must stay 0. Input is a second of stereo noise, read round-robin.
import Benchmark
import Foundation
import TimbreDSP

let blockSizes = [64, 256, 1024, 4096]

/// Output-side buffers for one benchmark.
final class Scratch {
    let outs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let ins: UnsafeMutablePointer<UnsafePointer<Float>>
    init(frames: Int) {
        outs = .allocate(capacity: 2); ins = .allocate(capacity: 2)
        outs[0] = .allocate(capacity: frames); outs[1] = .allocate(capacity: frames)
    }
    deinit { outs[0].deallocate(); outs[1].deallocate(); outs.deallocate(); ins.deallocate() }
    /// Points `ins` at `m`'s frames from `read`, wrapping to 0 when `need` would run past the end.
    func feed(_ m: Material, read: inout Int, need: Int) {
        if read + need > m.rate { read = 0 }
        ins[0] = UnsafePointer(m.planar[0] + read); ins[1] = UnsafePointer(m.planar[1] + read)
        read += need
    }
}

func registerBlockBenchmarks() {
    let perBlock = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                           maxDuration: .milliseconds(700), maxIterations: 100_000)
    for block in blockSizes {
        for (fin, fout) in conversions {
            for quality in ResamplerQuality.allCases {
                Benchmark("Resampler \(quality.rawValue) \(fin)→\(fout) block \(block)", configuration: perBlock) { benchmark, m in
                    let r = Resampler(inputRate: fin, outputRate: fout, channelCount: 2, quality: quality, maximumOutputFrames: block)!
                    defer { r.deallocate() }
                    let s = Scratch(frames: block)
                    var read = 0
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        let need = r.inputFramesNeeded(forOutputFrames: block)
                        s.feed(m, read: &read, need: need)
                        r.process(input: s.ins, inputFrames: need, output: s.outs, outputFrames: block)
                    }
                    benchmark.stopMeasurement()
                } setup: { Material(rate: fin) }
            }
        }
        for step in [0.75, 1.5] {
            Benchmark("VariableResampler step \(step) block \(block)", configuration: perBlock) { benchmark, m in
                let r = VariableResampler(channelCount: 2, step: step, maximumStep: 4, maximumOutputFrames: block)
                defer { r.deallocate() }
                let s = Scratch(frames: block)
                var read = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    let need = r.inputFramesNeeded(forOutputFrames: block)
                    s.feed(m, read: &read, need: need)
                    r.process(input: s.ins, inputFrames: need, output: s.outs, outputFrames: block)
                }
                benchmark.stopMeasurement()
            } setup: { Material(rate: 48_000) }
        }
        for rate in [0.5, 0.75, 1.5, 2.0] {
            Benchmark("TimeStretcher rate \(rate) block \(block)", configuration: perBlock) { benchmark, m in
                let t = TimeStretcher(sampleRate: 48_000, channelCount: 2, rate: rate, maximumPushFrames: block)
                defer { t.deallocate() }
                let s = Scratch(frames: 4 * block + 16_384)
                var read = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    s.feed(m, read: &read, need: block)
                    t.push(s.ins, frameCount: block)
                    let ready = t.availableFrames
                    if ready > 0 { t.pull(s.outs, frameCount: ready) }
                }
                benchmark.stopMeasurement()
            } setup: { Material(rate: 48_000) }
        }
        Benchmark("PitchShifter +7 st block \(block)", configuration: perBlock) { benchmark, m in
            let p = PitchShifter(sampleRate: 48_000, channelCount: 2, semitones: 7, maximumBlockFrames: block)
            defer { p.deallocate() }
            let s = Scratch(frames: block)
            var read = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                s.feed(m, read: &read, need: block)
                p.process(input: s.ins, output: s.outs, frameCount: block)
            }
            benchmark.stopMeasurement()
        } setup: { Material(rate: 48_000) }
    }
}
