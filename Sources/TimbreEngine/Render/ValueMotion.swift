import Atomics
import TimbreDSP

/// A live change of one number a kernel smooths itself — a gain node's gain, a pan node's
/// position: the control thread stores the new target (one atomic store, no plan compiled),
/// the kernel reads it at the start of each block and ramps to it as it ramps any change
/// (``GainKernel``'s and ``PanKernel``'s 25 ms linear ramps). One per node in a live plan,
/// living and dying with the plan.
package final class ValueMotion {
    let target: UnsafeAtomic<UInt64>

    package init(_ value: Double) { target = .create(value.bitPattern) }
    deinit { target.destroy() }

    /// Sets the target (control thread).
    package func set(_ value: Double) { target.store(value.bitPattern, ordering: .relaxed) }

    /// What the kernel holds: the atomic (a pointer; nothing retained on the audio thread).
    package var handle: Handle { Handle(target: target) }

    package struct Handle {
        let target: UnsafeAtomic<UInt64>
        /// The target's bits if they differ from `seen` (audio thread).
        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        @inline(__always)
        func changed(from seen: UInt64) -> UInt64? {
            let bits = target.load(ordering: .relaxed)
            return bits == seen ? nil : bits
        }
    }
}

/// A gain node in a live plan: ``GainKernel`` taking its target from a ``ValueMotion``.
struct MovingGainStep: RenderKernel {
    var kernel: GainKernel
    let motion: ValueMotion.Handle
    var seen: UInt64

    static let operations = KernelOperations(
        process: { k, b in
            let s = MovingGainStep.at(k)
            if let bits = s.pointee.motion.changed(from: s.pointee.seen) { s.pointee.seen = bits; s.pointee.kernel.setGain(Float(Double(bitPattern: bits))) }
            s.pointee.kernel.process(b.block.pointee.channels, channelCount: b.block.pointee.channelCount, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in MovingGainStep.at(new).pointee.kernel.continueFrom(MovingGainStep.at(old).pointee.kernel) })
}

/// A pan node in a live plan: ``PanKernel`` taking its position from a ``ValueMotion``.
struct MovingPanStep: RenderKernel {
    var kernel: PanKernel
    let motion: ValueMotion.Handle
    var seen: UInt64

    static let operations = KernelOperations(
        process: { k, b in
            let s = MovingPanStep.at(k)
            if let bits = s.pointee.motion.changed(from: s.pointee.seen) { s.pointee.seen = bits; s.pointee.kernel.setPan(Double(bitPattern: bits)) }
            s.pointee.kernel.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in MovingPanStep.at(new).pointee.kernel.continueFrom(MovingPanStep.at(old).pointee.kernel) })
}
