import TimbreDSP

/// The render-side view of a compiled plan: raw memory only, so the audio thread can use it
/// through a pointer without reference counting. Allocated and freed by the plan's
/// ``PlanStorage`` on the control thread.
///
/// ```
///  input[c] ──copy──▶ work[0..<workChannels] ──step 0──▶ … ──step N──▶ copy ──▶ output[c]
/// ```
/// Each step is a kernel in raw memory and its C-convention entry points
/// (``KernelOperations``): the loop below is the whole render path of a plan.
package struct PlanCore {
    package let inputChannelCount: Int
    package let outputChannelCount: Int
    package let maxBlockFrames: Int
    /// The first work channel copied to the output (the master bus of a graph; 0 for a chain).
    let outputBase: Int
    let steps: UnsafeMutableBufferPointer<RenderStep>
    /// The state this plan continues from `transferSource` (see ``StateTransferMap``).
    let transfers: UnsafeMutableBufferPointer<StateTransfer>
    /// The plan `transfers` was computed against (identity only, never dereferenced unless equal).
    let transferSource: UnsafeMutableRawPointer?
    let work: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// Wet/dry ramps for filters that join a running stream without a predecessor's state
    /// (inserted nodes, or a plan that could not continue the old one): they fade in over
    /// ``fadeInFrames`` so the transient of a filter starting from silence is not heard.
    let fadeIn: UnsafeMutableBufferPointer<LinearRamp>
    let fadeInFrames: Int
    /// A live crossfade to this plan lasts ``LiveEngine/crossfadeSeconds`` at its sample rate.
    let crossfadeFrames: Int
    let dry: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// Blocks rendered (the stamp shared nodes see when no `sequence` is given).
    var blocksDone = 0

    /// Renders `frameCount` frames from `input` (`inputChannelCount` planar channels) to
    /// `output` (`outputChannelCount` planar channels). Splits at `maxBlockFrames`.
    ///
    /// Non-finite guard: after each block the output is scanned for NaN/±inf
    /// (``NonFiniteScan``, integer ops, ~0.1 ns a sample). A poisoned block is output as
    /// silence and every step whose memory holds a non-finite value (filters, delay lines) is
    /// cleared, so the graph recovers on the next block of finite input.
    /// Returns the number of blocks silenced this way. `analyse: false` skips the analysis
    /// nodes (a plan fading out must not feed the measurements its successor shares).
    /// `sequence`: the host's block number, the same for every plan rendering that block, so a
    /// shared node (`pitch`) runs once per block however many plans render it (see ``BlockReplay``).
    /// `outputLimit`: the channels `output` has room for (a live host's outputs, when a plan has more).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    package mutating func render(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                                 analyse: Bool = true, sequence: Int? = nil, outputLimit: Int = .max) -> Int {
        var silenced = 0
        var done = 0
        var part = 0
        while done < frameCount {
            let n = min(maxBlockFrames, frameCount - done)
            let stamp = sequence.map { $0 &* 1024 &+ part } ?? blocksDone
            blocksDone &+= 1; part += 1
            for c in 0..<inputChannelCount {
                let src = input[c] + done, dst = work[c]
                for i in 0..<n { dst[i] = src[i] }
            }
            for i in 0..<steps.count {
                let step = steps[i]
                var block = BlockContext(channels: UnsafePointer(work + step.base), work: UnsafePointer(work), channelCount: step.channels,
                                         frameCount: n, stamp: stamp, analyse: analyse)
                if step.fadesIn && fadeIn[i].isRamping {
                    for c in 0..<step.channels { let w = work[step.base + c], d = dry[c]; for j in 0..<n { d[j] = w[j] } }
                    run(step, &block)
                    for c in 0..<step.channels {
                        let w = work[step.base + c]
                        fadeIn[i].crossfade(from: dry[c], to: w, into: w, count: n)
                    }
                    fadeIn[i].advance(by: n)
                } else {
                    run(step, &block)
                }
            }
            var poisoned = false
            for c in 0..<outputChannelCount where NonFiniteScan.contains(work[outputBase + c], count: n) { poisoned = true }
            if poisoned {
                silenced += 1
                clearNonFiniteState()
                for c in 0..<outputChannelCount { let w = work[outputBase + c]; for j in 0..<n { w[j] = 0 } }
            }
            for c in 0..<min(outputChannelCount, outputLimit) {
                let src = work[outputBase + c], dst = output[c] + done
                for i in 0..<n { dst[i] = src[i] }
            }
            done += n
        }
        return silenced
    }

    /// One step's block: a call through its kernel's C entry point (the kernel's own
    /// `@_noLocks` method does the work).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inline(__always)
    func run(_ step: RenderStep, _ block: inout BlockContext) {
        withUnsafePointer(to: &block) { b in
            _unsafePerformance { step.operations.process(step.kernel, UnsafeRawPointer(b)) }
        }
    }

    /// Clears the memory of every step that holds NaN or infinity. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func clearNonFiniteState() {
        for step in steps {
            if let clear = step.operations.clearNonFinite { _unsafePerformance { clear(step.kernel) } }
        }
    }

    /// Continues the state of `old`'s steps in this plan's matching steps (filter memories,
    /// gain and pan ramps starting from the old current values), if `transfers` was computed
    /// against `old`. Real-time safe: copies a few hundred bytes.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    package func adoptState(from old: UnsafeMutablePointer<PlanCore>) {
        guard UnsafeMutableRawPointer(old) == transferSource else {
            // Compiled against another plan: nothing continues, so every filter fades in.
            for i in 0..<steps.count where steps[i].fadesIn {
                fadeIn[i] = LinearRamp(value: 0)
                fadeIn[i].setTarget(1, frames: fadeInFrames)
            }
            return
        }
        let oldSteps = old.pointee.steps
        for k in 0..<transfers.count {
            let t = transfers.baseAddress! + k
            guard t.pointee.source < oldSteps.count else { continue }
            let new = steps[t.pointee.step], previous = oldSteps[t.pointee.source]
            if let carry = new.operations.continueState {
                _unsafePerformance { carry(new.kernel, previous.kernel, UnsafeRawPointer(t)) }
            }
        }
    }

    /// Clears filter state and delay lines.
    package func reset() {
        for step in steps {
            if let reset = step.operations.reset { reset(step.kernel) }
        }
    }
}
