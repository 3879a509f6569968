import Foundation

/// Planar `Float` storage for a whole render held in memory (``RenderCapture``, the peaks of
/// `--normalize`'s trials): aligned to 2 MiB and marked for transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`), so filling a few megabytes takes a handful of page faults
/// instead of one per 4 KiB (measured here: the faults of 3 MB of fresh memory cost several
/// milliseconds, about what a render of 8 s of audio costs). Without huge pages it is plain
/// memory. Not for the real-time path.
package final class LargeSampleBuffer: @unchecked Sendable {
    /// Channels and frames per channel (channel c starts at `base + c · framesPerChannel`).
    package let channelCount: Int
    package let framesPerChannel: Int
    /// The first sample of channel 0.
    package let base: UnsafeMutablePointer<Float>

    static let hugePage = 2 << 20

    /// Uninitialised storage for `channelCount × framesPerChannel` samples; nil when the
    /// memory is not there.
    package init?(channelCount: Int, framesPerChannel: Int) {
        self.channelCount = channelCount; self.framesPerChannel = framesPerChannel
        let bytes = max(1, channelCount * framesPerChannel) * MemoryLayout<Float>.size
        var raw: UnsafeMutableRawPointer?
        let alignment = bytes >= Self.hugePage ? Self.hugePage : 64
        guard posix_memalign(&raw, alignment, bytes) == 0, let raw else { return nil }
        if bytes >= Self.hugePage { _ = madvise(raw, bytes, MADV_HUGEPAGE) }
        base = raw.bindMemory(to: Float.self, capacity: channelCount * framesPerChannel)
    }

    deinit { free(base) }

    /// Channel `c`'s first sample.
    package func channel(_ c: Int) -> UnsafeMutablePointer<Float> { base + c * framesPerChannel }
}
