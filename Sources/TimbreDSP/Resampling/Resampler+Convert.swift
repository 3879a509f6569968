extension Resampler {
    /// Converts whole planar signals in memory (not real-time: allocates the result), with the
    /// streaming converter underneath, `blockFrames` output frames per call. The result has
    /// ⌈N·L/M⌉ frames, aligned with the input (no delay). Nil when the ratio is unsupported.
    public static func convert(_ channels: [[Float]], ratio: RationalRatio, quality: ResamplerQuality = .high,
                               blockFrames: Int = 1024, engine: EngineKind? = nil) -> [[Float]]? {
        guard let first = channels.first,
              let resampler = Resampler(ratio: ratio, channelCount: channels.count, quality: quality, maximumOutputFrames: blockFrames,
                                        engine: engine)
        else { return nil }
        let total = Int(resampler.outputFrames(forInputFrames: Int64(first.count)))
        var result = [[Float]](repeating: [Float](repeating: 0, count: total), count: channels.count)
        let inputCapacity = resampler.maximumInputFrames
        let inputs = (0..<channels.count).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: inputCapacity) }
        let outputs = (0..<channels.count).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: blockFrames) }
        defer { inputs.forEach { $0.deallocate() }; outputs.forEach { $0.deallocate() } }
        var read = 0, written = 0
        while written < total {
            let n = min(blockFrames, total - written)
            let need = resampler.inputFramesNeeded(forOutputFrames: n)
            for c in 0..<channels.count {
                for i in 0..<need { inputs[c][i] = read + i < first.count ? channels[c][read + i] : 0 }
            }
            read += need
            inputs.map { UnsafePointer($0) }.withUnsafeBufferPointer { ins in
                outputs.withUnsafeBufferPointer { outs in
                    resampler.process(input: ins.baseAddress!, inputFrames: need, output: outs.baseAddress!, outputFrames: n)
                }
            }
            for c in 0..<channels.count { for i in 0..<n { result[c][written + i] = outputs[c][i] } }
            written += n
        }
        return result
    }
}
