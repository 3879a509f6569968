/// A fixed delay of whole frames on every channel (a ring buffer per channel): the graph's
/// latency compensation, so paths of different latency meet in time at a mix.
/// Non-copyable (``AudioKernel``): its owner ends it and `deinit` frees the ring, off the render thread.
public struct DelayLine: ~Copyable, @unchecked Sendable {
    public let frames: Int
    public let channelCount: Int
    /// `channelCount × frames` samples; channel c at `buffer + c × frames`.
    let buffer: UnsafeMutablePointer<Float>
    /// [write position].
    let position: UnsafeMutablePointer<Int>

    public init(frames: Int, channelCount: Int) {
        precondition(frames >= 1 && channelCount >= 1)
        self.frames = frames; self.channelCount = channelCount
        buffer = .allocate(capacity: frames * channelCount)
        buffer.initialize(repeating: 0, count: frames * channelCount)
        position = .allocate(capacity: 1)
        position.initialize(to: 0)
    }

    deinit { buffer.deallocate(); position.deallocate() }

    /// Delays `frameCount` frames of `channelCount` channels in place.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let start = position.pointee
        for c in 0..<channelCount {
            let ring = buffer + c * frames, x = channels[c]
            // In runs up to the ring's end: each a plain exchange of two spans (vectorised).
            var p = start, i = 0
            while i < frameCount {
                let m = min(frameCount - i, frames - p), r = ring + p, y = x + i
                for k in 0..<m { let delayed = r[k]; r[k] = y[k]; y[k] = delayed }
                i += m; p += m
                if p == frames { p = 0 }
            }
        }
        position.pointee = (start + frameCount) % frames
    }

    /// Takes over `other`'s contents (same length and channels), so a new plan continues the stream.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func continueState(from other: borrowing DelayLine) {
        guard other.frames == frames && other.channelCount == channelCount else { return }
        for i in 0..<(frames * channelCount) { buffer[i] = other.buffer[i] }
        position.pointee = other.position.pointee
    }

    /// Silences the line if it holds NaN or infinity (a non-finite input passed through it).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public func clearNonFinite() -> Bool {
        guard NonFiniteScan.contains(buffer, count: frames * channelCount) else { return false }
        reset()
        return true
    }

    /// Silences the line.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func reset() {
        for i in 0..<(frames * channelCount) { buffer[i] = 0 }
        position.pointee = 0
    }
}

extension DelayLine: InPlaceAudioKernel, ContinuableAudioKernel {
    /// A delay of `frames` frames on each of `format`'s channels.
    public init?(_ frames: Int, format: KernelFormat) { self.init(frames: frames, channelCount: format.channelCount) }
}
