// The rate-change kernels on their own, from `import TimbreDSP` only: a 440 Hz stereo tone at
// 44.1 kHz is converted to 48 kHz (streaming, pull model, as a real-time caller would), then
// time-stretched to 0.8× speed and pitch-shifted by +7 semitones block by block. Each result's
// length and frequency are printed.
//
//   swift run -c release ChangeRateExample
import Foundation
import TimbreDSP

/// The frequency of a steady tone: rising zero crossings over the middle of the signal,
/// interpolated to a fraction of a frame.
func frequency(_ x: [Float], sampleRate: Double) -> Double {
    var crossings: [Double] = []
    for i in (x.count / 4)..<(3 * x.count / 4) where x[i - 1] < 0 && x[i] >= 0 {
        crossings.append(Double(i - 1) + Double(-x[i - 1] / (x[i] - x[i - 1])))
    }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) / ((last - first) / sampleRate)
}

func report(_ what: String, _ x: [Float], _ sampleRate: Double) {
    print(what.padding(toLength: 40, withPad: " ", startingAt: 0)
          + String(format: "%7d frames at %6.0f Hz  %8.3f Hz  %5.3f s", x.count, sampleRate, frequency(x, sampleRate: sampleRate), Double(x.count) / sampleRate))
}

let tone = (0..<44_100).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 44_100)) }
report("input", tone, 44_100)

// 1. 44.1 → 48 kHz, streaming: ask how many input frames the next 512 output frames need,
//    hand exactly those over. `process` allocates nothing (safe on an audio thread). The
//    high quality computes in FFT blocks, so a call asks for a whole block's input or none.
guard let resampler = Resampler(inputRate: 44_100, outputRate: 48_000, channelCount: 2, quality: .high, maximumOutputFrames: 512) else {
    fatalError("unsupported ratio")
}
let total = Int(resampler.outputFrames(forInputFrames: Int64(tone.count)))
let inputs = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: resampler.maximumInputFrames) }  // the most one call asks for
let outputs = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 512) }
var converted = [Float](), read = 0
while converted.count < total {
    let n = min(512, total - converted.count)
    let need = resampler.inputFramesNeeded(forOutputFrames: n)
    for c in 0..<2 { for i in 0..<need { inputs[c][i] = read + i < tone.count ? tone[read + i] : 0 } }  // zeros past the end
    read += need
    inputs.map { UnsafePointer($0) }.withUnsafeBufferPointer { ins in
        outputs.withUnsafeBufferPointer { outs in
            resampler.process(input: ins.baseAddress!, inputFrames: need, output: outs.baseAddress!, outputFrames: n)
        }
    }
    converted += UnsafeBufferPointer(start: outputs[0], count: n)
}
inputs.forEach { $0.deallocate() }; outputs.forEach { $0.deallocate() }
report("44.1 → 48 kHz (Resampler, high)", converted, 48_000)
print(String(format: "  latency handled inside: the output is aligned with the input (%d input frames of lookahead)", resampler.latencyInputFrames))

// 2. Pitch-preserving 0.8× speed: the whole-signal convenience (streaming underneath).
let slower = TimeStretcher.stretch([converted, converted], sampleRate: 48_000, rate: 0.8)
report("0.8× speed, pitch kept (TimeStretcher)", slower[0], 48_000)

// 3. +7 semitones at unchanged speed, block by block as a live effect; the first
//    `latencyFrames` output frames are the shifter's fixed delay.
let shifter = PitchShifter(sampleRate: 48_000, channelCount: 1, semitones: 7, maximumBlockFrames: 256)
var shifted = [Float](repeating: 0, count: converted.count)
converted.withUnsafeBufferPointer { x in
    shifted.withUnsafeMutableBufferPointer { y in
        var start = 0
        while start < x.count {
            let n = min(256, x.count - start)
            var input = x.baseAddress! + start
            var output = y.baseAddress! + start
            withUnsafePointer(to: &input) { i in withUnsafePointer(to: &output) { o in shifter.process(input: i, output: o, frameCount: n) } }
            start += n
        }
    }
}
report("+7 semitones (PitchShifter)", Array(shifted[shifter.latencyFrames...]), 48_000)
print(String(format: "  expected %.3f Hz; latency %d frames (%.1f ms), underruns %d",
             440 * pow(2, 7.0 / 12), shifter.latencyFrames, Double(shifter.latencyFrames) / 48, shifter.underruns))

// 4. The contract every kernel keeps (TimbreDSP's KernelContract article): prepared for a
//    format, processed in place, ended by its one owner (non-copyable: `deinit` frees it).
//    A compressor on the converted tone, and a loudness meter held in a box.
let format = KernelFormat(sampleRate: 48_000, channelCount: 2, maximumBlockFrames: 512)
let settings = Compressor.Settings(curve: CompressorCurve(thresholdDB: -20, ratio: 4, kneeDB: 6))
let compressor = Compressor(settings, format: format)!
let meter = KernelBox(LoudnessMeter(sampleRate: 48_000, channelCount: 2))
let stereo = PlanarBuffer(channels: [converted, converted])
for start in stride(from: 0, to: converted.count - 511, by: 512) {
    stereo.withChannelPointers(from: start) { pointers in
        compressor.process(pointers, frameCount: 512)
        meter.withKernel { $0.process(pointers, frameCount: 512) }
    }
}
let integrated = meter.withKernel { $0.integratedLUFS }
print(String(format: "compressed (4:1 above -20 dBFS)            %.2f LUFS integrated", integrated))
