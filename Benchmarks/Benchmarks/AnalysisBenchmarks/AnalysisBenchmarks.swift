// The analysis kernels beside the libraries people use for the same job, in one run:
// per 512-frame stereo block at 48 kHz, zero allocations expected from Timbre's.
//
//   level meter (peak, Σx², clips)            target ≤ 1 ns per stereo frame
//   loudness + true peak  vs  libebur128 (I, LRA, M, S, true peak)   target ≥ 2× its speed
//   spectrum analyser (4096, Hann, 50 %)  vs  bare FFTW r2c of the same frames   target ≤ 1.5×
import Benchmark
import CEbur128Bench
import CFFTWBench
import Foundation
import TimbreDSP

let blockFrames = 512
let sampleRate = 48000.0

final class Signal {
    let storage: [UnsafeMutablePointer<Float>]
    let interleaved: UnsafeMutablePointer<Float>
    init() {
        var seed: UInt64 = 7
        storage = (0..<2).map { _ in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames)
            for i in 0..<blockFrames {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                p[i] = Float(Int32(truncatingIfNeeded: seed >> 32)) / Float(Int32.max) * 0.25
            }
            return p
        }
        interleaved = .allocate(capacity: 2 * blockFrames)
        for i in 0..<blockFrames { interleaved[2 * i] = storage[0][i]; interleaved[2 * i + 1] = storage[1][i] }
        DenormalGuard.enable()
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 1_000_000)

    Benchmark("level meter (peak, RMS, clips) — 512-frame stereo block") { benchmark, s in
        let m = LevelMeter(sampleRate: sampleRate, channelCount: 2)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { s.storage.withUnsafeBufferPointer { m.process($0.baseAddress!, frameCount: blockFrames) } }
        benchmark.stopMeasurement()
    } setup: { Signal() }

    Benchmark("true peak (4×) — 512-frame stereo block") { benchmark, s in
        let m = TruePeakMeter(sampleRate: sampleRate, channelCount: 2)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { s.storage.withUnsafeBufferPointer { m.process($0.baseAddress!, frameCount: blockFrames) } }
        benchmark.stopMeasurement()
    } setup: { Signal() }

    Benchmark("Timbre loudness + true peak — 512-frame stereo block") { benchmark, s in
        let l = LoudnessMeter(sampleRate: sampleRate, channelCount: 2), t = TruePeakMeter(sampleRate: sampleRate, channelCount: 2)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            s.storage.withUnsafeBufferPointer { l.process($0.baseAddress!, frameCount: blockFrames); t.process($0.baseAddress!, frameCount: blockFrames) }
        }
        benchmark.stopMeasurement()
    } setup: { Signal() }

    Benchmark("libebur128 I+LRA+M+S+true peak — 512-frame stereo block") { benchmark, s in
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_M.rawValue | EBUR128_MODE_S.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        var st = ebur128_init(2, UInt(sampleRate), mode)
        defer { ebur128_destroy(&st) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { ebur128_add_frames_float(st, s.interleaved, blockFrames) }
        benchmark.stopMeasurement()
    } setup: { Signal() }

    Benchmark("Timbre spectrum 4096 Hann 50% — 512-frame stereo block") { benchmark, s in
        let a = SpectrumAnalyzer(size: 4096, sampleRate: sampleRate, channelCount: 2, window: .hann, overlap: 0.5, averagingSeconds: 0.5)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { s.storage.withUnsafeBufferPointer { a.process($0.baseAddress!, frameCount: blockFrames) } }
        benchmark.stopMeasurement()
    } setup: { Signal() }

    // The same transforms bare: per 512-frame block, a quarter of a 4096-point frame per
    // channel (one frame every 2048 samples), windowed and transformed, power taken.
    Benchmark("bare FFTW 4096 r2c, same frame rate — 512-frame stereo block") { benchmark, s in
        let n = 4096
        let input = fftwf_alloc_real(n)!, output = fftwf_alloc_complex(n / 2 + 1)!
        let plan = fftwf_plan_dft_r2c_1d(Int32(n), input, output, UInt32(FFTW_ESTIMATE))!
        defer { fftwf_destroy_plan(plan); fftwf_free(input); fftwf_free(output) }
        let power = UnsafeMutablePointer<Float>.allocate(capacity: n / 2 + 1)
        defer { power.deallocate() }
        var counter = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            counter += blockFrames
            if counter >= 2048 {
                counter -= 2048
                for _ in 0..<2 {
                    for i in 0..<n { input[i] = s.storage[0][i & (blockFrames - 1)] }
                    fftwf_execute(plan)
                    for k in 0...(n / 2) { power[k] = output[k].0 * output[k].0 + output[k].1 * output[k].1 }
                }
            }
        }
        benchmark.stopMeasurement()
        blackHole(power[1])
    } setup: { Signal() }
}
