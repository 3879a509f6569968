import Foundation

/// A render's output kept in memory, planar `Float`, up to a budget: what `--normalize`'s
/// trial passes run the normalising gain and limiter over, instead of decoding and rendering
/// the input again for every trial.
///
/// Past the budget the capture stops, frees what it held and says so (``overflowed``); the
/// caller then renders from the files as before. Not for the real-time path.
public final class RenderCapture: @unchecked Sendable {
    /// Bytes the capture may hold.
    public let byteBudget: Int
    /// True when the output did not fit ``byteBudget``.
    public private(set) var overflowed = false
    /// Frames captured.
    public private(set) var frameCount = 0
    /// Channels captured (0 before the first block and after an overflow).
    public var channelCount: Int { storage?.channelCount ?? 0 }
    private var storage: LargeSampleBuffer?

    /// 512 MiB by default: 23 minutes of 48 kHz stereo.
    public init(byteBudget: Int = 512 << 20) { self.byteBudget = byteBudget }

    /// Frames the render expects (the input's length): the storage is sized for them at the
    /// first block, so it is not copied as it grows; 0 when not known.
    var expectedFrames = 0

    /// Channel `c`'s captured samples (``frameCount`` of them), valid while the capture lives.
    public func channel(_ c: Int) -> UnsafePointer<Float> { UnsafePointer(storage!.channel(c)) }

    /// The captured channels, copied out.
    public var channels: [[Float]] { (0..<channelCount).map { Array(UnsafeBufferPointer(start: channel($0), count: frameCount)) } }

    /// Appends `frameCount` frames of `channelCount` planar channels.
    func append(_ view: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount n: Int) {
        guard !overflowed else { return }
        let needed = frameCount + n
        guard needed * channelCount * MemoryLayout<Float>.size <= byteBudget else {
            overflowed = true; storage = nil; frameCount = 0
            return
        }
        if storage == nil || storage!.framesPerChannel < needed {
            // Room for the expected length at once, else twice what is needed (within the budget).
            let most = byteBudget / (channelCount * MemoryLayout<Float>.size)
            let frames = min(most, max(needed, expectedFrames, 2 * (storage?.framesPerChannel ?? 0), 65_536))
            guard let grown = LargeSampleBuffer(channelCount: channelCount, framesPerChannel: frames) else {
                overflowed = true; storage = nil; frameCount = 0
                return
            }
            if let old = storage { for c in 0..<channelCount { grown.channel(c).update(from: old.channel(c), count: frameCount) } }
            storage = grown
        }
        for c in 0..<channelCount { (storage!.channel(c) + frameCount).update(from: view[c], count: n) }
        frameCount = needed
    }
}
