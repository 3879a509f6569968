import Atomics

/// A wait-free triple buffer of fixed-size `Double` records: one writer (the audio thread)
/// publishes, one reader (the control thread) takes the newest, neither ever waits, and a
/// record is never read while it is written (no tearing, no data race: the slots change hands
/// through one atomic exchange with acquire/release ordering).
///
/// ```
/// writer: fill slot[back] ─▶ back = middle.exchange(back | fresh)      (hand it over)
/// reader: if middle has fresh: front = middle.exchange(front)           (take the newest)
///         read slot[front]
/// ```
/// Raw memory, freed by ``deallocate()`` on the control thread.
package struct SnapshotBuffer {
    package let recordSize: Int
    @usableFromInline let slots: UnsafeMutablePointer<Double>
    /// Index of the middle slot, with bit 2 set when it holds a record the reader has not taken.
    @usableFromInline let middle: UnsafeAtomic<Int>
    /// [back index (writer's), front index (reader's)].
    @usableFromInline let indices: UnsafeMutablePointer<Int>

    package init(recordSize: Int) {
        self.recordSize = recordSize
        slots = .allocate(capacity: 3 * recordSize)
        slots.initialize(repeating: 0, count: 3 * recordSize)
        middle = .create(1)
        indices = .allocate(capacity: 2)
        indices.initialize(from: [0, 2], count: 2)
    }

    package func deallocate() { slots.deallocate(); middle.destroy(); indices.deallocate() }

    /// The writer's slot, to fill before ``publish()``.
    @inlinable package var writeSlot: UnsafeMutablePointer<Double> { slots + indices[0] * recordSize }

    /// Hands the filled slot to the reader. Real-time safe (one atomic exchange).
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    @inlinable
    package func publish() {
        indices[0] = middle.exchange(indices[0] | 4, ordering: .acquiringAndReleasing) & 3
    }

    /// The newest published record (the previous one again if nothing new arrived).
    package func read() -> UnsafePointer<Double> {
        if middle.load(ordering: .relaxed) & 4 != 0 {
            indices[1] = middle.exchange(indices[1], ordering: .acquiringAndReleasing) & 3
        }
        return UnsafePointer(slots + indices[1] * recordSize)
    }
}
