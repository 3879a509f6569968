// A live edit's cost, on both threads, for a 10-band EQ (issue #10: control thread ≤ 1 ms):
//
// - "control thread": `set eq.bands[k].gain` through the real interpreter, as `timbre live`
//   applies a stdin or OSC command — edit the JSON document, decode it strictly, design the
//   changed band, publish its walk to the running cascade (CoefficientMotion; no plan is
//   compiled). "by plan swap" is the same edit compiled into a new plan, as before. Each
//   iteration sets a new gain (a design-cache miss, the worst case); the plan it replaces was
//   never rendered and is freed inside the same call.
// - "crossfade": the same edit followed by the two 512-frame blocks the 15 ms crossfade spans
//   (both plans rendered and mixed), against the same two blocks without an edit.
import Benchmark
import Foundation
import TimbreControl
import TimbreDSP
import TimbreEngine

let eqBands = [31, 62, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
    .map { #"{"frequency": \#($0), "gain": 1, "q": 1}"# }.joined(separator: ",")
let eqPreset = #"{"version": 1, "name": "eq", "chain": [{"type": "eq", "id": "eq", "bands": ["# + eqBands + "]}]}"

/// A live engine on the EQ preset with its interpreter and stereo buffers.
final class LiveFixture {
    let engine: LiveEngine
    let interpreter: ControlInterpreter
    let input: UnsafeMutablePointer<UnsafePointer<Float>>
    let output: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    var step = 0

    init() {
        engine = try! LiveEngine(document: PresetDecoder.parse(Data(eqPreset.utf8)), sampleRate: 48000, inputChannelCount: 2, outputChannelCount: 2,
                                 maxBlockFrames: 512)
        interpreter = ControlInterpreter(engine: engine, loadDocument: { text in (try PresetDecoder.parse(Data(text.utf8)), "inline") })
        input = .allocate(capacity: 2); output = .allocate(capacity: 2)
        for c in 0..<2 {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: 512)
            for i in 0..<512 { p[i] = sin(Float(i) * 0.05 + Float(c)) * 0.25 }
            input[c] = UnsafePointer(p)
            output[c] = .allocate(capacity: 512)
        }
        engine.warmUp()
        DenormalGuard.enable()
        render(); render()
    }

    /// A new gain for band `step % 10` (never the same value twice in a row: a design-cache miss).
    func edit() {
        step += 1
        _ = try! interpreter.perform(.set(address: "eq.bands[\(step % 10)].gain", value: Double(step % 997) / 100 - 5))
    }

    /// The same edit as a whole new plan (what every `set` did before parameters moved in kernel).
    func editBySwap() {
        step += 1
        let bands = [31, 62, 125, 250, 500, 1000, 2000, 4000, 8000, 16000].enumerated()
            .map { k, f in #"{"frequency": \#(f), "gain": \#(k == step % 10 ? Double(step % 997) / 100 - 5 : 1), "q": 1}"# }.joined(separator: ",")
        try! engine.load(document: PresetDecoder.parse(Data((#"{"version": 1, "name": "eq", "chain": [{"type": "eq", "id": "eq", "bands": ["# + bands + "]}]}").utf8)))
    }

    /// A sweep of band 3's frequency, 3,000 steps from 100 Hz to 10 kHz and back (a MIDI knob):
    /// each a design-cache miss.
    func sweepStep() {
        step += 1
        let k = step % 6000, t = Double(k < 3000 ? k : 6000 - k) / 3000
        _ = try! interpreter.perform(.set(address: "eq.bands[3].frequency", value: 100 * pow(100, t)))
    }

    func render() { engine.renderer.render(input: input, output: output, frameCount: 512) }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                           maxDuration: .seconds(2), maxIterations: 5_000)
    Benchmark("live edit of a 10-band EQ: control thread (edit, decode, design, compile, publish)") { benchmark, f in
        for _ in benchmark.scaledIterations { f.edit(); _ = f.engine.performHousekeeping() }
    } setup: { LiveFixture() }
    Benchmark("live edit of a 10-band EQ by plan swap (edit, decode, design, compile, publish): the path before in-kernel motion") { benchmark, f in
        for _ in benchmark.scaledIterations { f.editBySwap(); _ = f.engine.performHousekeeping() }
    } setup: { LiveFixture() }
    Benchmark("3,000-step frequency sweep of one band, control thread per step, with a 512-frame block rendered between") { benchmark, f in
        for _ in benchmark.scaledIterations { f.sweepStep(); f.render(); _ = f.engine.performHousekeeping() }
    } setup: { LiveFixture() }
    Benchmark("live edit of a 10-band EQ + the 2 blocks of 512 its crossfade spans") { benchmark, f in
        for _ in benchmark.scaledIterations { f.edit(); f.render(); f.render(); _ = f.engine.performHousekeeping() }
    } setup: { LiveFixture() }
    Benchmark("2 blocks of 512 through the 10-band EQ, no edit") { benchmark, f in
        for _ in benchmark.scaledIterations { f.render(); f.render() }
    } setup: { LiveFixture() }
}
