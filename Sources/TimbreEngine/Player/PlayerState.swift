import Atomics

/// One `player` channel's stream, owned by the control side and shared by every plan that
/// continues the channel (like ``PitchState``), so an edit elsewhere never restarts playback.
/// The host that reads files (TimbreFile's `PlayerFeeder`) creates it, keeps the ring filled
/// and marks the end of the stream; the render side only reads (``PlayerKernel``).
public final class PlayerState: @unchecked Sendable {
    public let spec: PlayerSpec
    public let channelCount: Int
    public let sampleRate: Double
    public let maxBlockFrames: Int
    public let ring: PlayerRing
    /// The stream's length in frames once the file side knows it (−1 before): the player has
    /// finished when ``framesPlayed`` reaches it.
    let end: UnsafeAtomic<Int>
    /// Frames the output needed that the ring did not hold (filled with silence).
    let underrunFrames: UnsafeAtomic<Int>
    let kernel: PlayerKernel
    /// Whatever fills the ring (kept alive with the state).
    public var feeder: AnyObject?

    public init(spec: PlayerSpec, channelCount: Int, sampleRate: Double, maxBlockFrames: Int, ringFrames: Int) {
        self.spec = spec; self.channelCount = channelCount; self.sampleRate = sampleRate; self.maxBlockFrames = maxBlockFrames
        ring = PlayerRing(channelCount: channelCount, capacity: max(ringFrames, 2 * maxBlockFrames))
        end = .create(-1); underrunFrames = .create(0)
        kernel = PlayerKernel(ring: ring, end: end, underruns: underrunFrames, maxBlockFrames: maxBlockFrames)
    }

    deinit { kernel.deallocate(); ring.deallocate(); end.destroy(); underrunFrames.destroy() }

    /// Marks the stream complete at `frames` frames (file side).
    public func markEnd(atFrame frames: Int) { end.store(frames, ordering: .releasing) }

    /// The stream's length, once known.
    public var endFrame: Int? { let e = end.load(ordering: .acquiring); return e < 0 ? nil : e }
    /// Frames played (read by the render side).
    public var framesPlayed: Int { ring.framesRead }
    /// True once the whole stream was played.
    public var finished: Bool { endFrame.map { framesPlayed >= $0 } ?? false }
    /// Output frames filled with silence because the file side was late.
    public var underruns: Int { underrunFrames.load(ordering: .relaxed) }

    /// Undoes the warm-up block's read (control thread, before the audio thread runs).
    func rewindAfterWarmUp() {
        ring.read.store(0, ordering: .releasing)
        underrunFrames.store(0, ordering: .relaxed)
    }

    func matches(_ spec: PlayerSpec, _ rate: Double, _ block: Int) -> Bool {
        self.spec == spec && sampleRate == rate && maxBlockFrames == block
    }
}

/// The render side of a `player` channel: takes the block's frames from the ring into the
/// channel's work buffers, silence where the ring ran dry (counted unless the stream ended).
/// Once per block across a crossfade's two plans (``BlockReplay``). Raw memory only.
public struct PlayerKernel {
    let ring: PlayerRing
    let end: UnsafeAtomic<Int>
    let underruns: UnsafeAtomic<Int>
    let replay: BlockReplay

    init(ring: PlayerRing, end: UnsafeAtomic<Int>, underruns: UnsafeAtomic<Int>, maxBlockFrames: Int) {
        self.ring = ring; self.end = end; self.underruns = underruns
        replay = BlockReplay(channelCount: ring.channelCount, maxBlockFrames: maxBlockFrames)
    }

    func deallocate() { replay.deallocate() }

    @_noLocks
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, stamp: Int) {
        if replay.replay(into: channels, frameCount: frameCount, stamp: stamp) { return }
        let got = ring.take(into: channels, frameCount: frameCount)
        if got < frameCount {
            for c in 0..<ring.channelCount { let x = channels[c]; for i in got..<frameCount { x[i] = 0 } }
            let e = end.load(ordering: .acquiring)
            let missing = e < 0 ? frameCount - got : max(0, min(frameCount - got, e - ring.read.load(ordering: .relaxed)))
            if missing > 0 { underruns.wrappingIncrement(by: missing, ordering: .relaxed) }
        }
        replay.keep(channels, frameCount: frameCount, stamp: stamp)
    }
}
