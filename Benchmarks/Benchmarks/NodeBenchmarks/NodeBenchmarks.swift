// CPU cost per block of every node type, and allocation counts of the render call.
//
// Each benchmark renders one 512-frame stereo block per iteration through a RenderPlan
// holding a single node (or a whole shipped-style chain). Setup (design, allocation) happens
// before measurement. Metrics: wall clock and CPU time per block, malloc count (expected 0).
import Benchmark
import Foundation
import TimbreDSP
import TimbreEngine

let blockFrames = 512
let sampleRate = 48000.0

/// Builds a plan for `chainJSON` and stereo noise buffers.
final class Fixture {
    let plan: RenderPlan
    let inputStorage: [UnsafeMutablePointer<Float>]
    let input: [UnsafePointer<Float>]
    let output: [UnsafeMutablePointer<Float>]

    init(chainJSON: String, channels: Int = 2) {
        let preset = try! PresetDecoder.decode(Data(#"{"version": 1, "name": "bench", "chain": [\#(chainJSON)]}"#.utf8))
        plan = try! RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: channels, maxBlockFrames: blockFrames))
        var seed: UInt64 = 1
        inputStorage = (0..<channels).map { _ in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames)
            for i in 0..<blockFrames {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                p[i] = Float(Int32(truncatingIfNeeded: seed >> 32)) / Float(Int32.max) * 0.25
            }
            return p
        }
        input = inputStorage.map { UnsafePointer($0) }
        output = (0..<plan.outputChannelCount).map { _ in .allocate(capacity: blockFrames) }
        DenormalGuard.enable()
    }

    @inline(never) func renderBlock() {
        plan.render(input: input, output: output, frameCount: blockFrames)
    }
}

let nodes: [(String, String)] = [
    ("gain", #"{"type": "gain", "gain": -3}"#),
    ("pan (stereo balance)", #"{"type": "pan", "pan": 0.3}"#),
    ("peak (1 section)", #"{"type": "peak", "frequency": 1000, "gain": 6, "q": 1}"#),
    ("highpass 12 dB/oct", #"{"type": "highpass", "frequency": 80, "slope": 12}"#),
    ("highpass 48 dB/oct", #"{"type": "highpass", "frequency": 80, "slope": 48}"#),
    ("lowpass 24 dB/oct", #"{"type": "lowpass", "frequency": 8000, "slope": 24}"#),
    ("lowshelf", #"{"type": "lowshelf", "frequency": 120, "gain": 3}"#),
    ("notch", #"{"type": "notch", "frequency": 50, "q": 10}"#),
    ("eq 10 bands", #"{"type": "eq", "bands": [{"gain": 1},{"gain": -2},{"gain": 3},{"gain": -1},{"gain": 2},{"gain": -3},{"gain": 1},{"gain": 2},{"gain": -1},{"gain": 3}]}"#),
    ("meter node (peak, true peak, RMS, clips, ballistics)", #"{"type": "meter"}"#),
    ("loudness node (R 128 + meter values)", #"{"type": "loudness"}"#),
    ("spectrum node (4096 Hann, 50 % overlap)", #"{"type": "spectrum", "fftSize": 4096}"#),
    ("podcast-voice chain", #"{"type": "highpass", "frequency": 80, "slope": 24}, {"type": "eq", "bands": [{"frequency": 200, "gain": -2}, {"frequency": 450, "gain": -2.5, "q": 1.4}, {"frequency": 3000, "gain": 2.5}, {"frequency": 6500, "gain": -1.5, "q": 2}, {"frequency": 12000, "gain": 2, "q": 0.7, "shape": "highshelf"}]}, {"type": "gain", "gain": -1}"#),
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000_000
    )

    for (name, json) in nodes {
        Benchmark("\(name) — 512-frame stereo block") { (benchmark: Benchmark, fixture: Fixture) in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.renderBlock() }
            benchmark.stopMeasurement()
        } setup: {
            let f = Fixture(chainJSON: json)
            f.renderBlock()  // warm-up
            return f
        }
    }

    // Silence after a loud tail must cost the same as audio (FTZ/DAZ on this thread).
    Benchmark("eq 10 bands — silence after loud tail") { (benchmark: Benchmark, fixture: Fixture) in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.renderBlock() }
        benchmark.stopMeasurement()
    } setup: {
        let f = Fixture(chainJSON: nodes[8].1)
        for _ in 0..<50 { f.renderBlock() }
        for p in f.inputStorage { p.update(repeating: 0, count: blockFrames) }
        for _ in 0..<2000 { f.renderBlock() }  // ~21 s of silence: state deep in the tail
        return f
    }
}
