import TimbreEngine

/// The one way the tests render a preset over whole signals: a ``RenderPlan`` fed in blocks of
/// `block` frames from a ``PlanarBuffer`` (no pointer outlives its closure).
public enum PresetRender {
    /// Renders planar `input` through `preset` at `rate` in blocks of `block` frames; returns the
    /// planar output and the plan (for its latency and readings). `registry`: shared node state
    /// (plugins need `PluginHost.registry()`).
    public static func render(_ preset: Preset, input: [[Float]], block: Int, rate: Double = 48000,
                              registry: NodeStateRegistry? = nil) throws -> (output: [[Float]], plan: RenderPlan) {
        let plan = try RenderPlan(preset: preset, format: RenderFormat(sampleRate: rate, inputChannelCount: input.count, maxBlockFrames: block),
                                  registry: registry)
        let source = PlanarBuffer(channels: input)
        let output = PlanarBuffer(channelCount: plan.outputChannelCount, capacity: source.frameCount)
        var start = 0
        while start < source.frameCount {
            let n = min(block, source.frameCount - start)
            source.withInputPointers(from: start) { ins in
                output.withChannelPointers(from: start) { outs in _ = plan.render(input: ins, output: outs, frameCount: n) }
            }
            start += n
        }
        return (output.channels, plan)
    }
}
