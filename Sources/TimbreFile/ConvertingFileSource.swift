import Foundation
import TimbreDSP

/// A sound file as a stream of planar blocks, converted by a rational ratio: reads with
/// libsndfile, refuses non-finite samples (naming the frame), and converts the rate with the
/// band-limited ``Resampler`` when asked (pulling from the file exactly the frames each
/// output block needs). The converted stream is aligned with the file and has
/// ⌈N·L/M⌉ frames for N file frames.
public final class ConvertingFileSource {
    public let reader: SoundFileReader
    public let resampler: Resampler?
    public var channelCount: Int { reader.channelCount }
    /// Expected output frames (from libsndfile's count; 0 if unknown).
    public var expectedFrames: Int64 { resampler.map { $0.outputFrames(forInputFrames: reader.frameCount) } ?? reader.frameCount }

    let maximumFrames: Int
    let staging: [UnsafeMutablePointer<Float>]
    let stagingPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let stagingConst: UnsafeMutablePointer<UnsafePointer<Float>>
    /// File frames read so far; the file's length once `ended`.
    private(set) var fileFrames: Int64 = 0
    private var ended = false
    private var produced: Int64 = 0

    /// `ratio`: output frames per file frame (nil: no conversion). Throws a usage error when the
    /// ratio needs a bigger filter table than ``PolyphaseFilterBank/maximumCoefficients``.
    public init(reader: SoundFileReader, ratio: RationalRatio?, quality: ResamplerQuality, maximumFrames: Int) throws(RenderError) {
        self.reader = reader
        self.maximumFrames = maximumFrames
        if let ratio, ratio.upsampling != ratio.downsampling {
            guard let r = Resampler(ratio: ratio, channelCount: reader.channelCount, quality: quality, maximumOutputFrames: maximumFrames) else {
                throw .usage("\(reader.path): converting by \(ratio) (output/input frames) needs a filter table larger than \(PolyphaseFilterBank.maximumCoefficients) coefficients; choose a rate with a simpler ratio to \(Int(reader.sampleRate)) Hz")
            }
            resampler = r
        } else {
            resampler = nil
        }
        let capacity = resampler.map { $0.inputFramesNeeded(forOutputFrames: maximumFrames) + maximumFrames * $0.ratio.downsampling / $0.ratio.upsampling + 2 } ?? maximumFrames
        staging = (0..<reader.channelCount).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
        stagingPointers = .allocate(capacity: reader.channelCount)
        stagingConst = .allocate(capacity: reader.channelCount)
        for c in 0..<reader.channelCount { stagingPointers[c] = staging[c]; stagingConst[c] = UnsafePointer(staging[c]) }
    }

    deinit {
        resampler?.deallocate()
        staging.forEach { $0.deallocate() }
        stagingPointers.deallocate(); stagingConst.deallocate()
    }

    /// Reads up to `maxFrames` (≤ the `maximumFrames` it was built for) converted frames
    /// into `channels`; 0 at the end.
    public func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) throws(AudioFileError) -> Int {
        guard let resampler else { return try readFile(into: channels, frames: maxFrames) }
        var n = maxFrames
        if ended {
            let total = resampler.outputFrames(forInputFrames: fileFrames)
            n = Int(min(Int64(n), total - produced))
            if n <= 0 { return 0 }
        }
        let need = resampler.inputFramesNeeded(forOutputFrames: n)
        var got = 0
        if !ended {
            got = try readFile(into: stagingPointers, frames: need)
            if got < need {
                // The file ended inside this block: produce only what its length converts to.
                ended = true
                let total = resampler.outputFrames(forInputFrames: fileFrames)
                n = Int(min(Int64(n), total - produced))
                if n <= 0 { return 0 }
            }
        }
        // Every file frame read goes in; past the end of the file the filter reads silence.
        let count = max(got, resampler.inputFramesNeeded(forOutputFrames: n))
        for c in 0..<channelCount where count > got { (staging[c] + got).update(repeating: 0, count: count - got) }
        resampler.process(input: stagingConst, inputFrames: count, output: channels, outputFrames: n)
        produced += Int64(n)
        return n
    }

    /// Reads exactly `frames` file frames unless the file ends first; checks every sample is finite.
    private func readFile(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, frames: Int) throws(AudioFileError) -> Int {
        var got = 0
        while got < frames {
            let pointers = (0..<channelCount).map { channels[$0] + got }
            let n = try pointers.withUnsafeBufferPointer { (p) throws(AudioFileError) -> Int in
                try reader.read(into: p.baseAddress!, maxFrames: frames - got)
            }
            if n == 0 { break }
            for c in 0..<channelCount {
                if let i = NonFiniteScan.firstIndex(channels[c] + got, count: n) {
                    let frame = fileFrames + Int64(i)
                    throw AudioFileError(path: reader.path, String(
                        format: "frame %lld (channel %d, %.6f s) is %@: the input holds non-finite samples", frame, c + 1,
                        Double(frame) / reader.sampleRate, channels[c][got + i].isNaN ? "NaN" : "infinite"))
                }
            }
            got += n
            fileFrames += Int64(n)
        }
        if got < frames { ended = true }
        return got
    }
}
