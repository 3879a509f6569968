// Timbre's resampler beside libsoxr in the same run: each iteration converts one second of
// stereo noise (Float in, Float out), so "× real time" is 1 s divided by the time per
// iteration. Timbre runs in blocks of 1024 output frames through its pull API; soxr streams
// through soxr_process with the same input, single-threaded.
import Benchmark
import CSoxrBench
import Foundation
import TimbreDSP

/// One second of stereo noise at `rate`, planar and interleaved.
final class Material {
    let rate: Int
    let planar: [UnsafeMutablePointer<Float>]
    let interleaved: UnsafeMutablePointer<Float>
    init(rate: Int) {
        self.rate = rate
        var seed: UInt64 = 7
        planar = (0..<2).map { _ in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: rate)
            for i in 0..<rate {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                p[i] = Float(Int32(truncatingIfNeeded: seed >> 32)) / Float(Int32.max) * 0.25
            }
            return p
        }
        interleaved = .allocate(capacity: 2 * rate)
        for i in 0..<rate { interleaved[2 * i] = planar[0][i]; interleaved[2 * i + 1] = planar[1][i] }
        DenormalGuard.enable()
    }
}

let block = 1024
let conversions: [(Int, Int)] = [(44_100, 48_000), (48_000, 44_100), (48_000, 96_000), (96_000, 48_000)]
/// `high` (the block-FFT engine), the same filter through the low-latency polyphase engine, and `fast`.
let resamplerVariants: [(String, ResamplerQuality, Resampler.EngineKind?)] =
    [("high", .high, nil), ("high polyphase", .high, .polyphase), ("fast", .fast, nil)]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, maxDuration: .seconds(2), maxIterations: 10_000)
    registerBlockBenchmarks()

    for (fin, fout) in conversions {
        for (label, quality, engine) in resamplerVariants {
            Benchmark("Timbre \(label) \(fin)→\(fout) stereo, 1 s per iteration") { benchmark, m in
                let r = Resampler(inputRate: fin, outputRate: fout, channelCount: 2, quality: quality, maximumOutputFrames: block, engine: engine)!
                let outs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
                outs[0] = .allocate(capacity: block); outs[1] = .allocate(capacity: block)
                let ins = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 2)
                defer { outs[0].deallocate(); outs[1].deallocate(); outs.deallocate(); ins.deallocate() }
                var read = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    var written = 0
                    while written < fout {
                        let n = Swift.min(block, fout - written)
                        let need = r.inputFramesNeeded(forOutputFrames: n)
                        if read + need > fin { read = 0 }
                        ins[0] = UnsafePointer(m.planar[0] + read); ins[1] = UnsafePointer(m.planar[1] + read)
                        r.process(input: ins, inputFrames: need, output: outs, outputFrames: n)
                        read += need; written += n
                    }
                }
                benchmark.stopMeasurement()
            } setup: { Material(rate: fin) }
        }
        for (label, recipe) in [("HQ", UInt(SOXR_HQ)), ("VHQ", UInt(SOXR_VHQ))] {
            Benchmark("soxr \(label) \(fin)→\(fout) stereo, 1 s per iteration") { benchmark, m in
                var quality = soxr_quality_spec(recipe, 0)
                var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
                var runtime = soxr_runtime_spec(1)
                var error: soxr_error_t?
                let s = soxr_create(Double(fin), Double(fout), 2, &error, &io, &quality, &runtime)
                defer { soxr_delete(s) }
                let out = UnsafeMutablePointer<Float>.allocate(capacity: 2 * (fout + 4096))
                defer { out.deallocate() }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    var produced = 0
                    var offset = 0
                    while offset < fin {
                        let chunk = Swift.min(block, fin - offset)
                        var done = 0, odone = 0
                        _ = soxr_process(s, m.interleaved + 2 * offset, chunk, &done, out + 2 * produced, fout + 4096 - produced, &odone)
                        offset += done; produced += odone
                    }
                }
                benchmark.stopMeasurement()
            } setup: { Material(rate: fin) }
        }
    }
}
