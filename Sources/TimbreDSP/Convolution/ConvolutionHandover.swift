/// How a ``PartitionedConvolver`` hands its state to the kernel of the next plan without a
/// copy: the taker takes the memory (rings and delay lines, by pointer), and the giver — still
/// run by the old plan while the host crossfades the two plans — plays the taker's output of
/// the same block instead of convolving. Copying the state instead would move tens of
/// megabytes on the audio thread for a long response (a 20 s stereo response: ≈ 15 MB, more
/// than a 64-frame period).
///
/// The taker keeps its last block in ``stash`` (channels × `capacity` frames, `frames[0]`
/// of them valid, −1 until it has taken a state); the giver's ``source`` points at the
/// taker's stash. The new plan renders before the old one in every block, and the old plan
/// is retired before the new one can be replaced, so the stash outlives its reader. Raw
/// pointers: the owning kernel calls ``free()``.
struct ConvolutionHandover: @unchecked Sendable {
    let channelCount: Int
    let capacity: Int
    let stash: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let frames: UnsafeMutablePointer<Int>
    /// [0] the taker's stash and its frame count (nil while this kernel convolves).
    let source: UnsafeMutablePointer<(stash: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, frames: UnsafeMutablePointer<Int>)?>

    init(channelCount: Int, capacity: Int) {
        self.channelCount = channelCount; self.capacity = capacity
        stash = .allocate(capacity: channelCount)
        for c in 0..<channelCount {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            p.initialize(repeating: 0, count: capacity)
            (stash + c).initialize(to: p)
        }
        frames = .allocate(capacity: 1)
        frames.initialize(to: -1)
        source = .allocate(capacity: 1)
        source.initialize(to: nil)
    }

    func free() {
        for c in 0..<channelCount { stash[c].deallocate() }
        stash.deallocate(); frames.deallocate(); source.deallocate()
    }

    /// True once this kernel's state has gone to another.
    var isHandedOver: Bool { source.pointee != nil }

    /// This kernel (the taker) keeps its blocks from now on for `giver`, which plays them.
    func connect(giver: ConvolutionHandover) {
        frames.pointee = 0
        giver.source.pointee = (stash, frames)
    }

    /// The taker: keeps the block just computed.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func keep(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard frames.pointee >= 0 else { return }
        let n = min(frameCount, capacity)
        for c in 0..<channelCount {
            let from = channels[c], to = stash[c]
            for i in 0..<n { to[i] = from[i] }
        }
        frames.pointee = n
    }

    /// The giver: its block is the taker's (silence past what the taker kept).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func play(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard let (stash, frames) = source.pointee else { return }
        let n = min(frameCount, max(0, frames.pointee))
        for c in 0..<channelCount {
            let from = stash[c], to = channels[c]
            for i in 0..<n { to[i] = from[i] }
            for i in n..<frameCount { to[i] = 0 }
        }
    }
}
