import TimbreDSP

/// The render side of a `pitch` node: a `PitchShifter` shared by the plans that continue the
/// node, run once per block whichever plan gets there first (``BlockReplay``): during a
/// crossfade the current plan shifts the block and the fading plan replays it.
/// Raw memory only (copied freely, never reference-counted); owned by `PitchState`.
package struct PitchKernel {
    let handle: PitchShifter.RenderHandle
    package let latencyFrames: Int
    let replay: BlockReplay

    init(shifter: borrowing PitchShifter, maxBlockFrames: Int) {
        handle = shifter.renderHandle
        latencyFrames = shifter.latencyFrames
        replay = BlockReplay(channelCount: shifter.channelCount, maxBlockFrames: maxBlockFrames)
    }

    func deallocate() { replay.deallocate() }

    /// Clears NaN and infinity from the shifter's memory and the kept block. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func clearNonFinite() {
        handle.clearNonFinite()
        NonFiniteScan.zero(replay.lastOutput, count: replay.channelCount * replay.maxBlockFrames)
    }

    /// Back to the start of a stream (after a host's warm-up; not for the audio thread).
    func reset() {
        handle.reset()
        replay.forget()
    }

    /// Shifts `frameCount` frames of the node's channels in place toward `semitones` — or, if
    /// this block (`stamp`) was already shifted by another plan, writes that result.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, semitones: Double, frameCount: Int, stamp: Int) {
        if replay.replay(into: channels, frameCount: frameCount, stamp: stamp) { return }
        let input = UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafePointer<Float>.self)
        handle.process(targetSemitones: semitones, input: input, output: channels, frameCount: frameCount)
        replay.keep(channels, frameCount: frameCount, stamp: stamp)
    }
}
