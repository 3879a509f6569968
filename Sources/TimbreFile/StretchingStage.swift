import TimbreDSP

/// Changes its upstream's duration with the pitch kept (``TimeStretcher``): round(N / rate)
/// frames for N.
public final class StretchingStage: FrameSource {
    public let upstream: FrameSource
    public let stretcher: TimeStretcher
    public var channelCount: Int { upstream.channelCount }
    public var expectedFrames: Int64 { Int64((Double(upstream.expectedFrames) / stretcher.rate).rounded()) }

    let blockFrames: Int
    let staging: [UnsafeMutablePointer<Float>]
    let stagingPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let stagingConst: UnsafeMutablePointer<UnsafePointer<Float>>
    private var ended = false

    public init(upstream: FrameSource, sampleRate: Double, rate: Double, maximumFrames: Int) {
        self.upstream = upstream
        blockFrames = maximumFrames
        stretcher = TimeStretcher(sampleRate: sampleRate, channelCount: upstream.channelCount, rate: rate, maximumPushFrames: maximumFrames)
        let channels = upstream.channelCount
        staging = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: maximumFrames) }
        stagingPointers = .allocate(capacity: channels)
        stagingConst = .allocate(capacity: channels)
        for c in 0..<channels { stagingPointers[c] = staging[c]; stagingConst[c] = UnsafePointer(staging[c]) }
    }

    deinit {
        stretcher.deallocate()
        staging.forEach { $0.deallocate() }
        stagingPointers.deallocate(); stagingConst.deallocate()
    }

    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        while stretcher.availableFrames < maxFrames && !ended {
            let n = try upstream.read(into: stagingPointers, maxFrames: blockFrames)
            if n == 0 { ended = true; stretcher.finish() } else { stretcher.push(stagingConst, frameCount: n) }
        }
        let n = min(maxFrames, stretcher.availableFrames)
        if n > 0 { stretcher.pull(channels, frameCount: n) }
        return n
    }
}
