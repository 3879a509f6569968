import Atomics

/// Short MIDI messages from the process callback to the control thread: a single-producer,
/// single-consumer ring of messages of 1–3 bytes packed in a `UInt32` (status, data 1, data 2,
/// length). Fixed capacity, allocated up front; when full, a message is dropped and counted
/// (the control side coalesces controller moves, so a flood costs only what it drops).
struct MIDIEventRing {
    let storage: UnsafeMutablePointer<UInt32>
    let capacity: Int
    let head: UnsafeAtomic<Int>   // written by the audio thread
    let tail: UnsafeAtomic<Int>   // written by the control thread
    let dropped: UnsafeAtomic<Int>

    init(capacity: Int) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "a power of two")
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
        self.capacity = capacity
        head = .create(0); tail = .create(0); dropped = .create(0)
    }

    func deallocate() {
        storage.deallocate(); head.destroy(); tail.destroy(); dropped.destroy()
    }

    /// Audio thread: queues one message (`bytes` of `count` 1…3). No allocation, no lock.
    func push(_ bytes: UnsafePointer<UInt8>, count: Int) {
        let h = head.load(ordering: .relaxed)
        guard h - tail.load(ordering: .acquiring) < capacity else { dropped.wrappingIncrement(ordering: .relaxed); return }
        var packed = UInt32(count) << 24 | UInt32(bytes[0])
        if count > 1 { packed |= UInt32(bytes[1]) << 8 }
        if count > 2 { packed |= UInt32(bytes[2]) << 16 }
        storage[h & (capacity - 1)] = packed
        head.store(h + 1, ordering: .releasing)
    }

    /// Control thread: every message waiting, oldest first, as byte arrays.
    func drain() -> [[UInt8]] {
        let t = tail.load(ordering: .relaxed), h = head.load(ordering: .acquiring)
        var out: [[UInt8]] = []
        out.reserveCapacity(h - t)
        for k in t..<h {
            let packed = storage[k & (capacity - 1)]
            let count = Int(packed >> 24)
            out.append((0..<count).map { UInt8(truncatingIfNeeded: packed >> (8 * UInt32($0))) })
        }
        tail.store(h, ordering: .releasing)
        return out
    }
}
