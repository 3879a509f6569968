import TimbreDSP

/// Stage 3: paths that meet at a bus are aligned in time. Each bus's arrival is the longest
/// path into it (a path's latency is the sum of its steps'). A path (a channel's, a group's or
/// an aux's) may feed several buses — its sends and its mix, steps next to each other that only
/// read it — and each of those junctions must reach its bus at that bus's arrival: the path's
/// junction steps are put in order of the delay each needs, with delays between them in place
/// (`[send 0] [delay d₁] [mix d₁] [delay d₂ − d₁] [send d₂]`), so every junction delivers exactly
/// on time and no bus's arrival moves. The plan's latency is the output's arrival plus the
/// output chain's latency.
package struct LatencyCompensation {
    package var steps: [PlannedStep]
    package var latencyFrames: Int

    package init(_ input: [PlannedStep], layout: GraphLayout) {
        var steps = input
        var segmentLatency: [Int: Int] = [:]
        for s in input { segmentLatency[s.segment, default: 0] += s.latency }
        var arrival: [Int: Int] = [:]   // bus segment → longest path into it
        func start(_ j: GraphLayout.Junction) -> Int { j.source.map { arrival[$0] ?? 0 } ?? 0 }
        // Junctions are listed channels, groups, auxes, outputs: one pass in order.
        for j in layout.junctions {
            arrival[j.target] = max(arrival[j.target] ?? 0, start(j) + (segmentLatency[j.segment] ?? 0))
        }
        let junctions = layout.junctions.filter { !$0.mixKey.isEmpty }
        for segment in Set(junctions.map(\.segment)).sorted() {
            let own = junctions.filter { $0.segment == segment }
            let needs = own.map { (junction: $0, delay: (arrival[$0.target] ?? 0) - start($0) - (segmentLatency[segment] ?? 0)) }
            guard needs.contains(where: { $0.delay > 0 }) else { continue }
            let keys = Set(own.map(\.mixKey))
            let at = steps.indices.filter { keys.contains(steps[$0].key) }
            guard let first = at.first, let last = at.last, at == Array(first...last) else {
                preconditionFailure("the junction steps of segment \(segment) are not next to each other")
            }
            var run: [PlannedStep] = [], done = 0
            for need in needs.sorted(by: { $0.delay < $1.delay }) {
                if need.delay > done {
                    let frames = need.delay - done
                    let width = need.junction.width
                    let recipe = KernelRecipe(shape: KernelShape("delay", [frames, width], carriesState: true)) { DelayLine(frames: frames, channelCount: width) }
                    run.append(PlannedStep(key: need.junction.delayKey, base: need.junction.base, channels: width, segment: segment, content: .kernel(recipe)))
                    done = need.delay
                }
                run.append(steps[at.first { steps[$0].key == need.junction.mixKey }!])
            }
            steps.replaceSubrange(first...last, with: run)
        }
        self.steps = steps
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
