/// Planar Float buffers for a pipeline stage: `channelCount` channels of `capacity` frames,
/// with the two pointer arrays kernels take (writable and read-only views of the same memory).
final class PlanarStaging {
    let channels: [UnsafeMutablePointer<Float>]
    /// Writable channel pointers (what a source reads into).
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// Read-only channel pointers (what a kernel reads from).
    let readOnly: UnsafeMutablePointer<UnsafePointer<Float>>

    init(channelCount: Int, capacity: Int) {
        channels = (0..<channelCount).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
        pointers = .allocate(capacity: channelCount)
        readOnly = .allocate(capacity: channelCount)
        for c in 0..<channelCount { pointers[c] = channels[c]; readOnly[c] = UnsafePointer(channels[c]) }
    }

    deinit {
        channels.forEach { $0.deallocate() }
        pointers.deallocate(); readOnly.deallocate()
    }
}
