// CPU cost per block of every node type, and allocation counts of the render call: the
// matrix node × block size × channel count that `make benchmark` prints as a table
// (scripts/benchmark-table.py: ns per frame, % of the real-time budget at 48 kHz, allocations).
//
// Each benchmark renders one block per iteration through a RenderPlan holding a single node
// (or a whole chain, or a shipped preset), on noise. Setup (design, allocation, a warm-up
// block) happens before measurement. Names: "<node> | block <frames> | <channels> ch".
// Allocations have an absolute threshold of 0 (the table script also fails on any).
import Benchmark
import Foundation
import TimbreDSP
import TimbreEngine
import TimbrePlugins

let sampleRate = 48000.0
let blockSizes = [32, 64, 128, 256, 512, 1024, 4096]
let channelCounts = [1, 2, 8]

/// A plan for a preset document and noise buffers, one block long.
final class Fixture {
    let plan: RenderPlan
    let blockFrames: Int
    let inputStorage: [UnsafeMutablePointer<Float>]
    let input: [UnsafePointer<Float>]
    let output: [UnsafeMutablePointer<Float>]

    convenience init(chainJSON: String, channels: Int = 2, blockFrames: Int = 512, convolution: ConvolutionThreading? = nil) {
        self.init(presetJSON: #"{"version": 1, "name": "bench", "chain": [\#(chainJSON)]}"#, channels: channels, blockFrames: blockFrames, convolution: convolution)
    }

    init(presetJSON: String, channels: Int, blockFrames: Int, convolution: ConvolutionThreading? = nil) {
        let preset = try! PresetDecoder.decode(Data(presetJSON.utf8))
        self.blockFrames = blockFrames
        let registry = PluginHost.registry()
        registry.services.convolution = convolution
        plan = try! RenderPlan(preset: preset, format: RenderFormat(sampleRate: sampleRate, inputChannelCount: channels, maxBlockFrames: blockFrames),
                               registry: registry)
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
    ("pan (mono→stereo at 1 ch, balance at 2)", #"{"type": "pan", "pan": 0.3}"#),
    ("peak (1 section)", #"{"type": "peak", "frequency": 1000, "gain": 6, "q": 1}"#),
    ("highpass 12 dB/oct", #"{"type": "highpass", "frequency": 80, "slope": 12}"#),
    ("highpass 24 dB/oct", #"{"type": "highpass", "frequency": 80, "slope": 24}"#),
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

let bells = [31, 62, 125, 250, 500, 1000, 2000, 4000, 8000, 16000].enumerated().map { k, f in
    #"{"type": "peak", "frequency": \#(f), "gain": \#(k % 2 == 0 ? 3 : -2), "q": 1}"#
}
/// A `fir` node of `taps` decaying taps (a room-correction filter's shape).
func firNode(taps: Int) -> String {
    let values: [String] = (0..<taps).map { (k: Int) -> String in
        let sign: Double = k % 2 == 0 ? 0.3 : -0.2
        return String(format: "%.6g", sign * exp(-8 * Double(k) / Double(taps)))
    }
    return #"{"type": "fir", "coefficients": ["# + values.joined(separator: ",") + "]}"
}

/// Chain nodes beyond `nodes`: the issue's 11-node chain (fused into one cascade) and the rate node.
let moreNodes: [(String, String)] = [
    ("highpass 12 + 10 peak nodes (fused)", (#"{"type": "highpass", "frequency": 80, "slope": 12}"# + "," + bells.joined(separator: ","))),
    ("highshelf", #"{"type": "highshelf", "frequency": 8000, "gain": 2}"#),
    ("pitch +7 st", #"{"type": "pitch", "semitones": 7}"#),
    ("compressor (peak, 4:1, soft knee)", #"{"type": "compressor", "threshold": -24, "ratio": 4}"#),
    ("compressor (RMS 10 ms, lookahead 2 ms)", #"{"type": "compressor", "threshold": -24, "detector": "rms", "lookahead": 2}"#),
    ("deesser (keyed 4-10 kHz)", #"{"type": "deesser"}"#),
    ("limiter (true peak, 2 ms lookahead)", #"{"type": "limiter", "ceiling": -1}"#),
    ("gate (hysteresis, hold)", #"{"type": "gate", "threshold": -50}"#),
    ("expander (2:1)", #"{"type": "expander", "threshold": -40}"#),
    ("fir 4,096 taps (zero latency)", firNode(taps: 4_096)),
    ("fir 65,536 taps (room correction, zero latency)", firNode(taps: 65_536)),
    ("delay 375 ms, feedback 50 %, cuts (whole frames)", #"{"type": "delay", "time": 375, "feedback": 50, "lowCut": 100, "highCut": 6000}"#),
    ("delay 12.3456 ms (between frames: windowed sinc)", #"{"type": "delay", "time": 12.3456, "feedback": 30}"#),
    ("chorus (3 voices)", #"{"type": "chorus"}"#),
    ("flanger (feedback 50 %)", #"{"type": "flanger"}"#),
    ("tremolo (sine)", #"{"type": "tremolo"}"#),
    ("phaser (4 stages)", #"{"type": "phaser"}"#),
    ("distortion (soft, 8× oversampled)", #"{"type": "distortion", "drive": 24}"#),
    ("bitcrush (8 bits, dither)", #"{"type": "bitcrush", "dither": true}"#),
    ("ladder (24 dB, resonance 0.8)", #"{"type": "ladder", "resonance": 0.8}"#),
    ("reverb (medium hall)", #"{"type": "reverb", "room": "medium-hall"}"#),
    ("denoise (1,024-point STFT, tracked noise)", #"{"type": "denoise"}"#),
    ("dehum (50 Hz, 8 harmonics)", #"{"type": "dehum", "mains": "50"}"#),
    ("deplosive (300 Hz split)", #"{"type": "deplosive"}"#),
    ("crossfeed (700 Hz, 4.5 dB)", #"{"type": "crossfeed"}"#),
    ("loudnessCompensation (80 phon, -30 dB)", #"{"type": "loudnessCompensation", "volume": -30}"#),
    ("crossover (LR4, 3 bands; cost per input channel)", #"{"type": "crossover", "frequencies": [250, 2500], "order": 4}"#),
    ("drivers (fractional delays, trims, limiters)", ""),
    // Real Debian plugins as nodes (the cost includes Timbre's copy in and out of the plugin's
    // buffers, the run call and its timing): a mono plugin runs one instance per channel.
    ("plugin eg-amp (LV2, mono per channel)", #"{"type": "plugin", "uri": "http://lv2plug.in/plugins/eg-amp", "controls": {"gain": -3}}"#),
    ("plugin swh amp (LADSPA, mono per channel)", #"{"type": "plugin", "ladspa": "amp_1181.so:amp", "controls": {"amps_gain_db": -3}}"#),
    ("plugin x42 fil4 EQ (LV2, stereo)", #"{"type": "plugin", "uri": "http://gareus.org/oss/lv2/fil4#stereo", "controls": {"gain1": 6, "gain2": -3, "gain3": 2, "gain4": -2}}"#),
    ("plugin x42 dpl limiter (LV2, stereo)", #"{"type": "plugin", "uri": "http://gareus.org/oss/lv2/dpl#stereo"}"#),
]

/// The shipped presets (Presets/*.json), read from the repository.
func shippedPresets() -> [(String, String)] {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Presets").standardizedFileURL
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".json") && !$0.contains("schema") }.sorted()
    return names.compactMap { name in
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)).map { ("preset \(name)", $0) }
    }
}

let benchmarks: @Sendable () -> Void = {
    let zeroAllocations: [BenchmarkMetric: BenchmarkThresholds] = [.mallocCountTotal: .init(absolute: [.p100: 0])]
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        // 1,000 blocks per timed sample: a 32-frame block costs tens of ns, less than the
        // harness's own per-sample bookkeeping; times are still reported per block.
        scalingFactor: .kilo,
        maxDuration: .milliseconds(150),
        maxIterations: 200_000,
        thresholds: zeroAllocations
    )

    func register(_ name: String, channels: Int, block: Int, _ make: @escaping () -> Fixture?) {
        Benchmark("\(name) | block \(block) | \(channels) ch") { (benchmark: Benchmark, fixture: Fixture?) in
            guard let fixture else { return }
            DenormalGuard.enable()  // on the measuring thread (setup may run on another), as every render thread does
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.renderBlock() }
            benchmark.stopMeasurement()
        } setup: {
            let f = make()
            f?.renderBlock()  // warm-up
            return f
        }
    }

    for (name, json) in nodes + moreNodes {
        for channels in channelCounts {
            // A pan takes mono or stereo (8 channels is a preset error, not a cost).
            if name.hasPrefix("pan") && channels > 2 { continue }
            // A stereo plugin needs channels in pairs.
            if name.contains("stereo)") && channels == 1 { continue }
            // Crossfeed is for a stereo pair only.
            if name.hasPrefix("crossfeed") && channels != 2 { continue }
            // Drivers: one output per channel, every other one with a fractional delay and a limiter.
            let json = !name.hasPrefix("drivers") ? json : #"{"type": "drivers", "outputs": ["# + (0..<channels).map {
                $0 % 2 == 0 ? #"{"limit": -3}"# : #"{"delayMm": 62.5, "gain": -4, "limit": -6}"#
            }.joined(separator: ", ") + "]}"
            for block in blockSizes {
                register(name, channels: channels, block: block) { Fixture(chainJSON: json, channels: channels, blockFrames: block) }
            }
        }
    }
    // Whole shipped presets (graphs mix their channels: this is where mix nodes are measured).
    for (name, json) in shippedPresets() {
        // A graph reading more than two inputs (monitor-mix) gets them.
        let channels = max(2, (try? PresetDecoder.decode(Data(json.utf8)))?.inputChannelsUsed ?? 0)
        for block in blockSizes {
            register(name, channels: channels, block: block) { Fixture(presetJSON: json, channels: channels, blockFrames: block) }
        }
    }

    // Convolution's worst block: one block per timed sample, so p100 is the block in which
    // every FFT level falls due at once (each 8,192 frames) — on the calling thread, as an
    // offline render runs them.
    for (taps, block) in [(65_536, 64), (262_144, 64), (480_000, 64), (480_000, 256)] {
        Benchmark("fir \(taps) taps, one block a sample (p100: all levels due) | block \(block) | 2 ch",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, scalingFactor: .one,
                                       maxDuration: .seconds(3), maxIterations: 40_000, thresholds: zeroAllocations)) { (benchmark: Benchmark, fixture: Fixture) in
            DenormalGuard.enable()
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                fixture.renderBlock()
                benchmark.stopMeasurement()
            }
        } setup: {
            let f = Fixture(chainJSON: firNode(taps: taps), channels: 2, blockFrames: block)
            f.renderBlock()
            return f
        }
    }

    // The same with the levels of 2,048 taps and more on the kernel's worker thread, paced
    // like a live host (one block a period, the worker computing meanwhile): p100 is what a
    // JACK period must hold now; a run late for its deadline would be counted, not waited for.
    for (taps, block) in [(262_144, 64), (480_000, 64), (480_000, 256)] {
        Benchmark("fir \(taps) taps, workers, one block a period (p100) | block \(block) | 2 ch",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, scalingFactor: .one,
                                       maxDuration: .seconds(8), maxIterations: 4_000, thresholds: zeroAllocations)) { (benchmark: Benchmark, fixture: Fixture) in
            DenormalGuard.enable()
            let period = UInt64(block) * 1_000_000_000 / UInt64(sampleRate)
            var next = DispatchTime.now().uptimeNanoseconds
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                fixture.renderBlock()
                benchmark.stopMeasurement()
                next += period
                let now = DispatchTime.now().uptimeNanoseconds
                if next > now { usleep(UInt32((next - now) / 1_000)) } else { next = now }
            }
        } setup: {
            let f = Fixture(chainJSON: firNode(taps: taps), channels: 2, blockFrames: block, convolution: .live)
            f.renderBlock()
            return f
        }
    }

    // A response's state taken over by the next plan's kernel (an edit or a swapped response
    // live: PlanCore.adoptState on the audio thread), 20 s of stereo response at 48 kHz:
    // what that block pays on top of its own work. The memory changes owner, no copy.
    Benchmark("fir 960,000 taps, state taken by the next plan's kernel (continueState) | 2 ch",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, scalingFactor: .one,
                                   maxDuration: .seconds(10), maxIterations: 60, thresholds: zeroAllocations)) { benchmark in
        let taps = 960_000
        var h = [Float](repeating: 0, count: taps)
        for k in 0..<taps { h[k] = (k % 2 == 0 ? 0.3 : -0.2) * Float(exp(-8 * Double(k) / Double(taps))) }
        let filter = ConvolutionFilter(responses: [h], layout: PartitionLayout(length: taps))
        let block = 64
        let x = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { x.forEach { $0.deallocate() } }
        var kernel = PartitionedConvolver(filter: filter, channelCount: 2)
        x.withUnsafeBufferPointer { channels in
            var seed: UInt32 = 1
            for _ in 0..<(48_000 / block) {
                for c in 0..<2 { for i in 0..<block { seed = seed &* 1_664_525 &+ 1_013_904_223; channels[c][i] = Float(seed >> 8) / Float(1 << 24) - 0.5 } }
                kernel.process(channels.baseAddress!, frameCount: block)
            }
        }
        for _ in benchmark.scaledIterations {
            let next = PartitionedConvolver(filter: filter, channelCount: 2)
            benchmark.startMeasurement()
            next.continueState(from: kernel)
            benchmark.stopMeasurement()
            kernel = next
        }
    }

    // A reverb's tail decaying into silence must cost what audio costs (FTZ/DAZ on this
    // thread: no denormal slowdown as the lines fall under the smallest normal float).
    Benchmark("reverb (silence after a loud tail) | block 512 | 2 ch") { (benchmark: Benchmark, fixture: Fixture) in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.renderBlock() }
        benchmark.stopMeasurement()
    } setup: {
        let f = Fixture(chainJSON: #"{"type": "reverb", "decay": 0.5, "mix": 100}"#, channels: 2, blockFrames: 512)
        for _ in 0..<50 { f.renderBlock() }
        for p in f.inputStorage { p.update(repeating: 0, count: f.blockFrames) }
        for _ in 0..<2_000 { f.renderBlock() }  // 21 s: the tail far below the smallest normal float
        return f
    }

    // Silence after a loud tail must cost the same as audio (FTZ/DAZ on this thread).
    Benchmark("eq 10 bands (silence after a loud tail) | block 512 | 2 ch") { (benchmark: Benchmark, fixture: Fixture) in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.renderBlock() }
        benchmark.stopMeasurement()
    } setup: {
        // Looked up by name: an index went stale when a node was added (it measured the notch).
        let f = Fixture(chainJSON: nodes.first { $0.0 == "eq 10 bands" }!.1)
        for _ in 0..<50 { f.renderBlock() }
        for p in f.inputStorage { p.update(repeating: 0, count: f.blockFrames) }
        for _ in 0..<2000 { f.renderBlock() }  // ~21 s of silence: state deep in the tail
        return f
    }
}
