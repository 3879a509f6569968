import Atomics

/// The render side of a recording: a single-producer single-consumer ring of planar Float
/// frames that the audio thread fills and a disk thread empties (jack_capture's design).
///
/// The audio thread calls ``capture(_:frameCount:)`` once a cycle. When the ring has no room
/// for a whole cycle the frames are dropped, counted, and the gap — its stream position and
/// length — is queued for the disk thread, which writes as many frames of silence there: the
/// take's timeline stays true and every overrun is reported, never dropped silently.
///
/// Stream positions count every frame offered (written or dropped) since the tap was enabled.
/// Ordering: the producer publishes a gap before the frames after it (releasing stores); the
/// consumer loads the ring position first and the gap queue second (acquiring), so a gap is
/// always seen before the frames that follow it.
///
/// Raw memory allocated in `init`, freed by ``deallocate()`` (after the audio thread let go):
/// `capture` allocates nothing, takes no lock and retains nothing.
package struct RecordingTap: @unchecked Sendable {
    package let channelCount: Int
    /// Frames the ring holds (a power of two).
    package let capacity: Int
    let storage: UnsafeMutablePointer<Float>
    /// Ring positions: frames written (producer stores) and read (consumer stores).
    let written: UnsafeAtomic<Int>
    let read: UnsafeAtomic<Int>
    /// Stream frames offered so far, written or dropped (producer stores).
    let offered: UnsafeAtomic<Int>
    let dropped: UnsafeAtomic<Int>
    let overrunCount: UnsafeAtomic<Int>
    /// 0: frames are ignored; 1: captured.
    let enabled: UnsafeAtomic<Int>
    /// Gap queue: (stream position, frames) pairs; `gapCapacity` of them.
    let gaps: UnsafeMutablePointer<Int>
    let gapsWritten: UnsafeAtomic<Int>
    let gapsRead: UnsafeAtomic<Int>
    static let gapCapacity = 1024
    /// The producer's open gap: [start, frames] (frames 0: none). Audio thread only.
    let openGap: UnsafeMutablePointer<Int>

    /// A ring of at least `frames` frames of `channelCount` channels.
    package init(channelCount: Int, frames: Int) {
        precondition(channelCount >= 1 && frames >= 1)
        var size = 1
        while size < frames { size <<= 1 }
        self.channelCount = channelCount; capacity = size
        storage = .allocate(capacity: channelCount * size)
        storage.initialize(repeating: 0, count: channelCount * size)
        written = .create(0); read = .create(0); offered = .create(0); dropped = .create(0); overrunCount = .create(0)
        enabled = .create(0)
        gaps = .allocate(capacity: 2 * Self.gapCapacity)
        gaps.initialize(repeating: 0, count: 2 * Self.gapCapacity)
        gapsWritten = .create(0); gapsRead = .create(0)
        openGap = .allocate(capacity: 2)
        openGap.initialize(repeating: 0, count: 2)
    }

    /// Frees the memory. Only once the audio thread can no longer call ``capture(_:frameCount:)``.
    package func deallocate() {
        storage.deallocate(); gaps.deallocate(); openGap.deallocate()
        written.destroy(); read.destroy(); offered.destroy(); dropped.destroy(); overrunCount.destroy(); enabled.destroy()
        gapsWritten.destroy(); gapsRead.destroy()
    }

    // MARK: Audio thread

    /// Copies `frameCount` frames of `channels` (at least ``channelCount`` of them) into the
    /// ring, or counts them as dropped when it has no room. Real-time safe.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    package func capture(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        guard enabled.load(ordering: .acquiring) != 0, frameCount > 0 else { return }
        let position = offered.load(ordering: .relaxed)
        let w = written.load(ordering: .relaxed)
        var fits = frameCount <= capacity - (w - read.load(ordering: .acquiring))
        if fits && openGap[1] > 0 {
            // Close the gap first; with the gap queue full the frames wait as part of it.
            let g = gapsWritten.load(ordering: .relaxed)
            if g - gapsRead.load(ordering: .acquiring) < Self.gapCapacity {
                let slot = (g % Self.gapCapacity) * 2
                gaps[slot] = openGap[0]; gaps[slot + 1] = openGap[1]
                gapsWritten.store(g + 1, ordering: .releasing)
                openGap[1] = 0
            } else {
                fits = false
            }
        }
        if fits {
            let mask = capacity - 1
            for c in 0..<channelCount {
                let ring = storage + c * capacity, src = channels[c]
                for i in 0..<frameCount { ring[(w + i) & mask] = src[i] }
            }
            written.store(w + frameCount, ordering: .releasing)
        } else {
            if openGap[1] == 0 { openGap[0] = position; overrunCount.wrappingIncrement(ordering: .relaxed) }
            openGap[1] += frameCount
            dropped.wrappingIncrement(by: frameCount, ordering: .relaxed)
        }
        offered.store(position + frameCount, ordering: .releasing)
    }

    // MARK: Control and disk side

    /// Starts (true) or stops (false) capturing. The stream position goes on from where it was.
    package func setEnabled(_ on: Bool) { enabled.store(on ? 1 : 0, ordering: .releasing) }

    /// Stream frames offered so far (written or dropped): the position "now".
    package var streamPosition: Int { offered.load(ordering: .acquiring) }
    /// Frames waiting in the ring.
    package var framesWaiting: Int { written.load(ordering: .acquiring) - read.load(ordering: .relaxed) }
    /// The ring's fill, 0…1.
    package var fill: Double { Double(framesWaiting) / Double(capacity) }
    /// Frames dropped because the ring was full, and how many times it was.
    package var droppedFrames: Int { dropped.load(ordering: .relaxed) }
    package var overruns: Int { overrunCount.load(ordering: .relaxed) }

    /// One piece of the stream for the disk thread: frames in the ring, or a gap of silence.
    package enum Piece: Equatable, Sendable {
        /// `frames` frames at the ring's read position (read them with ``copy(into:offset:frames:)``, then ``consume(_:)``).
        case frames(Int)
        /// A gap of `frames` frames (already taken off the queue).
        case gap(frames: Int)
        case nothing
    }

    /// What comes next at stream position `position` (the consumer's own count), at most
    /// `limit` frames.
    package func next(at position: Int, limit: Int) -> Piece {
        let available = written.load(ordering: .acquiring) - read.load(ordering: .relaxed)
        let g = gapsRead.load(ordering: .relaxed)
        if g < gapsWritten.load(ordering: .acquiring) {
            let slot = (g % Self.gapCapacity) * 2
            let start = gaps[slot], length = gaps[slot + 1]
            if start <= position {
                gapsRead.store(g + 1, ordering: .releasing)
                return .gap(frames: length)
            }
            let before = min(available, start - position, limit)
            return before > 0 ? .frames(before) : .nothing
        }
        let n = min(available, limit)
        return n > 0 ? .frames(n) : .nothing
    }

    /// Copies `frames` frames from the ring's read position into planar `channels` at `offset`.
    package func copy(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int = 0, frames: Int) {
        let r = read.load(ordering: .relaxed), mask = capacity - 1
        for c in 0..<channelCount {
            let ring = storage + c * capacity, dst = channels[c] + offset
            for i in 0..<frames { dst[i] = ring[(r + i) & mask] }
        }
    }

    /// Releases `frames` frames of the ring to the producer.
    package func consume(_ frames: Int) {
        read.store(read.load(ordering: .relaxed) + frames, ordering: .releasing)
    }
}
