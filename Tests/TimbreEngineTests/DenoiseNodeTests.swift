import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `denoise` node in a plan: the latency it reports is where its input lands. With nothing
/// taken away (`reduction` 0) the output is the input delayed by exactly the plan's
/// `latencyFrames` (a window and four hops of look-ahead: 2,048 frames at 44.1 and 48 kHz,
/// 4,096 at 96 kHz), which the offline renderer and JACK's latency callback use to align it.
@Suite struct DenoiseNodeTests {
    @Test(arguments: [44_100.0, 48_000, 96_000])
    func reportedLatencyIsWhereTheInputLands(rate: Double) throws {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "denoise", "reduction": 0}]}"#.utf8))
        let latency = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: rate, inputChannelCount: 1, maxBlockFrames: 256)).latencyFrames
        #expect(latency == SpectralDenoiser.latencyFrames(sampleRate: rate))
        #expect(latency == (rate > 50_000 ? 4096 : 2048))
        let x = Signals.noise(Int(rate / 2), amplitude: 0.3, seed: 21)
        let y = try PresetRender.render(preset, input: [x], block: 256, rate: rate).output[0]
        var worst: Float = 0
        for i in latency..<y.count { worst = max(worst, abs(y[i] - x[i - latency])) }
        print("denoise node at \(Int(rate)) Hz: latency \(latency) frames; worst difference from the input delayed by it \(worst)")
        #expect(worst < 1e-6)
    }
}
