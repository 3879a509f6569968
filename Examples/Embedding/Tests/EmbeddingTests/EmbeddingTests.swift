import Testing
import TimbreEngine

/// What a dependent package's own `swift test` (debug) does with Timbre: a preset built in code,
/// rendered through a plan, compared with the gain computed here.
@Test func gainOfAPresetBuiltInCode() throws {
    let preset = Preset(name: "test", form: .chain([NodeSpec(kind: .gain(linear: 0.5))]))
    let plan = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: 48000, inputChannelCount: 1, maxBlockFrames: 64))
    let x = (0..<1000).map { Float(($0 % 50)) / 50 - 0.5 }
    let input = PlanarBuffer(channels: [x])
    let output = PlanarBuffer(channelCount: plan.outputChannelCount, capacity: x.count)
    plan.render(input, into: output)
    let y = output.samples(channel: 0)
    #expect(y.count == 1000)
    #expect(zip(x, y).allSatisfy { abs($0 * 0.5 - $1) < 1e-6 })
}

/// A value out of range is an error naming its JSON path and allowed range, for a preset built
/// in code as for a file.
@Test func outOfRangeGainNamesItsPath() throws {
    let preset = Preset(name: "bad", form: .chain([NodeSpec(kind: .gain(linear: 0.5)), NodeSpec(kind: .gain(linear: 10_000))]))
    #expect(throws: PresetError.self) { try LiveEngine(preset: preset, sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 1) }
    do { _ = try LiveEngine(preset: preset, sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 1) } catch {
        #expect("\(error)".contains("chain[1]"), "\(error)")
    }
}
