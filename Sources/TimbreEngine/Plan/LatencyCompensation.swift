import TimbreDSP

/// Stage 3: paths that meet at a bus are aligned in time. Each bus's arrival is the longest
/// path into it (a path's latency is the sum of its steps'); shorter paths get a delay before
/// their mix. The plan's latency is the output's arrival plus the output chain's latency.
package struct LatencyCompensation {
    package var steps: [PlannedStep]
    package var latencyFrames: Int

    package init(_ input: [PlannedStep], layout: GraphLayout) {
        steps = input
        var segmentLatency: [Int: Int] = [:]
        for s in input { segmentLatency[s.segment, default: 0] += s.latency }
        var arrival: [Int: Int] = [:]   // bus segment → longest path into it
        func start(_ j: GraphLayout.Junction) -> Int { j.source.map { arrival[$0] ?? 0 } ?? 0 }
        // Channels are laid out before groups, groups before master: one pass in order.
        for j in layout.junctions {
            arrival[j.target] = max(arrival[j.target] ?? 0, start(j) + (segmentLatency[j.segment] ?? 0))
        }
        for j in layout.junctions {
            let delay = (arrival[j.target] ?? 0) - start(j) - (segmentLatency[j.segment] ?? 0)
            guard delay > 0, let at = steps.firstIndex(where: { $0.key == j.mixKey }) else { continue }
            let recipe = KernelRecipe(shape: KernelShape("delay", [delay, 2], carriesState: true)) { DelayLine(frames: delay, channelCount: 2) }
            steps.insert(PlannedStep(key: j.delayKey, base: j.base, channels: 2, segment: j.segment, content: .kernel(recipe)), at: at)
        }
        latencyFrames = (layout.junctions.isEmpty ? 0 : arrival[layout.outputSegment] ?? 0) + (segmentLatency[layout.outputSegment] ?? 0)
    }
}

extension DelayLine: RenderKernel {
    package static let operations = KernelOperations(
        process: { k, b in DelayLine.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in DelayLine.at(new).pointee.continueState(from: DelayLine.at(old).pointee) },
        reset: { k in DelayLine.at(k).pointee.reset() },
        clearNonFinite: { k in DelayLine.at(k).pointee.clearNonFinite() })
}
