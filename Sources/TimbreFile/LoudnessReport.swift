import Foundation
import TimbreDSP
import TimbreEngine

/// Every meter at once over planar blocks: loudness (BS.1770-4 / R 128), true peak, and per
/// channel sample peak, AES17 RMS and clipped samples. Used by `timbre meter`, by
/// `render --meter` on the rendered output and by `render --normalize`'s first pass.
public final class LoudnessAnalyzer {
    public let sampleRate: Double
    public let channelCount: Int
    let loudness: LoudnessMeter
    /// The loudness meter has measured the audio already (it is not fed again).
    let loudnessMeasured: Bool
    let levels: LevelMeter
    let truePeak: TruePeakMeter

    /// `shortTermRateHz`: short-term values per second for the loudness range (10, the
    /// current Tech 3342; 1 reproduces libebur128 1.2). `layout` gives the channels'
    /// BS.1770 weights (default: the usual layout for the channel count).
    public init(sampleRate: Double, channelCount: Int, shortTermRateHz: Int = 10, layout: ChannelLayout? = nil) {
        self.sampleRate = sampleRate; self.channelCount = channelCount
        let weights = layout.flatMap { $0.channelCount == channelCount ? $0.loudnessWeights : nil }
        loudness = LoudnessMeter(sampleRate: sampleRate, channelCount: channelCount, shortTermRateHz: shortTermRateHz, weights: weights)
        loudnessMeasured = false
        levels = LevelMeter(sampleRate: sampleRate, channelCount: channelCount)
        truePeak = TruePeakMeter(sampleRate: sampleRate, channelCount: channelCount)
    }

    /// An analyser whose loudness meter has measured the audio to come already: the levels and
    /// the true peak are measured as it is fed, the loudness read from `measured` (which the
    /// analyser takes over). `--normalize` writes audio whose every sample a trial measured,
    /// through the same code in the same order.
    package init(sampleRate: Double, channelCount: Int, measured: consuming LoudnessMeter) {
        precondition(measured.channelCount == channelCount && measured.sampleRate == sampleRate)
        self.sampleRate = sampleRate; self.channelCount = channelCount
        loudness = measured
        loudnessMeasured = true
        levels = LevelMeter(sampleRate: sampleRate, channelCount: channelCount)
        truePeak = TruePeakMeter(sampleRate: sampleRate, channelCount: channelCount)
    }

    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        processLoudnessAndLevels(channels, frameCount: frameCount)
        truePeak.process(channels, frameCount: frameCount)
    }

    /// The loudness and level meters alone: a render feeds the true-peak meter (``truePeak``)
    /// on another thread, in the same order.
    func processLoudnessAndLevels(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if !loudnessMeasured { loudness.process(channels, frameCount: frameCount) }
        levels.process(channels, frameCount: frameCount)
    }

    public var report: LoudnessReport {
        let channels = (0..<channelCount).map { c in
            LoudnessReport.Channel(samplePeakDBFS: levels.samplePeakDBFS(channel: c), truePeakDBTP: LoudnessReport.db(truePeak.peak(channel: c)),
                                   rmsDBFS: levels.rmsDBFS(channel: c), clippedSamples: levels.clippedSamples(channel: c))
        }
        return LoudnessReport(durationSeconds: loudness.seconds, integratedLUFS: loudness.integratedLUFS, loudnessRangeLU: loudness.loudnessRangeLU,
                              maxMomentaryLUFS: loudness.maxMomentaryLUFS, maxShortTermLUFS: loudness.maxShortTermLUFS,
                              truePeakDBTP: LoudnessReport.db(truePeak.peak), samplePeakDBFS: channels.map(\.samplePeakDBFS).max() ?? LevelMeter.floorDB,
                              shortTermRateHz: loudness.shortTermRateHz, channels: channels)
    }
}

/// What `timbre meter` reports for a file (or `render --meter` for its output).
public struct LoudnessReport: Sendable {
    public struct Channel: Sendable {
        public var samplePeakDBFS: Double, truePeakDBTP: Double, rmsDBFS: Double, clippedSamples: Int
    }
    public var durationSeconds: Double
    /// −inf when nothing passes the gates (silence, or shorter than 400 ms).
    public var integratedLUFS: Double
    public var loudnessRangeLU: Double
    public var maxMomentaryLUFS: Double
    public var maxShortTermLUFS: Double
    public var truePeakDBTP: Double
    public var samplePeakDBFS: Double
    public var shortTermRateHz: Int
    public var channels: [Channel]

    static func db(_ linear: Float) -> Double { linear > 0 ? 20 * log10(Double(linear)) : -.infinity }

    /// JSON (non-finite values, e.g. the loudness of silence, are `null`).
    public var json: JSONValue {
        func n(_ v: Double, _ digits: Double = 100) -> JSONValue { v.isFinite ? .number((v * digits).rounded() / digits) : .null }
        return .object([
            "durationSeconds": n(durationSeconds, 1000),
            "integratedLUFS": n(integratedLUFS), "loudnessRangeLU": n(loudnessRangeLU),
            "maxMomentaryLUFS": n(maxMomentaryLUFS), "maxShortTermLUFS": n(maxShortTermLUFS),
            "truePeakDBTP": n(truePeakDBTP), "samplePeakDBFS": n(samplePeakDBFS),
            "loudnessRangeShortTermRateHz": .number(Double(shortTermRateHz)),
            "channels": .array(channels.map { c in .object([
                "samplePeakDBFS": n(c.samplePeakDBFS), "truePeakDBTP": n(c.truePeakDBTP),
                "rmsDBFS": n(c.rmsDBFS), "clippedSamples": .number(Double(c.clippedSamples)),
            ]) }),
        ])
    }

    /// A few aligned lines for a terminal.
    public var text: String {
        func f(_ v: Double, _ unit: String) -> String { v.isFinite ? String(format: "%7.2f ", v) + unit : "    n/a (too short or silent)" }
        func cell(_ v: Double, _ width: Int) -> String {
            let t = v.isFinite ? String(format: "%.2f", v) : "-inf"
            return String(repeating: " ", count: max(0, width - t.count)) + t
        }
        var lines = [
            "  integrated:      \(f(integratedLUFS, "LUFS"))",
            "  loudness range:  \(f(loudnessRangeLU, "LU"))",
            "  max momentary:   \(f(maxMomentaryLUFS, "LUFS"))",
            "  max short-term:  \(f(maxShortTermLUFS, "LUFS"))",
            "  true peak:       \(f(truePeakDBTP, "dBTP"))",
            "  sample peak:     \(f(samplePeakDBFS, "dBFS"))",
        ]
        lines.append("  channel   peak dBFS   true peak dBTP   RMS dBFS (AES17)     clipped")
        for (k, c) in channels.enumerated() {
            let count = String(c.clippedSamples)
            lines.append("  " + String(k + 1).padding(toLength: 7, withPad: " ", startingAt: 0) + cell(c.samplePeakDBFS, 12) + cell(c.truePeakDBTP, 17)
                         + cell(c.rmsDBFS, 19) + String(repeating: " ", count: max(0, 12 - count.count)) + count)
        }
        return lines.joined(separator: "\n")
    }
}

extension LoudnessAnalyzer {
    /// Measures a whole file, block by block (constant memory). `progress(fraction)` after each block.
    public static func measure(path: String, shortTermRateHz: Int = 10, blockFrames: Int = 4800,
                               progress: ((Double) -> Void)? = nil) throws(AudioFileError) -> LoudnessReport {
        let reader = try SoundFileReader(path: path)
        let analyzer = LoudnessAnalyzer(sampleRate: reader.sampleRate, channelCount: reader.channelCount, shortTermRateHz: shortTermRateHz,
                                        layout: reader.channelLayout)
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: reader.channelCount * blockFrames)
        let ptrs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: reader.channelCount)
        defer { storage.deallocate(); ptrs.deallocate() }
        for c in 0..<reader.channelCount { ptrs[c] = storage + c * blockFrames }
        var frames: Int64 = 0
        while true {
            let n = try reader.read(into: ptrs, maxFrames: blockFrames)
            if n == 0 { break }
            for c in 0..<reader.channelCount {
                if let i = NonFiniteScan.firstIndex(ptrs[c], count: n) {
                    throw AudioFileError(path: path, "frame \(frames + Int64(i)) (channel \(c + 1)) is not a finite number: cannot measure")
                }
            }
            analyzer.process(ptrs, frameCount: n)
            frames += Int64(n)
            if reader.frameCount > 0 { progress?(min(1, Double(frames) / Double(reader.frameCount))) }
        }
        if frames == 0 { throw AudioFileError(path: path, "contains no audio frames") }
        return analyzer.report
    }
}
