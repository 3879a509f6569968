import TimbreDSP

/// A stage that remixes its upstream's channels through a ``ChannelConversion`` matrix
/// (`render --channels`), block by block; the frames pass one for one.
package final class ChannelConversionStage: FrameSource {
    let upstream: FrameSource
    let gains: [[Float]]
    package let channelCount: Int
    let scratch: UnsafeMutablePointer<Float>
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let maximumFrames: Int

    package init(upstream: FrameSource, conversion: ChannelConversion, maximumFrames: Int) {
        precondition(conversion.from.channelCount == upstream.channelCount)
        self.upstream = upstream
        gains = conversion.gains.map { $0.map(Float.init) }
        channelCount = conversion.to.channelCount
        self.maximumFrames = maximumFrames
        scratch = .allocate(capacity: upstream.channelCount * maximumFrames)
        pointers = .allocate(capacity: upstream.channelCount)
        for c in 0..<upstream.channelCount { pointers[c] = scratch + c * maximumFrames }
    }

    deinit { scratch.deallocate(); pointers.deallocate() }

    package var expectedFrames: Int64 { upstream.expectedFrames }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        let n = try upstream.read(into: pointers, maxFrames: min(maxFrames, maximumFrames))
        for (o, row) in gains.enumerated() {
            let out = channels[o]
            for i in 0..<n { out[i] = 0 }
            for (c, g) in row.enumerated() where g != 0 {
                let x = pointers[c]
                if g == 1 { for i in 0..<n { out[i] += x[i] } } else { for i in 0..<n { out[i] += g * x[i] } }
            }
        }
        return n
    }
}
