import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

/// `--normalize`'s trial passes: the normalising gain and the limiter after it, run over the
/// first pass's output kept in memory (a ``RenderCapture`` of the preset up to where the gain
/// goes) and measured by a loudness meter alone. No decoding, no preset, no true-peak or level
/// meters — and the limiter's detector runs once: the peaks of g·x are g times those of x, so
/// each trial hands the limiter the capture's peaks times its gain. The pass that writes the
/// file then renders everything from the input again and measures what it wrote. Trials and
/// the peak search run two at a time, one on each core (they share only read-only memory).
final class NormalizationTrials: @unchecked Sendable {
    let capture: RenderCapture
    let sampleRate: Double
    let settings: TruePeakLimiter.Settings
    let block: Int
    /// Per channel, each frame's peak (detector, or |x| on sample peak) of the capture followed
    /// by the limiter's latency in silence: `frames + latency` values a channel.
    private var peaks: LargeSampleBuffer?
    private let latency: Int

    /// `limiter`: the node that follows the gain (the preset's final `limiter`, or the inserted
    /// one). Nil when it is not a limiter.
    init?(capture: RenderCapture, sampleRate: Double, blockFrames: Int, limiter: NodeSpec) {
        guard let s = limiter.kind.settings(as: LimiterSettings.self) else { return nil }
        self.capture = capture; self.sampleRate = sampleRate; settings = s.kernelSettings
        block = max(blockFrames, 4096)
        let lookahead = max(1, Int((settings.lookaheadSeconds * sampleRate).rounded()))
        latency = TruePeakLimiter.latencyFrames(lookaheadFrames: lookahead, samplePeak: settings.samplePeak)
    }

    /// The capture's peaks as the limiter's detector finds them (once, on the first trial), in
    /// two halves on two threads: the second half's detector first reads the 256 frames before
    /// it (its state is the last 63 samples and two magnitudes found from them), so its peaks
    /// are the ones a single pass finds.
    private func findPeaks() -> Bool {
        let channelCount = capture.channelCount, frames = capture.frameCount, total = frames + latency
        guard let found = LargeSampleBuffer(channelCount: channelCount, framesPerChannel: total) else { return false }
        defer { peaks = found }
        if settings.samplePeak {
            for c in 0..<channelCount {
                let x = capture.channel(c), p = found.channel(c)
                for i in 0..<frames { p[i] = abs(x[i]) }
                (p + frames).update(repeating: 0, count: latency)
            }
            return true
        }
        let half = total / 2, warmUp = 256
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            let start = part == 0 ? 0 : max(0, half - warmUp), from = part == 0 ? 0 : half, end = part == 0 ? half : total
            let detector = InterSamplePeakDetector(channelCount: channelCount)
            let input = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block), out = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block)
            let inRows = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
            defer { detector.deallocate(); input.deallocate(); out.deallocate(); inRows.deallocate() }
            for c in 0..<channelCount { inRows[c] = input + c * block }
            var position = start
            while position < end {
                let n = min(block, end - position)
                fill(inRows, from: position, count: n, gain: 1)
                detector.process(inRows, frameCount: n, into: out, stride: block)
                // Only the part's own frames are kept (not the warm-up's).
                let skip = max(0, from - position)
                for c in 0..<channelCount { (found.channel(c) + position + skip).update(from: out + c * block + skip, count: n - skip) }
                position += n
            }
        }
        return true
    }

    /// `rows[c][0..<count]` = gain × the capture from frame `position` (silence past its end).
    private func fill(_ rows: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, from position: Int, count: Int, gain: Float) {
        let frames = capture.frameCount, real = max(0, min(count, frames - position))
        for c in 0..<capture.channelCount {
            let row = rows[c], x = capture.channel(c) + position
            for i in 0..<real { row[i] = gain * x[i] }
            if real < count { (row + real).update(repeating: 0, count: count - real) }
        }
    }

    /// ``run(gainDB:)`` for each gain, two at a time on two threads.
    func run(gainsDB: [Double]) -> [Double] {
        if peaks == nil && !findPeaks() { return gainsDB.map { _ in -Double.infinity } }
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Double>.allocate(capacity: gainsDB.count)  // each trial its own slot
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: gainsDB.count) { k in results[k] = run(gainDB: gainsDB[k]) }
        return Array(results)
    }

    /// The capture's integrated loudness after a gain of `gainDB` and the limiter. (The peaks
    /// must have been found: ``run(gainsDB:)`` finds them.)
    private func run(gainDB: Double) -> Double {
        let channelCount = capture.channelCount, total = capture.frameCount + latency, peaks = peaks!
        let gain = Float(pow(10, gainDB / 20))
        let limiter = TruePeakLimiter(settings: settings, sampleRate: sampleRate, channelCount: channelCount, maximumBlockFrames: block)
        let meter = LoudnessMeter(sampleRate: sampleRate, channelCount: channelCount)
        let audio = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block), scaled = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block)
        let rows = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
        let view = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
        defer { limiter.deallocate(); meter.deallocate(); audio.deallocate(); scaled.deallocate(); rows.deallocate(); view.deallocate() }
        for c in 0..<channelCount { rows[c] = audio + c * block }
        let previousMXCSR = DenormalGuard.enable()
        defer { DenormalGuard.restore(previousMXCSR) }
        // The limiter's latency is taken out as the file render does: its first output frames
        // dropped, as many silent frames fed after the capture.
        var position = 0, skip = latency
        while position < total {
            let n = min(block, total - position)
            fill(rows, from: position, count: n, gain: gain)
            for c in 0..<channelCount {
                let to = scaled + c * block
                let p = peaks.channel(c) + position
                for i in 0..<n { to[i] = gain * p[i] }
            }
            limiter.process(rows, frameCount: n, peaks: scaled, stride: block)
            position += n
            let dropped = min(skip, n)
            skip -= dropped
            if n > dropped {
                for c in 0..<channelCount { view[c] = rows[c] + dropped }
                meter.process(view, frameCount: n - dropped)
            }
        }
        return meter.integratedLUFS
    }
}
