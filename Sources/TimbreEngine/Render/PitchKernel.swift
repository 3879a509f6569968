import TimbreDSP

/// The render side of a `pitch` node: a ``PitchShifter`` shared by the plans that continue the
/// node, run once per block whichever plan gets there first. During a crossfade both the
/// current and the fading plan render the node; the first (the current plan) shifts the block
/// and keeps a copy, the second replays that copy, so the shifter never advances twice.
/// Raw memory only (copied freely, never reference-counted); owned by ``PitchState``.
public struct PitchKernel {
    let handle: PitchShifter.RenderHandle
    let channelCount: Int
    let maxBlockFrames: Int
    public let latencyFrames: Int
    /// The last block's output, `channelCount × maxBlockFrames`.
    let lastOutput: UnsafeMutablePointer<Float>
    /// [stamp of the block last shifted, its frame count].
    let last: UnsafeMutablePointer<Int>

    init(shifter: PitchShifter, maxBlockFrames: Int) {
        handle = shifter.renderHandle
        channelCount = shifter.channelCount
        self.maxBlockFrames = maxBlockFrames
        latencyFrames = shifter.latencyFrames
        lastOutput = .allocate(capacity: channelCount * maxBlockFrames)
        lastOutput.initialize(repeating: 0, count: channelCount * maxBlockFrames)
        last = .allocate(capacity: 2)
        last.initialize(repeating: Int.min, count: 2)
    }

    func deallocate() { lastOutput.deallocate(); last.deallocate() }

    /// Shifts `frameCount` frames of the node's channels in place toward `semitones` — or, if
    /// this block (`stamp`) was already shifted by another plan, writes that result.
    @_noLocks
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, semitones: Double, frameCount: Int, stamp: Int) {
        if last[0] == stamp && last[1] == frameCount {
            for c in 0..<channelCount {
                let src = lastOutput + c * maxBlockFrames, dst = channels[c]
                for i in 0..<frameCount { dst[i] = src[i] }
            }
            return
        }
        let input = UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafePointer<Float>.self)
        handle.process(targetSemitones: semitones, input: input, output: channels, frameCount: frameCount)
        for c in 0..<channelCount {
            let src = channels[c], dst = lastOutput + c * maxBlockFrames
            for i in 0..<frameCount { dst[i] = src[i] }
        }
        last[0] = stamp; last[1] = frameCount
    }
}
