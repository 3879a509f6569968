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
/// A profile's thresholds are read and written with it, and a bad one is named by its path.
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

    @Test func profileThresholdsReadAndChecked() throws {
        func decode(_ profile: String) throws -> Preset {
            try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "denoise", "adaptive": false, "profile": \#(profile)}]}"#.utf8))
        }
        let preset = try decode(#"{"frequencies": [0, 1000, 24000], "levels": [-60, -70, -90], "thresholds": [5.85, 8, 6.5]}"#)
        guard case .inline(let profile)? = try #require(preset.allNodes.first?.kind.settings(as: DenoiseSettings.self)).profile else {
            Issue.record("no inline profile"); return
        }
        #expect(profile.thresholdsDB == [5.85, 8, 6.5])
        #expect(abs(profile.thresholdDB(atHz: 500) - 6.925) < 1e-12)
        #expect(try NoiseProfile(json: profile.json, path: "") == profile)
        // Written before thresholds were learned: Gaussian noise's.
        let old = try decode(#"{"frequencies": [0, 24000], "levels": [-60, -90]}"#)
        guard case .inline(let plain)? = try #require(old.allNodes.first?.kind.settings(as: DenoiseSettings.self)).profile else { return }
        #expect(plain.thresholdsDB == nil && plain.thresholdDB(atHz: 100) == NoiseProfile.gaussianThresholdDB)
        for (bad, path, words) in [(#"{"frequencies": [0, 24000], "levels": [-60, -90], "thresholds": [6]}"#, "chain[0].profile.thresholds", "one threshold per frequency"),
                                   (#"{"frequencies": [0, 24000], "levels": [-60, -90], "thresholds": [6, 41]}"#, "chain[0].profile.thresholds[1]", "41")] {
            do {
                _ = try decode(bad)
                Issue.record("\(bad) decoded")
            } catch let error as PresetError {
                #expect(error.path == path && error.message.contains(words), "\(error.path): \(error.message)")
            }
        }
    }
}
