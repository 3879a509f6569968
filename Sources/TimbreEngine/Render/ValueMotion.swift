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

/// Several numbers a kernel takes together (a compressor's threshold, ratio, knee, makeup,
/// attack, release and link): the control thread stores them under a sequence count (odd while
/// it writes), the kernel reads them at the start of a block and keeps them only when the count
/// was even and unchanged across the read — a set is never seen half written, and the kernel
/// never waits (a read that overlaps a write is simply taken at the next block).
package final class ValuesMotion {
    let sequence: UnsafeAtomic<Int>
    let values: UnsafeMutablePointer<UnsafeAtomic<UInt64>>
    package let count: Int

    package init(_ initial: [Double]) {
        count = initial.count
        sequence = .create(0)
        values = .allocate(capacity: max(1, count))
        for (k, v) in initial.enumerated() { (values + k).initialize(to: .create(v.bitPattern)) }
    }

    deinit {
        sequence.destroy()
        for k in 0..<count { values[k].destroy() }
        values.deallocate()
    }

    /// Stores a new set (control thread; `new.count` == `count`).
    package func set(_ new: [Double]) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s + 1, ordering: .sequentiallyConsistent)
        for (k, v) in new.prefix(count).enumerated() { values[k].store(v.bitPattern, ordering: .sequentiallyConsistent) }
        sequence.store(s + 2, ordering: .sequentiallyConsistent)
    }

    package var handle: Handle { Handle(sequence: sequence, values: values, count: count) }

    /// What a kernel keeps of this motion (made on the control thread; the kernel frees its
    /// room with ``Follower/deallocate()`` when its plan is released).
    package func makeFollower() -> Follower { Follower(handle: handle, values: .allocate(capacity: max(1, count))) }

    /// A kernel's side: the handle, the sequence count last taken, and room for one set.
    package struct Follower {
        let handle: Handle
        var seen = 0
        let values: UnsafeMutablePointer<Double>

        /// The set written since the last one taken, if any (audio thread; ``Handle/read(newerThan:into:)``).
        mutating func next() -> UnsafePointer<Double>? {
            guard let s = handle.read(newerThan: seen, into: values) else { return nil }
            seen = s
            return UnsafePointer(values)
        }

        func deallocate() { values.deallocate() }
    }

    package struct Handle {
        let sequence: UnsafeAtomic<Int>
        let values: UnsafeMutablePointer<UnsafeAtomic<UInt64>>
        let count: Int

        /// Copies a complete new set into `into` and returns its sequence count, or nil when
        /// nothing new was written since `seen` (or a write is under way). Audio thread.
        #if TIMBRE_REALTIME_CHECKS
        @_noLocks
        #endif
        func read(newerThan seen: Int, into: UnsafeMutablePointer<Double>) -> Int? {
            let s1 = sequence.load(ordering: .sequentiallyConsistent)
            guard s1 != seen, s1 & 1 == 0 else { return nil }
            for k in 0..<count { into[k] = Double(bitPattern: values[k].load(ordering: .sequentiallyConsistent)) }
            return sequence.load(ordering: .sequentiallyConsistent) == s1 ? s1 : nil
        }
    }
}
