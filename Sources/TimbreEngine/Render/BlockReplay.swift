/// For nodes whose state is shared by the plans of a crossfade (a `pitch` node's shifter, a
/// player's stream): the first plan to render a host block runs the node and keeps its output
/// here; the other plan replays it, so the shared state advances once per block.
/// Raw memory only; ``deallocate()`` once, off the render thread.
struct BlockReplay {
    let channelCount: Int
    let maxBlockFrames: Int
    /// The last block's output, `channelCount × maxBlockFrames`.
    let lastOutput: UnsafeMutablePointer<Float>
    /// [stamp of the block last run, its frame count].
    let last: UnsafeMutablePointer<Int>

    init(channelCount: Int, maxBlockFrames: Int) {
        self.channelCount = channelCount; self.maxBlockFrames = maxBlockFrames
        lastOutput = .allocate(capacity: channelCount * maxBlockFrames)
        lastOutput.initialize(repeating: 0, count: channelCount * maxBlockFrames)
        last = .allocate(capacity: 2)
        last.initialize(repeating: Int.min, count: 2)
    }

    func deallocate() { lastOutput.deallocate(); last.deallocate() }

    /// Forgets the kept block: the next block is run, whatever its stamp.
    func forget() { last[0] = Int.min; last[1] = Int.min }

    /// Writes the kept output of block `stamp` into `channels` if that block was already run.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func replay(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, stamp: Int) -> Bool {
        guard last[0] == stamp && last[1] == frameCount else { return false }
        for c in 0..<channelCount {
            let src = lastOutput + c * maxBlockFrames, dst = channels[c]
            for i in 0..<frameCount { dst[i] = src[i] }
        }
        return true
    }

    /// Keeps the output of block `stamp`.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func keep(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, stamp: Int) {
        for c in 0..<channelCount {
            let src = channels[c], dst = lastOutput + c * maxBlockFrames
            for i in 0..<frameCount { dst[i] = src[i] }
        }
        last[0] = stamp; last[1] = frameCount
    }
}
