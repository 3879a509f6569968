import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile

/// `--normalize`'s trials: the normalising gain and the limiter after it, run over the first
/// pass's output kept in memory (a ``RenderCapture`` of the preset up to where the gain goes)
/// and measured by a loudness meter alone — no decoding, no preset, no true-peak or level
/// meters. The limiter's first stage runs once for them all: each gain row's peaks, held over
/// the limiter's span (``PeakHold``), are found once, and the held peaks of g·x are g times
/// those of x, so a trial runs only the limiter's smoothing (``TruePeakLimiter/gains(fromHeldPeaks:stride:frameCount:)``)
/// on them and multiplies the delayed capture by its gains (``LimitedCaptureSource``). The
/// pass that writes the file reads the winning gain's output from the same source, replaying
/// the gains its trial worked out (kept while they fit ``recordingBudget``) rather than working
/// them out again. Trials and the peak search run two at a time, one on each core (they share
/// only read-only memory).
package final class NormalizationTrials: @unchecked Sendable {
    package let capture: RenderCapture
    package let sampleRate: Double
    /// The channels' BS.1770 weights (nil: the usual layout's).
    let weights: [Double]?
    package let settings: TruePeakLimiter.Settings
    package let block: Int
    /// Per gain row (one with a linked gain), each frame's held peak: the capture's frames
    /// followed by the limiter's latency in silence, `frames + latency` values a row.
    package private(set) var heldPeaks: LargeSampleBuffer?
    package let latency: Int
    package let rows: Int
    /// Each trial's loudness meter and limiter gains, by gain, until ``keep(gainDB:)``: the
    /// written pass's audio is a trial's, sample for sample; it takes its loudness from that
    /// trial's meter and its limiter's gains from the trial's recording.
    private var results: [Double: TrialResult] = [:]
    /// The most a trial's recorded gains may take (a row of `frames + latency` values per gain
    /// row; two trials and the best so far live at once); past it the written pass works its
    /// gains out again.
    package static let recordingBudget = 128 << 20

    /// What a trial leaves: its meter, and the limiter's gains it worked out with the deepest
    /// limiting among them (nil when over the budget).
    package struct TrialResult {
        /// Empty once handed over (``takeMeter(gainDB:)``).
        package let meter: KernelBox<LoudnessMeter>
        package let recording: LargeSampleBuffer?
        package let limitingDB: Double
    }

    /// `limiter`: the node that follows the gain (the preset's final `limiter`, or the inserted
    /// one). Nil when it is not a limiter.
    /// `layout`: the output's channels, whose BS.1770 weights the meters use.
    package init?(capture: RenderCapture, sampleRate: Double, blockFrames: Int, limiter: NodeSpec, layout: ChannelLayout? = nil) {
        guard let s = limiter.kind.settings(as: LimiterSettings.self) else { return nil }
        self.capture = capture; self.sampleRate = sampleRate; settings = s.kernelSettings
        weights = layout.flatMap { $0.channelCount == capture.channelCount ? $0.loudnessWeights : nil }
        block = max(blockFrames, 4096)
        // The limiter's own latency and gain rows (one when linked), from one made as the trials make theirs.
        let probe = TruePeakLimiter(settings: settings, sampleRate: sampleRate, channelCount: capture.channelCount, maximumBlockFrames: 1)
        latency = probe.latencyFrames; rows = probe.gainRows
    }

    /// A limiter as the trials and the written pass run it.
    package func makeLimiter() -> TruePeakLimiter {
        TruePeakLimiter(settings: settings, sampleRate: sampleRate, channelCount: capture.channelCount, maximumBlockFrames: block)
    }

    /// The capture's held peaks as the limiter finds them (once, on the first trial), in two
    /// halves on two threads: the second half first reads the 256 + H frames before it (the
    /// detector's state is the last 63 samples and two magnitudes found from them; the hold's,
    /// the last H peaks), so its values are the ones a single pass finds.
    private func findHeldPeaks() -> Bool {
        let channelCount = capture.channelCount, frames = capture.frameCount, total = frames + latency
        guard let found = LargeSampleBuffer(channelCount: rows, framesPerChannel: total) else { return false }
        defer { heldPeaks = found }
        let half = total / 2
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            let limiter = makeLimiter()
            let start = part == 0 ? 0 : max(0, half - 256 - limiter.holdSpan), from = part == 0 ? 0 : half, end = part == 0 ? half : total
            let detector = InterSamplePeakDetector(channelCount: channelCount)
            let holds = UnsafeMutablePointer<PeakHold>.allocate(capacity: rows)
            for r in 0..<rows { (holds + r).initialize(to: PeakHold(span: limiter.holdSpan)) }
            let input = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block), peaks = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block)
            let rowPeaks = UnsafeMutablePointer<Float>.allocate(capacity: rows * block)
            let inRows = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
            defer {
                holds.deinitialize(count: rows); holds.deallocate()
                input.deallocate(); peaks.deallocate(); rowPeaks.deallocate(); inRows.deallocate()
            }
            for c in 0..<channelCount { inRows[c] = input + c * block }
            var position = start
            while position < end {
                let n = min(block, end - position)
                let real = max(0, min(n, frames - position))
                for c in 0..<channelCount {
                    inRows[c].update(from: capture.channel(c) + position, count: real)
                    if real < n { (inRows[c] + real).update(repeating: 0, count: n - real) }
                }
                if settings.samplePeak {
                    for c in 0..<channelCount { let x = inRows[c], p = peaks + c * block; for i in 0..<n { p[i] = abs(x[i]) } }
                } else {
                    detector.process(inRows, frameCount: n, into: peaks, stride: block)
                }
                limiter.rowPeaks(peaks, stride: block, frameCount: n, into: rowPeaks, rowStride: block)
                for r in 0..<rows { holds[r].process(rowPeaks + r * block, into: rowPeaks + r * block, count: n) }
                // Only the part's own frames are kept (not the warm-up's).
                let skip = max(0, from - position)
                for r in 0..<rows { (found.channel(r) + position + skip).update(from: rowPeaks + r * block + skip, count: n - skip) }
                position += n
            }
        }
        return true
    }

    /// ``run(gainDB:)`` for each gain, two at a time on two threads.
    package func run(gainsDB: [Double]) -> [Double] {
        if heldPeaks == nil && !findHeldPeaks() { return gainsDB.map { _ in -.infinity } }
        // Each trial its own slot.
        nonisolated(unsafe) let measured = UnsafeMutableBufferPointer<TrialResult>.allocate(capacity: gainsDB.count)
        defer { measured.deinitialize(); measured.deallocate() }
        DispatchQueue.concurrentPerform(iterations: gainsDB.count) { k in (measured.baseAddress! + k).initialize(to: run(gainDB: gainsDB[k])) }
        for (k, g) in gainsDB.enumerated() { results[g] = measured[k] }
        return measured.map { $0.meter.withKernel { $0.integratedLUFS } }
    }

    /// Frees every trial's meter and recording but the one at `gainDB`.
    package func keep(gainDB: Double) {
        results = results.filter { $0.key == gainDB }
    }

    /// The source the written pass reads at `gainDB`: the trial's recorded gains replayed when
    /// that trial ran and kept them, else worked out again.
    package func writtenSource(gainDB: Double) -> LimitedCaptureSource {
        LimitedCaptureSource(self, gainDB: gainDB, replaying: results[gainDB].flatMap { r in r.recording.map { ($0, r.limitingDB) } })
    }

    /// The meter of the trial at `gainDB`, handed over.
    fileprivate func takeMeter(gainDB: Double) -> LoudnessMeter? { results[gainDB]?.meter.take() }

    /// The capture after a gain of `gainDB` and the limiter, measured: the loudness meter, and
    /// the limiter's gains recorded (within ``recordingBudget``).
    private func run(gainDB: Double) -> TrialResult {
        let channelCount = capture.channelCount, total = capture.frameCount + latency
        let recording = rows * total * MemoryLayout<Float>.size <= Self.recordingBudget ? LargeSampleBuffer(channelCount: rows, framesPerChannel: total) : nil
        let source = LimitedCaptureSource(self, gainDB: gainDB, recordingInto: recording)
        let meter = LoudnessMeter(sampleRate: sampleRate, channelCount: channelCount, weights: weights)
        let audio = UnsafeMutablePointer<Float>.allocate(capacity: channelCount * block)
        let channels = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
        defer { audio.deallocate(); channels.deallocate() }
        for c in 0..<channelCount { channels[c] = audio + c * block }
        let previousMXCSR = DenormalGuard.enable()
        defer { DenormalGuard.restore(previousMXCSR) }
        while true {
            let n = source.read(into: channels, maxFrames: block)
            if n == 0 { break }
            meter.process(channels, frameCount: n)
        }
        return TrialResult(meter: KernelBox(meter), recording: recording, limitingDB: source.limitingDB)
    }
}

/// The capture times a gain, through the limiter, read block by block: a trial measures it, the
/// written pass encodes it. Frame m of the output is the capture's frame m times the gain times
/// the limiter's gain at frame m + latency (its latency taken out, as a render takes it out:
/// its first frames dropped, silence fed after the capture's end). The held peaks must have
/// been found (``NormalizationTrials/run(gainsDB:)`` finds them). It works the limiter's gains
/// out from them (and can record them, a trial's), or replays gains a trial recorded.
package final class LimitedCaptureSource: TimelineSource {
    package let trials: NormalizationTrials
    package let channelCount: Int
    package let gainDB: Double
    package let gain: Float
    /// Nil when replaying (nothing to work out).
    package let limiter: TruePeakLimiter?
    /// A block of gains, one row per gain row.
    package let gains: UnsafeMutablePointer<Float>
    /// Where the gains worked out are kept, every frame of every row (a trial's), or nil.
    package let recording: LargeSampleBuffer?
    /// A trial's recorded gains, read instead of worked out, or nil.
    package let replay: LargeSampleBuffer?
    /// The limiter's frame (output frame + latency) of the next read.
    private var position = 0
    package private(set) var framesRead: Int64 = 0
    package private(set) var ended = false
    /// The deepest limiting so far, dB (positive).
    package private(set) var limitingDB = 0.0

    /// `recordingInto`: keeps the gains worked out there (`rows × (frames + latency)`).
    /// `replaying`: reads the gains (and the deepest limiting) a trial at this gain recorded.
    package init(_ trials: NormalizationTrials, gainDB: Double, recordingInto recording: LargeSampleBuffer? = nil,
         replaying: (gains: LargeSampleBuffer, limitingDB: Double)? = nil) {
        precondition(trials.heldPeaks != nil)
        self.trials = trials; channelCount = trials.capture.channelCount
        self.gainDB = gainDB; gain = Float(pow(10, gainDB / 20))
        limiter = replaying == nil ? trials.makeLimiter() : nil
        gains = .allocate(capacity: trials.rows * trials.block)
        self.recording = recording; replay = replaying?.gains
        if let replaying { limitingDB = replaying.limitingDB }
    }

    deinit { gains.deallocate() }

    /// The loudness meter of the trial that read this gain, handed over (nil if that trial was
    /// not the last one kept): it has measured every frame this source delivers.
    package func takeTrialMeter() -> LoudnessMeter? { trials.takeMeter(gainDB: gainDB) }

    package var expectedFrames: Int64 { Int64(trials.capture.frameCount) }

    /// The limiter's gains for its frames `position ..< position + n`, row `r` at `row(r)`.
    private func advance(_ n: Int) {
        guard limiter != nil else { position += n; return }
        let block = trials.block, held = trials.heldPeaks!
        for r in 0..<trials.rows {
            let from = held.channel(r) + position, to = gains + r * block, g = gain
            for i in 0..<n { to[i] = g * from[i] }
        }
        limiter?.gains(fromHeldPeaks: gains, stride: block, frameCount: n)
        var lowest: Float = 1
        for r in 0..<trials.rows { let g = gains + r * block; for i in 0..<n { lowest = min(lowest, g[i]) } }
        limitingDB = max(limitingDB, -20 * log10(Double(lowest)))
        if let recording { for r in 0..<trials.rows { (recording.channel(r) + position).update(from: gains + r * block, count: n) } }
        position += n
    }

    /// Row `r` of the gains of the last ``advance(_:)`` of `n` frames.
    private func row(_ r: Int, advancedBy n: Int) -> UnsafePointer<Float> {
        UnsafePointer(replay.map { $0.channel(r) + position - n } ?? gains + r * trials.block)
    }

    package func read(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, maxFrames: Int) -> Int {
        let latency = trials.latency, block = trials.block
        // The first `latency` frames of the limiter's output are silence: run them, keep nothing.
        while position < latency { advance(min(block, latency - position)) }
        let n = min(maxFrames, block, trials.capture.frameCount + latency - position)
        guard n > 0 else { ended = true; return 0 }
        let first = position - latency
        advance(n)
        for c in 0..<channelCount {
            let x = trials.capture.channel(c) + first, out = channels[c], g = gain
            let row = row(trials.rows == 1 ? 0 : c, advancedBy: n)
            for i in 0..<n { out[i] = (g * x[i]) * row[i] }
        }
        framesRead += Int64(n)
        return n
    }
}
