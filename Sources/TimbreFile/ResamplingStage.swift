import TimbreDSP

/// Converts its upstream's frames by a rational ratio with the band-limited ``Resampler``,
/// pulling exactly the frames each block needs. Aligned with the upstream, ⌈N·L/M⌉ frames for N.
package final class ResamplingStage: FrameSource {
    package let upstream: FrameSource
    package let resampler: Resampler
    package var channelCount: Int { upstream.channelCount }
    package var expectedFrames: Int64 { resampler.outputFrames(forInputFrames: upstream.expectedFrames) }

    let staging: PlanarStaging
    let scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private var upstreamFrames: Int64 = 0
    private var ended = false
    private var produced: Int64 = 0

    /// Nil when the ratio needs more filter memory than the resampler builds (``Resampler``).
    package init?(upstream: FrameSource, ratio: RationalRatio, quality: ResamplerQuality, maximumFrames: Int) {
        guard let r = Resampler(ratio: ratio, channelCount: upstream.channelCount, quality: quality, maximumOutputFrames: maximumFrames) else { return nil }
        self.upstream = upstream
        let capacity = r.maximumInputFrames
        resampler = r
        let channels = upstream.channelCount
        staging = PlanarStaging(channelCount: channels, capacity: capacity)
        scratch = .allocate(capacity: channels)
    }

    deinit { scratch.deallocate() }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        var n = maxFrames
        if ended {
            n = Int(min(Int64(n), resampler.outputFrames(forInputFrames: upstreamFrames) - produced))
            if n <= 0 { return 0 }
        }
        let need = resampler.inputFramesNeeded(forOutputFrames: n)
        var got = 0
        if !ended {
            got = try upstream.readFully(into: staging.pointers, frames: need, scratch: scratch)
            upstreamFrames += Int64(got)
            if got < need {
                // The upstream ended inside this block: produce only what its length converts to.
                ended = true
                n = Int(min(Int64(n), resampler.outputFrames(forInputFrames: upstreamFrames) - produced))
                if n <= 0 { return 0 }
            }
        }
        // Every frame read goes in; past the end the filter reads silence.
        let count = max(got, resampler.inputFramesNeeded(forOutputFrames: n))
        for c in 0..<channelCount where count > got { (staging.channels[c] + got).update(repeating: 0, count: count - got) }
        resampler.process(input: staging.readOnly, inputFrames: count, output: channels, outputFrames: n)
        produced += Int64(n)
        return n
    }
}
