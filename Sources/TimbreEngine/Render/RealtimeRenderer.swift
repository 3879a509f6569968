import Atomics
import TimbreDSP

/// State shared between the control thread (``LiveEngine``) and the audio thread.
///
/// ```
/// control ──publish──▶ pending ──(render, between fades)──▶ current ──fade out──▶ retired[k] ──▶ control frees
/// ```
/// `pending` and each `retired` slot are single-producer single-consumer atomics. The fields
/// below the atomics belong to the audio thread alone.
struct SharedRenderState {
    let pending: UnsafeAtomic<UnsafeMutableRawPointer?>
    let retired: UnsafeMutablePointer<UnsafeAtomic<UnsafeMutableRawPointer?>>
    let retiredCount: Int
    /// The plan the audio thread renders now (for status and state matching; read-only for control).
    let live: UnsafeAtomic<UnsafeMutableRawPointer?>
    let blocksRendered: UnsafeAtomic<Int>
    let framesRendered: UnsafeAtomic<Int>
    /// Blocks output as silence because NaN or infinity reached the output (see ``PlanCore/render(input:output:frameCount:)``).
    let nonFiniteBlocks: UnsafeAtomic<Int>

    // Audio-thread state.
    var current: UnsafeMutablePointer<PlanCore>?
    var fading: UnsafeMutablePointer<PlanCore>?
    var fadePosition: Int
    /// Chunks rendered: the block stamp both plans of a crossfade render with.
    var chunks: Int = 0
    /// The crossfade's length, taken from the plan faded to (its sample rate's).
    var fadeFrames: Int
    let inputChannelCount: Int
    let outputChannelCount: Int
    let maxBlockFrames: Int
    let shiftedInput: UnsafeMutablePointer<UnsafePointer<Float>>
    let scratchChannels: Int
    /// Two planar scratch sets (new plan, old plan), `scratchChannels × maxBlockFrames` each.
    let newOut: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let oldOut: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let storage: UnsafeMutablePointer<Float>
}

/// What the audio thread holds: a pointer, copied freely, never reference-counted.
///
/// `render` takes the newest published plan when no crossfade is running, crossfades from the
/// old plan's output to the new one's over ``LiveEngine/crossfadeSeconds`` (the new plan
/// continues the old one's filter and ramp state where nodes match), hands the old plan back
/// to the control thread, and maps the plan's channels onto the host's outputs (a mono plan
/// feeds every output; extra plan channels are dropped).
public struct RealtimeRenderer: @unchecked Sendable {
    let shared: UnsafeMutablePointer<SharedRenderState>

    /// The real-time entry point. No allocation, locks, I/O or reference counting
    /// (checked by `@_noLocks` at compile time, RealtimeSanitizer and allocation counts in tests).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func render(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let n = min(shared.pointee.maxBlockFrames, frameCount - done)
            renderChunk(input: input, output: output, offset: done, frameCount: n)
            done += n
        }
        shared.pointee.blocksRendered.wrappingIncrement(ordering: .relaxed)
        shared.pointee.framesRendered.wrappingIncrement(by: frameCount, ordering: .relaxed)
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func renderChunk(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frameCount n: Int) {
        let s = shared
        // Adopt a newly published plan, but only between fades (one crossfade at a time).
        if s.pointee.fading == nil, let raw = s.pointee.pending.exchange(nil, ordering: .acquiring) {
            let next = raw.assumingMemoryBound(to: PlanCore.self)
            if let old = s.pointee.current {
                next.pointee.adoptState(from: old)
                s.pointee.fading = old
                s.pointee.fadePosition = 0
                s.pointee.fadeFrames = next.pointee.crossfadeFrames
            }
            s.pointee.current = next
            s.pointee.live.store(raw, ordering: .releasing)
        }
        guard let current = s.pointee.current else {
            for c in 0..<s.pointee.outputChannelCount {
                let dst = output[c] + offset
                for i in 0..<n { dst[i] = 0 }
            }
            return
        }
        // The plans read `input[c] + offset` through a preallocated pointer array.
        for c in 0..<s.pointee.inputChannelCount { s.pointee.shiftedInput[c] = input[c] + offset }
        let shifted = UnsafePointer(s.pointee.shiftedInput)
        let sequence = s.pointee.chunks
        s.pointee.chunks = sequence &+ 1  // (a plain store: `&+=` would be an inout access of the whole shared struct)
        let room = s.pointee.scratchChannels
        var silenced = current.pointee.render(input: shifted, output: UnsafePointer(s.pointee.newOut), frameCount: n, sequence: sequence, outputLimit: room)
        if let old = s.pointee.fading {
            silenced += old.pointee.render(input: shifted, output: UnsafePointer(s.pointee.oldOut), frameCount: n, analyse: false, sequence: sequence,
                                           outputLimit: room)
        }
        if silenced > 0 { s.pointee.nonFiniteBlocks.wrappingIncrement(ordering: .relaxed) }
        let newChannels = min(current.pointee.outputChannelCount, room)
        if let old = s.pointee.fading {
            let oldChannels = min(old.pointee.outputChannelCount, room)
            let length = s.pointee.fadeFrames
            let start = s.pointee.fadePosition
            // 0 → 1 over the fade, `start` frames in.
            let fade = LinearRamp(start: 0, target: 1, length: length, position: start)
            for c in 0..<s.pointee.outputChannelCount {
                let a = s.pointee.oldOut[min(c, oldChannels - 1)], b = s.pointee.newOut[min(c, newChannels - 1)]
                fade.crossfade(from: a, to: b, into: output[c] + offset, count: n)
            }
            s.pointee.fadePosition = start + n
            if s.pointee.fadePosition >= length {
                retire(old)
            }
        } else {
            for c in 0..<s.pointee.outputChannelCount {
                let src = s.pointee.newOut[min(c, newChannels - 1)], dst = output[c] + offset
                for i in 0..<n { dst[i] = src[i] }
            }
        }
    }

    /// Hands `old` back to the control thread through a free retired slot; if all are full,
    /// keeps fading (at full new gain) until the control thread has emptied one.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func retire(_ old: UnsafeMutablePointer<PlanCore>) {
        let s = shared
        for k in 0..<s.pointee.retiredCount {
            let (exchanged, _) = s.pointee.retired[k].compareExchange(expected: nil, desired: UnsafeMutableRawPointer(old), ordering: .releasing)
            if exchanged {
                s.pointee.fading = nil
                return
            }
        }
    }
}
