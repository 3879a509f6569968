extension TimeStretcher {
    /// Stretches whole planar signals in memory (not real-time: allocates the result), with the
    /// streaming stretcher underneath, `blockFrames` input frames per push. The result has
    /// round(N / rate) frames.
    public static func stretch(_ channels: [[Float]], sampleRate: Double, rate: Double, blockFrames: Int = 1024) -> [[Float]] {
        let count = channels.first?.count ?? 0
        let s = TimeStretcher(sampleRate: sampleRate, channelCount: channels.count, rate: rate, maximumPushFrames: blockFrames)
        var result = [[Float]](repeating: [], count: channels.count)
        let scratch = (0..<channels.count).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: s.storage.outCapacity) }
        defer { scratch.forEach { $0.deallocate() } }
        func drain() {
            let n = s.availableFrames
            guard n > 0 else { return }
            scratch.withUnsafeBufferPointer { s.pull($0.baseAddress!, frameCount: n) }
            for c in 0..<channels.count { result[c].append(contentsOf: UnsafeBufferPointer(start: scratch[c], count: n)) }
        }
        var start = 0
        while start < count {
            let k = min(blockFrames, count - start)
            let pointers = channels.map { $0.withUnsafeBufferPointer { UnsafePointer($0.baseAddress! + start) } }
            pointers.withUnsafeBufferPointer { s.push($0.baseAddress!, frameCount: k) }
            drain()
            start += k
        }
        s.finish()
        while !s.isDone { drain() }
        return result
    }
}
