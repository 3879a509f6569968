import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// `meter` and `loudness` nodes in the live engine: values equal the meters run directly on
/// the same audio, and measurements continue across edits and preset loads.
@Suite(.serialized) struct AnalysisNodeTests {
    static let rate = 48000.0

    static func document(_ chain: String) -> JSONValue {
        try! PresetDecoder.parse(Data(#"{"version": 1, "name": "meters", "chain": [\#(chain)]}"#.utf8))
    }

    static func value(_ meters: JSONValue, _ node: String, _ key: String) -> Double? {
        guard case .object(let nodes) = meters, case .object(let o)? = nodes[node], case .number(let v)? = o[key] else { return nil }
        return v
    }

    /// 20 s of a −23 dBFS stereo sine (Tech 3341 case 1) through a live engine, with a gain
    /// edit and a whole-preset load (keeping the node's id) halfway: the node reads 20 s,
    /// −23.0 LUFS integrated, as one continuous measurement.
    @Test func loudnessNodeContinuesAcrossEdits() throws {
        let chain = #"{"type": "gain", "id": "g", "gain": 0}, {"type": "loudness", "id": "out"}"#
        let engine = try LiveEngine(document: Self.document(chain), sampleRate: Self.rate, inputChannelCount: 2, outputChannelCount: 2)
        let block = 256
        let x = Signals.sine(Int(20 * Self.rate), hz: 1000, amplitude: pow(10, -23.0 / 20))
        let input = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        let output = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { (input + output).forEach { $0.deallocate() } }
        let ins = input.map { UnsafePointer($0) }
        var start = 0
        while start < x.count {
            let n = min(block, x.count - start)
            for c in 0..<2 { for i in 0..<n { input[c][i] = x[start + i] } }
            ins.withUnsafeBufferPointer { i in output.withUnsafeBufferPointer { o in engine.renderer.render(input: i.baseAddress!, output: o.baseAddress!, frameCount: n) } }
            start += n
            if start == 10 * Int(Self.rate) / block * block {
                try engine.apply(.set(address: "g.gain", value: 0))
                try engine.load(document: Self.document(#"{"type": "peak", "id": "p", "frequency": 20000, "gain": 0}, "# + chain))
                engine.performHousekeeping()
            }
        }
        let m = engine.meters
        let seconds = Self.value(m, "out", "seconds") ?? 0, integrated = Self.value(m, "out", "integratedLUFS") ?? 0
        print(String(format: "loudness node after an edit and a load: %.2f s measured, I %.3f LUFS, M %.3f", seconds, integrated, Self.value(m, "out", "momentaryLUFS") ?? 0))
        #expect(abs(seconds - 20) < 0.01, "one continuous measurement")
        #expect(abs(integrated + 23) <= 0.1)
        #expect(abs((Self.value(m, "out", "momentaryLUFS") ?? 0) + 23) <= 0.1)
    }

    /// A spectrum node finds a 997 Hz sine within 0.5 Hz and puts it in the 1 kHz third-octave band.
    @Test func spectrumNodeFindsTheTone() throws {
        let plan = try RenderPlan(preset: PresetDecoder.decode(Self.document(#"{"type": "spectrum", "id": "s", "fftSize": 8192, "averaging": 1}"#)),
                                  format: RenderFormat(sampleRate: Self.rate, inputChannelCount: 1, maxBlockFrames: 256))
        var x = Signals.sine(2 * 48000, hz: 997, amplitude: 0.5)
        var y = [Float](repeating: 0, count: x.count)
        var start = 0
        while start < x.count {  // 256-frame blocks, as a host would
            x.withUnsafeMutableBufferPointer { xi in y.withUnsafeMutableBufferPointer { yo in
                var i = [UnsafePointer(xi.baseAddress! + start)], o = [yo.baseAddress! + start]
                plan.render(input: &i, output: &o, frameCount: 256)
            } }
            start += 256
        }
        #expect(x == y, "the node passes audio unchanged")
        guard case .object(let nodes) = plan.meters, case .object(let s)? = nodes["s"], case .number(let f)? = s["peakFrequencyHz"],
              case .array(let bands)? = s["bands"] else { Issue.record("no spectrum values: \(plan.meters)"); return }
        print("spectrum node: peak \(f) Hz")
        #expect(abs(f - 997) <= 0.5)
        let loudest = bands.compactMap { b -> (Double, Double)? in
            guard case .object(let o) = b, case .number(let c)? = o["frequencyHz"], case .number(let l)? = o["levelDB"] else { return nil }
            return (c, l)
        }.max { $0.1 < $1.1 }
        #expect(abs((loudest?.0 ?? 0) - 1000) < 1)
    }

    /// A meter node after a gain reads what the level meter reads on the gain's output.
    @Test func meterNodeMatchesTheMeterOnTheSameAudio() throws {
        let x = Signals.noise(48000, amplitude: 0.9, seed: 21)
        let (output, plan) = try PresetRender.render(PresetDecoder.decode(Self.document(#"{"type": "gain", "gain": -6}, {"type": "meter", "id": "m"}"#)),
                                                     input: [x], block: 512, rate: Self.rate)
        let reference = LevelMeter(sampleRate: Self.rate, channelCount: 1)
        PlanarBuffer(channels: output).withChannelPointers { reference.process($0, frameCount: x.count) }
        guard let levels = plan.readings["m"]?.channels.first else { Issue.record("no meter reading: \(plan.readings.keys)"); return }
        let (rms, peak) = (levels.rmsDBFS, levels.samplePeakDBFS)
        #expect(abs(rms - reference.rmsDBFS(channel: 0)) < 0.01 && abs(peak - reference.samplePeakDBFS(channel: 0)) < 0.01)
    }
}
