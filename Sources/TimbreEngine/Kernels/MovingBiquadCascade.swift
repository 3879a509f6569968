import TimbreDSP

/// A fused ``BiquadCascade`` whose filter nodes can be moved live (``CoefficientMotion``):
/// what a live engine's plans run instead of the plain cascade. Without a motion in progress
/// a block is one call of the cascade, as offline; while one moves, the block is split at the
/// walk's sub-block boundaries (multiples of ``CoefficientMotion/subBlockFrames`` frames from
/// the cascade's start) and the moving sections step at each.
struct MovingBiquadCascade: RenderKernel, ~Copyable {
    let cascade: BiquadCascade
    let motions: UnsafeMutablePointer<CoefficientMotion.Handle>
    let motionCount: Int
    /// Channel pointers advanced within the block (one per channel).
    let shifted: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    var framesDone = 0

    init(cascade: consuming BiquadCascade, motions: [CoefficientMotion.Handle]) {
        shifted = .allocate(capacity: cascade.channelCount)
        self.cascade = cascade
        motionCount = motions.count
        self.motions = .allocate(capacity: max(1, motions.count))
        self.motions.initialize(from: motions, count: motions.count)
    }

    /// Frees the motions' handles and the pointers (the cascade frees itself).
    deinit {
        motions.deinitialize(count: motionCount); motions.deallocate()
        shifted.deallocate()
    }

    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    mutating func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        var active = false
        for m in 0..<motionCount where motions[m].isActive() { active = true }
        guard active else {
            cascade.process(channels, frameCount: frameCount)
            framesDone &+= frameCount
            return
        }
        let sub = CoefficientMotion.subBlockFrames
        var done = 0
        while done < frameCount {
            let phase = framesDone % sub
            if phase == 0 { for m in 0..<motionCount { motions[m].advance(cascade) } }
            let n = min(sub - phase, frameCount - done)
            for c in 0..<cascade.channelCount { shifted[c] = channels[c] + done }
            cascade.process(UnsafePointer(shifted), frameCount: n)
            done += n
            framesDone &+= n
        }
    }

    static let operations = KernelOperations(
        process: { k, b in MovingBiquadCascade.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, t in
            MovingBiquadCascade.at(new).pointee.cascade.copyState(from: MovingBiquadCascade.at(old).pointee.cascade, sections: t.transfer.pointee.from,
                                                                  to: t.transfer.pointee.to, count: t.transfer.pointee.count)
        },
        reset: { k in MovingBiquadCascade.at(k).pointee.cascade.reset() },
        clearNonFinite: { k in MovingBiquadCascade.at(k).pointee.cascade.clearNonFinite() })
}
