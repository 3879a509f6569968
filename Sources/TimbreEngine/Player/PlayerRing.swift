import Atomics

/// A single-producer single-consumer ring of planar Float frames: the file side (a prefetch
/// thread live, the renderer's loop offline) writes, the render side reads. Positions are
/// monotonic frame counts; the writer publishes with a releasing store and the reader
/// acquires, so frames are complete before they are seen. Raw memory; no locks, no allocation
/// after `init`. Freed by its owner (``PlayerState``).
package struct PlayerRing: @unchecked Sendable {
    package let channelCount: Int
    /// Frames it holds at most (a power of two).
    package let capacity: Int
    let storage: UnsafeMutablePointer<Float>
    /// Frames written so far (writer stores, reader loads).
    let written: UnsafeAtomic<Int>
    /// Frames read so far (reader stores, writer loads).
    let read: UnsafeAtomic<Int>

    init(channelCount: Int, capacity: Int) {
        var size = 1
        while size < capacity { size <<= 1 }
        self.channelCount = channelCount; self.capacity = size
        storage = .allocate(capacity: channelCount * size)
        storage.initialize(repeating: 0, count: channelCount * size)
        written = .create(0); read = .create(0)
    }

    func deallocate() { storage.deallocate(); written.destroy(); read.destroy() }

    /// Frames the writer may add now.
    package var freeFrames: Int { capacity - (written.load(ordering: .relaxed) - read.load(ordering: .acquiring)) }

    /// Frames written in all (the writer's position).
    package var framesWritten: Int { written.load(ordering: .acquiring) }

    /// Frames read in all (the reader's position: the frames played).
    package var framesRead: Int { read.load(ordering: .acquiring) }

    /// Appends `frameCount` (≤ ``freeFrames``) frames from `channels`. Writer side only.
    package func write(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let w = written.load(ordering: .relaxed)
        precondition(frameCount <= capacity - (w - read.load(ordering: .acquiring)), "PlayerRing overflow")
        let mask = capacity - 1
        for c in 0..<channelCount {
            let ring = storage + c * capacity, src = channels[c]
            for i in 0..<frameCount { ring[(w + i) & mask] = src[i] }
        }
        written.store(w + frameCount, ordering: .releasing)
    }

    /// Moves up to `frameCount` frames into `channels` from frame `offset` on, at most up to
    /// ring position `limit`; returns how many were there. Reader side.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func take(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int = 0, frameCount: Int, limit: Int = .max) -> Int {
        let r = read.load(ordering: .relaxed)
        let n = max(0, min(frameCount, min(written.load(ordering: .acquiring), limit) - r))
        let mask = capacity - 1
        for c in 0..<channelCount {
            let ring = storage + c * capacity, dst = channels[c] + offset
            for i in 0..<n { dst[i] = ring[(r + i) & mask] }
        }
        read.store(r + n, ordering: .releasing)
        return n
    }

    /// Drops the frames before ring position `position` (a seek's cut). Reader side.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func skip(to position: Int) {
        if read.load(ordering: .relaxed) < position { read.store(position, ordering: .releasing) }
    }
}
