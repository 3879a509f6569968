import Atomics
import Foundation

/// What the file side of a player does for the control side.
public protocol PlayerStreamControl: AnyObject {
    /// Moves playback to `fileSeconds` (within the region), sample-exactly, soon.
    func requestSeek(fileSeconds: Double)
    /// Plays on from `fileSeconds` with `spec`'s rate, rate mode and loops.
    func requestChange(to spec: PlayerSpec, fileSeconds: Double)
}

/// One `player` channel's stream, owned by the control side and shared by every plan that
/// continues the channel (like `PitchState`), so an edit elsewhere never restarts playback.
/// The host that reads files (TimbreFile's `PlayerFeeder`) creates it, keeps the ring filled
/// and marks the end of the stream; the render side only reads (`PlayerKernel`).
public final class PlayerState: @unchecked Sendable {
    /// The settings (control thread; `rate`, `rateMode` and `loops` change live).
    public internal(set) var spec: PlayerSpec
    public let channelCount: Int
    public let sampleRate: Double
    public let maxBlockFrames: Int
    package let ring: PlayerRing
    /// The stream's length in frames once the file side knows it (−1 before): the player has
    /// finished when ``framesPlayed`` reaches it.
    let end: UnsafeAtomic<Int>
    /// Frames the output needed that the ring did not hold (filled with silence).
    let underrunFrames: UnsafeAtomic<Int>
    /// The render-side kernel, out of line: a plan's step holds this address.
    let kernelAddress: UnsafeMutablePointer<PlayerKernel>
    /// Whatever fills the ring (kept alive with the state); it also carries out seeks.
    public var feeder: (any PlayerStreamControl)?
    /// Playing or paused (`play`/`pause`; starts as the spec's `autoplay`). The render side
    /// reads it every block; paused, it outputs silence and reads nothing.
    let playingFlag: UnsafeAtomic<Bool>
    /// Ring position where the stream after the latest seek begins (frames before it are dropped).
    let cut: UnsafeAtomic<Int>
    /// Where the stream's current stretch began: the ring position and the file second it
    /// plays there (control and file side; for `currentTime`).
    private let originLock = NSLock()
    private var originValue: (frame: Int, fileSeconds: Double)

    package init(spec: PlayerSpec, channelCount: Int, sampleRate: Double, maxBlockFrames: Int, ringFrames: Int) {
        self.spec = spec; self.channelCount = channelCount; self.sampleRate = sampleRate; self.maxBlockFrames = maxBlockFrames
        ring = PlayerRing(channelCount: channelCount, capacity: max(ringFrames, 2 * maxBlockFrames))
        end = .create(-1); underrunFrames = .create(0)
        playingFlag = .create(spec.autoplay); cut = .create(0)
        originValue = (0, spec.start + spec.offset)
        kernelAddress = .allocate(capacity: 1)
        kernelAddress.initialize(to: PlayerKernel(ring: ring, end: end, underruns: underrunFrames, playing: playingFlag, cut: cut,
                                                  maxBlockFrames: maxBlockFrames, fadeFrames: max(1, Int(0.005 * sampleRate))))
    }

    deinit {
        kernelAddress.pointee.deallocate(); kernelAddress.deinitialize(count: 1); kernelAddress.deallocate()
        ring.deallocate(); end.destroy(); underrunFrames.destroy(); playingFlag.destroy(); cut.destroy()
    }

    /// Plays or pauses (control thread).
    public var playing: Bool {
        get { playingFlag.load(ordering: .relaxed) }
        set { playingFlag.store(newValue, ordering: .releasing) }
    }

    /// File side, at a seek: everything written so far is dropped; the stream restarts at
    /// `fileSeconds` from the next frame written. The render side fades the old stream out and
    /// the new one in over 5 ms.
    package func beginCut(fileSeconds: Double) {
        let at = ring.framesWritten
        end.store(-1, ordering: .releasing)
        originLock.lock(); originValue = (at, fileSeconds); originLock.unlock()
        cut.store(at, ordering: .releasing)
    }

    /// The ring position and file second the current stretch of the stream began at.
    package var origin: (frame: Int, fileSeconds: Double) {
        originLock.lock(); defer { originLock.unlock() }
        return originValue
    }

    /// Marks the stream complete at `frames` frames (file side).
    package func markEnd(atFrame frames: Int) { end.store(frames, ordering: .releasing) }

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

    /// Whether a plan with `spec` continues this stream: the same file region at the same
    /// rate and block size (a new rate, rate mode or loop count is applied to it).
    func matches(_ spec: PlayerSpec, _ rate: Double, _ block: Int) -> Bool {
        self.spec.file == spec.file && self.spec.start == spec.start && self.spec.end == spec.end && self.spec.offset == spec.offset
            && self.spec.autoplay == spec.autoplay && sampleRate == rate && maxBlockFrames == block
    }

    /// The file second playing now (control thread; past the region's end after loops, the
    /// file side wraps it into the region).
    public var currentFileSeconds: Double {
        let o = origin
        return o.fileSeconds + Double(max(0, framesPlayed - o.frame)) / sampleRate * spec.rate
    }
}

/// The render side of a `player` channel: takes the block's frames from the ring into the
/// channel's work buffers, silence where the ring ran dry (counted unless the stream ended).
/// Once per block across a crossfade's two plans (``BlockReplay``). Raw memory only.
package struct PlayerKernel {
    let ring: PlayerRing
    let end: UnsafeAtomic<Int>
    let underruns: UnsafeAtomic<Int>
    let playing: UnsafeAtomic<Bool>
    let cut: UnsafeAtomic<Int>
    let replay: BlockReplay
    let fadeFrames: Int
    /// [frames of fade-in left after a cut].
    let fade: UnsafeMutablePointer<Int>

    init(ring: PlayerRing, end: UnsafeAtomic<Int>, underruns: UnsafeAtomic<Int>, playing: UnsafeAtomic<Bool>, cut: UnsafeAtomic<Int>,
         maxBlockFrames: Int, fadeFrames: Int) {
        self.ring = ring; self.end = end; self.underruns = underruns; self.playing = playing; self.cut = cut; self.fadeFrames = fadeFrames
        replay = BlockReplay(channelCount: ring.channelCount, maxBlockFrames: maxBlockFrames)
        fade = .allocate(capacity: 1); fade.initialize(to: 0)
    }

    func deallocate() { replay.deallocate(); fade.deallocate() }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, stamp: Int) {
        if replay.replay(into: channels, frameCount: frameCount, stamp: stamp) { return }
        defer { replay.keep(channels, frameCount: frameCount, stamp: stamp) }
        let channelCount = ring.channelCount
        guard playing.load(ordering: .acquiring) else {
            for c in 0..<channelCount { let x = channels[c]; for i in 0..<frameCount { x[i] = 0 } }
            return
        }
        var done = 0
        let cutAt = cut.load(ordering: .acquiring)
        if ring.read.load(ordering: .relaxed) < cutAt {
            // A seek: fade out what is left of the old stream (up to fadeFrames), then jump.
            let old = ring.take(into: channels, frameCount: min(frameCount, fadeFrames), limit: cutAt)
            for c in 0..<channelCount {
                let x = channels[c]
                for i in 0..<old { x[i] *= Float(old - i) / Float(old + 1) }
            }
            ring.skip(to: cutAt)
            fade.pointee = fadeFrames
            done = old
        }
        let got = ring.take(into: channels, offset: done, frameCount: frameCount - done)
        if fade.pointee > 0 {
            let start = fadeFrames - fade.pointee
            let n = min(got, fade.pointee)
            for c in 0..<channelCount {
                let x = channels[c] + done
                for i in 0..<n { x[i] *= Float(start + i + 1) / Float(fadeFrames + 1) }
            }
            fade.pointee -= n
        }
        done += got
        if done < frameCount {
            for c in 0..<channelCount { let x = channels[c]; for i in done..<frameCount { x[i] = 0 } }
            let e = end.load(ordering: .acquiring)
            let missing = e < 0 ? frameCount - done : max(0, min(frameCount - done, e - ring.read.load(ordering: .relaxed)))
            if missing > 0 { underruns.wrappingIncrement(by: missing, ordering: .relaxed) }
        }
    }
}
