import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreTestSupport

/// A `convolver`'s impulse response swapped 100 times in a running ``LiveEngine`` (the file
/// named in the preset changed, the response read and prepared on the control thread): no
/// click and no lost tail. Through two tones, a click shows as a second difference far above
/// the tones' own; and once each crossfade is over, the output is exactly what the new
/// response alone gives (an offline render of the whole stream through it).
@Suite struct ConvolverSwapTests {
    static let rate = 48_000.0

    @Test func aResponseSwappedAHundredTimesNeitherClicksNorLosesItsTail() throws {
        let taps = 24_000
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-swap-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        for (name, seed) in [("a.wav", 1), ("b.wav", 5)] {
            let writer = try SoundFileWriter(path: d + "/" + name, format: .wav, encoding: .float, sampleRate: 48_000, channelCount: 2, dither: false)
            try writer.write(PlanarBuffer(channels: (0..<2).map { ResponseFileFixture.decaying(taps, seed: UInt64(seed + $0)).map { $0 * 0.05 } }))
            try writer.commit()
        }
        func document(_ file: String) throws -> JSONValue {
            try PresetDecoder.parse(Data(#"{"version": 1, "name": "swap", "chain": [{"type": "convolver", "id": "room", "file": "\#(file)"}]}"#.utf8))
        }
        let interval = 24_000, swaps = 100, lead = 30_000, block = 256  // a swap every 0.5 s: each crossfade (reach 16,320 + 2,048 frames) ends before the next
        let frames = lead + swaps * interval
        let tones = (0..<2).map { c in Signals.sine(frames, hz: 220 + 110 * Double(c), amplitude: 0.3, rate: Self.rate) }
        var host = HostServices.files(in: d)
        host.convolution = .parallel  // faster than real time here: the workers are waited for
        let engine = try LiveEngine(document: try document("a.wav"), sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2,
                                    maxBlockFrames: block, host: host)
        engine.warmUp()
        var output = [[Float]](repeating: [], count: 2)
        let input = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 2)
        let out = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
        let scratch = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { input.deallocate(); out.deallocate(); scratch.forEach { $0.deallocate() } }
        func render(_ count: Int) {
            var done = 0
            while done < count {
                let n = min(block, count - done), at = output[0].count
                tones[0].withUnsafeBufferPointer { l in tones[1].withUnsafeBufferPointer { r in
                    input[0] = l.baseAddress! + at; input[1] = r.baseAddress! + at
                    for c in 0..<2 { out[c] = scratch[c] }
                    engine.renderer.render(input: UnsafePointer(input), output: UnsafePointer(out), frameCount: n)
                } }
                for c in 0..<2 { output[c] += UnsafeBufferPointer(start: scratch[c], count: n) }
                done += n
                if output[0].count % (16 * block) == 0 { engine.performHousekeeping() }
            }
        }
        render(lead)
        for k in 0..<swaps {
            try engine.load(document: try document(k % 2 == 0 ? "b.wav" : "a.wav"))
            render(interval)
        }
        // Offline, each response alone over the whole stream.
        let alone = try ["a.wav", "b.wav"].map { file in
            try PresetRender.render(try PresetDecoder.decode(document(file)), input: tones, block: block, rate: Self.rate,
                                    registry: NodeStateRegistry(services: .files(in: d))).output
        }
        // The tones' own second difference: the larger of the two responses' steady outputs.
        func secondDifference(_ x: ArraySlice<Float>) -> Float {
            var worst: Float = 0
            var i = x.startIndex + 2
            while i < x.endIndex { worst = max(worst, abs(x[i] - 2 * x[i - 1] + x[i - 2])); i += 1 }
            return worst
        }
        let steady = (0..<2).map { c in max(secondDifference(alone[0][c][taps...]), secondDifference(alone[1][c][taps...])) }
        var worstRatio: Float = 0, exactEnds = 0
        for k in 0..<swaps {
            let start = lead + k * interval, end = start + interval
            for c in 0..<2 {
                worstRatio = max(worstRatio, secondDifference(output[c][start..<end]) / steady[c])
                // The last 2,048 frames before the next swap: exactly the new response's output.
                let now = alone[k % 2 == 0 ? 1 : 0][c]
                if output[c][(end - 2_048)..<end].elementsEqual(now[(end - 2_048)..<end]) { exactEnds += 1 }
            }
        }
        print("convolver swapped \(swaps) times: worst second difference \(String(format: "%.3f", worstRatio)) × the larger of the responses' own; \(exactEnds)/\(2 * swaps) interval ends exactly the new response alone")
        #expect(worstRatio < 1.5, "a click: second difference \(worstRatio) × the steady tones'")
        #expect(exactEnds == 2 * swaps)
    }
}
