import TimbreDSP

/// Stage 5: the plan's raw memory, allocated at once and freed in one place. Non-copyable: one
/// owner (the ``RenderPlan``), so nothing is freed twice or forgotten.
struct PlanStorage: ~Copyable {
    let core: UnsafeMutablePointer<PlanCore>
    private let releases: [() -> Void]

    /// Allocates every kernel and buffer of `steps` (all `.kernel` after fusion).
    init(steps: [PlannedStep], map: StateTransferMap, format: RenderFormat, outputBase: Int, outputChannelCount: Int,
         transferSource: UnsafeMutableRawPointer?) {
        var releases: [() -> Void] = []
        var workChannels = format.inputChannelCount
        let renderSteps = UnsafeMutableBufferPointer<RenderStep>.allocate(capacity: steps.count)
        for (i, step) in steps.enumerated() {
            guard let recipe = step.recipe else { preconditionFailure("step \(step.key) was not fused") }
            let made = recipe.make()
            releases.append(made.release)
            renderSteps.initializeElement(at: i, to: RenderStep(kernel: made.address, operations: made.operations, base: step.base,
                                                                channels: step.channels, fadesIn: recipe.fadesInWhenNew))
            workChannels = max(workChannels, step.base + max(step.channels, 2))
        }
        let transfers = UnsafeMutableBufferPointer<StateTransfer>.allocate(capacity: map.transfers.count)
        _ = transfers.initialize(from: map.transfers)
        // Channels 64 bytes more than a block apart: at power-of-two block sizes, buffers exactly
        // 4 KiB apart make loads and stores of a stereo pair alias in the CPU's store buffer
        // (measured: the 12-section cascade 5.8 → 4.6 ns per stereo frame with the padding).
        let stride = format.maxBlockFrames + 16
        func channelSet() -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: workChannels * stride)
            storage.initialize(repeating: 0, count: workChannels * stride)
            let set = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: workChannels)
            for c in 0..<workChannels { set[c] = storage + c * stride }
            releases.append { storage.deallocate(); set.deallocate() }
            return set
        }
        let fadeInFrames = max(1, Int(0.03 * format.sampleRate))
        let fadeIn = UnsafeMutableBufferPointer<LinearRamp>.allocate(capacity: steps.count)
        for i in 0..<steps.count {
            var ramp = LinearRamp(value: 1)
            if map.fadesIn[i] { ramp = LinearRamp(value: 0); ramp.setTarget(1, frames: fadeInFrames) }
            fadeIn.initializeElement(at: i, to: ramp)
        }
        core = .allocate(capacity: 1)
        core.initialize(to: PlanCore(
            inputChannelCount: format.inputChannelCount, outputChannelCount: outputChannelCount, maxBlockFrames: format.maxBlockFrames,
            outputBase: outputBase, steps: renderSteps, transfers: transfers, transferSource: transferSource,
            work: channelSet(), fadeIn: fadeIn, fadeInFrames: fadeInFrames,
            crossfadeFrames: max(1, Int(LiveEngine.crossfadeSeconds * format.sampleRate)), dry: channelSet()))
        releases.append { renderSteps.deallocate(); transfers.deallocate(); fadeIn.deallocate() }
        self.releases = releases
    }

    deinit {
        for release in releases { release() }
        core.deinitialize(count: 1)
        core.deallocate()
    }
}
