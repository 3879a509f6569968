import TimbreDSP

/// The render-side view of a compiled plan: raw memory only, so the audio thread can use it
/// through a pointer without reference counting. Owned (allocated and freed) by ``RenderPlan``
/// on the control thread.
///
/// ```
///  input[c] ──copy──▶ work[0..<workChannels] ──node 0──▶ … ──node N──▶ copy ──▶ output[c]
/// ```
public struct PlanCore {
    public let inputChannelCount: Int
    public let outputChannelCount: Int
    public let maxBlockFrames: Int
    /// The first work channel copied to the output (the master bus of a graph; 0 for a chain).
    let outputBase: Int
    let nodes: UnsafeMutableBufferPointer<RenderNode>
    /// Channel count flowing into each node (2 after a mono→stereo pan).
    let channelsIn: UnsafeMutableBufferPointer<Int>
    /// The first work channel each node works on.
    let bases: UnsafeMutableBufferPointer<Int>
    /// For each node, the index of the node in `transferSource` whose state it continues, or −1.
    let transfer: UnsafeMutableBufferPointer<Int>
    /// Biquad cascades continue member by member (``CascadeTransfer``), against the same plan.
    let cascadeTransfers: UnsafeMutableBufferPointer<CascadeTransfer>
    /// The plan `transfer` was computed against (identity only, never dereferenced unless equal).
    let transferSource: UnsafeMutableRawPointer?
    let work: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let workStorage: UnsafeMutablePointer<Float>
    /// Wet/dry ramps for filters that join a running stream without a predecessor's state
    /// (inserted nodes, or a plan that could not continue the old one): they fade in over
    /// ``fadeInFrames`` so the transient of a filter starting from silence is not heard.
    let fadeIn: UnsafeMutableBufferPointer<LinearRamp>
    let fadeInFrames: Int
    let dry: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let dryStorage: UnsafeMutablePointer<Float>
    /// Blocks rendered (the stamp shared nodes see when no `sequence` is given).
    var blocksDone = 0

    /// Renders `frameCount` frames from `input` (`inputChannelCount` planar channels) to
    /// `output` (`outputChannelCount` planar channels). Splits at `maxBlockFrames`.
    ///
    /// Non-finite guard: after each block the output is scanned for NaN/±inf
    /// (``NonFiniteScan``, integer ops, ~0.1 ns a sample). A poisoned block is output as
    /// silence and every filter whose memory holds a non-finite value (the ones the bad
    /// samples reached) is cleared, so the graph recovers on the next block of finite input.
    /// Returns the number of blocks silenced this way. `analyse: false` skips the analysis
    /// nodes (a plan fading out must not feed the measurements its successor shares).
    /// `sequence`: the host's block number, the same for every plan rendering that block, so a
    /// shared node (`pitch`) runs once per block however many plans render it (see ``PitchKernel``).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @discardableResult
    public mutating func render(input: UnsafePointer<UnsafePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int,
                                analyse: Bool = true, sequence: Int? = nil) -> Int {
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
            for i in 0..<nodes.count {
                let at = UnsafePointer(work + bases[i])
                switch nodes[i] {
                case .biquads(let k):
                    if fadeIn[i].isRamping {
                        let channels = k.channelCount
                        for c in 0..<channels { let w = at[c], d = dry[c]; for j in 0..<n { d[j] = w[j] } }
                        k.process(at, frameCount: n)
                        for c in 0..<channels {
                            let w = at[c], d = dry[c]
                            fadeIn[i].crossfade(from: d, to: w, into: w, count: n)
                        }
                        fadeIn[i].advance(by: n)
                    } else {
                        k.process(at, frameCount: n)
                    }
                case .gain(var k):
                    k.process(at, channelCount: channelsIn[i], frameCount: n)
                    nodes[i] = .gain(k)
                case .pan(var k):
                    k.process(at, frameCount: n)
                    nodes[i] = .pan(k)
                case .copy(let from):
                    let src = work[from], dst = at[0]
                    for j in 0..<n { dst[j] = src[j] }
                case .sine(var g):
                    g.generate(into: at[0], frameCount: n)
                    nodes[i] = .sine(g)
                case .clear(let count):
                    for c in 0..<count { let w = at[c]; for j in 0..<n { w[j] = 0 } }
                case .mix(let to, let count, var gain):
                    for c in 0..<count { gain.accumulate(from: at[c], into: work[to + c], count: n) }
                    gain.advance(by: n)
                    nodes[i] = .mix(to: to, count: count, gain: gain)
                case .analysis(let k):
                    if analyse { k.pointee.process(at, frameCount: n) }
                case .pitch(let k, let semitones):
                    k.process(at, semitones: semitones, frameCount: n, stamp: stamp)
                case .delay(let d):
                    d.process(at, frameCount: n)
                case .player(let k):
                    k.pointee.process(at, frameCount: n, stamp: stamp)
                case .plugin(let k):
                    k.process(at, frameCount: n, stamp: stamp)
                }
            }
            var poisoned = false
            for c in 0..<outputChannelCount where NonFiniteScan.contains(work[outputBase + c], count: n) { poisoned = true }
            if poisoned {
                silenced += 1
                clearNonFiniteState()
                for c in 0..<outputChannelCount { let w = work[outputBase + c]; for j in 0..<n { w[j] = 0 } }
            }
            for c in 0..<outputChannelCount {
                let src = work[outputBase + c], dst = output[c] + done
                for i in 0..<n { dst[i] = src[i] }
            }
            done += n
        }
        return silenced
    }

    /// Clears the memory of every filter that holds NaN or infinity. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func clearNonFiniteState() {
        for i in 0..<nodes.count {
            if case .biquads(let k) = nodes[i], k.hasNonFiniteState { k.reset() }
        }
    }

    /// Continues the state of `old`'s nodes in this plan's matching nodes (filter memories,
    /// gain and pan ramps starting from the old current values), if `transfer` was computed
    /// against `old`. Real-time safe: copies a few hundred bytes.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    public func adoptState(from old: UnsafeMutablePointer<PlanCore>) {
        guard UnsafeMutableRawPointer(old) == transferSource else {
            // Compiled against another plan: nothing continues, so every filter fades in.
            for i in 0..<nodes.count {
                if case .biquads = nodes[i] {
                    fadeIn[i] = LinearRamp(value: 0)
                    fadeIn[i].setTarget(1, frames: fadeInFrames)
                }
            }
            return
        }
        for t in cascadeTransfers where t.source < old.pointee.nodes.count {
            if case .biquads(let new) = nodes[t.node], case .biquads(let previous) = old.pointee.nodes[t.source] {
                new.copyState(from: previous, sections: t.from, to: t.to, count: t.sections)
            }
        }
        for i in 0..<nodes.count {
            let j = transfer[i]
            if j < 0 || j >= old.pointee.nodes.count { continue }
            switch (nodes[i], old.pointee.nodes[j]) {
            case (.gain(var new), .gain(let previous)):
                new.continueFrom(previous)
                nodes[i] = .gain(new)
            case (.pan(var new), .pan(let previous)):
                new.continueFrom(previous)
                nodes[i] = .pan(new)
            case (.sine(var new), .sine(let previous)):
                new.phase = previous.phase
                nodes[i] = .sine(new)
            case (.delay(let new), .delay(let previous)):
                new.copyState(from: previous)
            case (.mix(let to, let count, let gain), .mix(_, _, let previous)):
                var ramp = LinearRamp(value: previous.current)
                ramp.setTarget(gain.target, frames: fadeInFrames)
                nodes[i] = .mix(to: to, count: count, gain: ramp)
            default:
                break
            }
        }
    }

    /// Clears filter state and delay lines.
    public func reset() {
        for node in nodes {
            if case .biquads(let k) = node { k.reset() }
            if case .delay(let d) = node { d.reset() }
        }
    }
}
