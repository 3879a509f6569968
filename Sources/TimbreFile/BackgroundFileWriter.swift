import Foundation

/// A ``SoundFileWriter`` on its own thread, so an offline render's encoding and file writes
/// (interleaving, dither, quantisation, libsndfile, the kernel's page-cache copy) overlap with
/// the processing of the next blocks instead of following it — the disk thread of a DAW's
/// export, on the second core. Output is byte-for-byte what the writer alone writes: the
/// blocks reach it in order, unchanged. The render's output analysis (peaks, loudness) can ride
/// along: `analyse` sees every block on the thread just before it is written.
///
/// Blocks are gathered into slots of at least 16,384 frames (one hand-over, one wake-up of the
/// thread per slot, not per block) in a ring of `depth` slots; ``write(_:frameCount:)`` waits
/// only when every slot is full. A write error on the thread is thrown by the next `write` or by
/// ``commit()``, and ``abort()`` deletes the temporary file as the writer's own does.
/// Not for the real-time path (it blocks on semaphores): offline rendering only.
package final class BackgroundFileWriter: @unchecked Sendable {
    /// The writer the thread feeds (its `clippedSamples` are final after ``commit()``); nil
    /// for a measuring render, whose thread only analyses.
    package let writer: SoundFileWriter?
    /// Called on the thread with each gathered run of frames, in order, before it is written.
    package typealias Analysis = (_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, _ frameCount: Int) -> Void
    private let analyse: Analysis?
    private let channelCount: Int
    private let slotFrames: Int
    private let depth: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Frames in each slot; −1 marks the end of the stream.
    private let counts: UnsafeMutablePointer<Int>
    /// Starts at 0 and is signalled `depth` times: libdispatch traps when a semaphore is freed
    /// below the value it was created with.
    private let freeSlots = DispatchSemaphore(value: 0)
    private let filledSlots = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var failure: AudioFileError?
    private var head = 0
    /// Frames gathered in the slot at `head`, not yet handed over.
    private var gathered = 0
    private var ended = false

    /// Starts the thread. `blockFrames` is the largest block `write` will be given; `depth`
    /// slots are kept (memory: depth × channels × max(blockFrames, 16,384) floats). What
    /// `analyse` accumulates is complete once ``commit()`` or ``abort()`` returns.
    package convenience init(writer: SoundFileWriter, blockFrames: Int, depth: Int = 4, analyse: Analysis? = nil) {
        self.init(writer: writer, channelCount: writer.channelCount, blockFrames: blockFrames, depth: depth, analyse: analyse)
    }

    /// `writer` nil: the thread only runs `analyse` (a measuring render's share of the meters).
    package init(writer: SoundFileWriter?, channelCount: Int, blockFrames: Int, depth: Int = 4, analyse: Analysis? = nil) {
        self.writer = writer
        self.analyse = analyse
        self.channelCount = channelCount
        slotFrames = max(blockFrames, 16_384)
        self.depth = depth
        storage = .allocate(capacity: depth * channelCount * slotFrames)
        counts = .allocate(capacity: depth)
        counts.initialize(repeating: 0, count: depth)
        for _ in 0..<depth { freeSlots.signal() }
        let thread = Thread { [self] in drain() }
        thread.name = "timbre-writer"
        thread.start()
    }

    deinit {
        storage.deallocate()
        counts.deallocate()
    }

    private func slot(_ index: Int, channel: Int) -> UnsafeMutablePointer<Float> {
        storage + (index * channelCount + channel) * slotFrames
    }

    private func drain() {
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
        defer { pointers.deallocate(); finished.signal() }
        var tail = 0
        while true {
            filledSlots.wait()
            let n = counts[tail]
            if n < 0 { return }
            lock.lock(); let failed = failure != nil; lock.unlock()
            if !failed {
                for c in 0..<channelCount { pointers[c] = slot(tail, channel: c) }
                analyse?(pointers, n)
                do { try writer?.write(pointers, frameCount: n) } catch {
                    lock.lock(); failure = error; lock.unlock()
                }
            }
            tail = (tail + 1) % depth
            freeSlots.signal()
        }
    }

    private func pendingFailure() -> AudioFileError? {
        lock.lock(); defer { lock.unlock() }
        return failure
    }

    /// Queues `frameCount` (≤ `blockFrames`) planar frames; throws an earlier write's error.
    package func write(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) throws(AudioFileError) {
        precondition(frameCount <= slotFrames && !ended, "BackgroundFileWriter: block larger than given at init, or written after the end")
        if let failure = pendingFailure() { throw failure }
        if gathered + frameCount > slotFrames { handOver(count: gathered) }
        // The slot at `head` is ours from the first frame gathered into it.
        if gathered == 0 { freeSlots.wait() }
        for c in 0..<channelCount { (slot(head, channel: c) + gathered).update(from: channels[c], count: frameCount) }
        gathered += frameCount
    }

    /// Hands the slot at `head` to the thread with `count` frames (−1: the end of the stream).
    private func handOver(count: Int) {
        counts[head] = count
        head = (head + 1) % depth
        gathered = 0
        filledSlots.signal()
    }

    /// Ends the stream and waits for the thread to write what is queued.
    private func finish() {
        guard !ended else { return }
        ended = true
        if gathered > 0 { handOver(count: gathered) }
        freeSlots.wait()
        handOver(count: -1)
        finished.wait()
    }

    /// Writes what is queued, then closes and renames the file (``SoundFileWriter/commit()``).
    package func commit() throws(AudioFileError) {
        finish()
        if let failure = pendingFailure() { writer?.abort(); throw failure }
        try writer?.commit()
    }

    /// Stops the thread and deletes the temporary file; the target is untouched.
    package func abort() {
        finish()
        writer?.abort()
    }
}
