import TimbreDSP

extension RenderPlan {
    /// Renders all of `input`'s frames into `output` (its `PlanarBuffer/frameCount` becomes
    /// the input's). `input` has ``RenderFormat/inputChannelCount`` channels, `output` at least
    /// ``outputChannelCount`` and room for the frames. Returns the number of blocks output as
    /// silence because NaN or infinity reached the output.
    @discardableResult
    public func render(_ input: PlanarBuffer, into output: PlanarBuffer) -> Int {
        precondition(input.channelCount == format.inputChannelCount, "the plan takes \(format.inputChannelCount) input channels, the buffer has \(input.channelCount)")
        precondition(output.channelCount >= outputChannelCount && output.capacity >= input.frameCount,
                     "the output needs \(outputChannelCount) channels of \(input.frameCount) frames")
        output.frameCount = input.frameCount
        return input.pointers.withMemoryRebound(to: UnsafePointer<Float>.self, capacity: input.channelCount) { ins in
            render(input: ins, output: output.pointers, frameCount: input.frameCount)
        }
    }
}
