import Foundation

/// A render's output kept in memory, planar `Float`, up to a budget: what `--normalize`'s
/// trial passes run the normalising gain and limiter over, instead of decoding and rendering
/// the input again for every trial.
///
/// Past the budget the capture stops, frees what it held and says so (``overflowed``); the
/// caller then renders from the files as before. Not for the real-time path.
public final class RenderCapture {
    /// Bytes the capture may hold.
    public let byteBudget: Int
    /// The captured channels (empty after an overflow).
    public private(set) var channels: [[Float]] = []
    /// True when the output did not fit ``byteBudget``.
    public private(set) var overflowed = false

    /// Frames captured.
    public var frameCount: Int { channels.first?.count ?? 0 }

    /// 512 MiB by default: 23 minutes of 48 kHz stereo.
    public init(byteBudget: Int = 512 << 20) { self.byteBudget = byteBudget }

    /// Frames the render expects (the input's length), reserved at the first block so that the
    /// channels are not copied as they grow; 0 when not known.
    var expectedFrames = 0

    /// Appends `frameCount` frames of `channelCount` planar channels.
    func append(_ view: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        guard !overflowed else { return }
        if channels.isEmpty {
            channels = Array(repeating: [], count: channelCount)
            let reserve = min(expectedFrames, byteBudget / max(1, channelCount * MemoryLayout<Float>.size))
            if reserve > 0 { for c in 0..<channelCount { channels[c].reserveCapacity(reserve) } }
        }
        guard (self.frameCount + frameCount) * channelCount * MemoryLayout<Float>.size <= byteBudget else {
            overflowed = true
            channels = []
            return
        }
        for c in 0..<channelCount { channels[c].append(contentsOf: UnsafeBufferPointer(start: view[c], count: frameCount)) }
    }
}
