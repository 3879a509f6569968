import TimbreDSP

/// Changes its upstream's duration with the pitch kept (``TimeStretcher``): round(N / rate)
/// frames for N.
package final class StretchingStage: FrameSource {
    package let upstream: FrameSource
    package let stretcher: TimeStretcher
    package var channelCount: Int { upstream.channelCount }
    package var expectedFrames: Int64 { Int64((Double(upstream.expectedFrames) / stretcher.rate).rounded()) }

    let blockFrames: Int
    let staging: PlanarStaging
    private var ended = false

    package init(upstream: FrameSource, sampleRate: Double, rate: Double, maximumFrames: Int) {
        self.upstream = upstream
        blockFrames = maximumFrames
        stretcher = TimeStretcher(sampleRate: sampleRate, channelCount: upstream.channelCount, rate: rate, maximumPushFrames: maximumFrames)
        let channels = upstream.channelCount
        staging = PlanarStaging(channelCount: channels, capacity: maximumFrames)
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        while stretcher.availableFrames < maxFrames && !ended {
            let n = try upstream.read(into: staging.pointers, maxFrames: blockFrames)
            if n == 0 { ended = true; stretcher.finish() } else { stretcher.push(staging.readOnly, frameCount: n) }
        }
        let n = min(maxFrames, stretcher.availableFrames)
        if n > 0 { stretcher.pull(channels, frameCount: n) }
        return n
    }
}
