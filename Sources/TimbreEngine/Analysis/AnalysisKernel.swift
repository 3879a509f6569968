import Foundation
import TimbreDSP

/// The render side of a `meter` or `loudness` node: a pass-through that feeds its meters and
/// publishes a snapshot after every block. Raw memory only (copied freely, never
/// reference-counted); allocated and freed by ``AnalysisState`` on the control thread.
///
/// Snapshot record (Doubles): [seconds, momentary, shortTerm, integrated, range, maxMomentary,
/// maxShortTerm, channelCount, then per channel: samplePeak, truePeak, rms, clipped, peakPower,
/// averagePower]. Levels in dBFS/dBTP, loudness in LUFS/LU; −inf is stored as −1000.
/// Integrated loudness and range scan their histograms, so they are refreshed every 100 ms
/// of audio (at absolute positions), not every block.
public struct AnalysisKernel {
    static let headerSize = 8, perChannel = 6, maxChannels = 32
    let kind: AnalysisState.Kind
    let channelCount: Int
    let level: LevelMeter
    let truePeak: TruePeakMeter
    let loudness: LoudnessMeter?
    let snapshot: SnapshotBuffer
    /// [last 100 ms step at which integrated and range were computed, integrated, range].
    let cache: UnsafeMutablePointer<Double>

    init(kind: AnalysisState.Kind, channelCount: Int, sampleRate: Double) {
        self.kind = kind; self.channelCount = min(channelCount, Self.maxChannels)
        level = LevelMeter(sampleRate: sampleRate, channelCount: channelCount)
        truePeak = TruePeakMeter(sampleRate: sampleRate, channelCount: channelCount)
        loudness = kind == .loudness ? LoudnessMeter(sampleRate: sampleRate, channelCount: channelCount) : nil
        snapshot = SnapshotBuffer(recordSize: Self.headerSize + Self.perChannel * self.channelCount)
        cache = .allocate(capacity: 3)
        cache.initialize(from: [-1, -.infinity, 0], count: 3)
    }

    func deallocate() { level.deallocate(); truePeak.deallocate(); loudness?.deallocate(); snapshot.deallocate(); cache.deallocate() }

    /// Measures `frameCount` frames of the node's channels (left unchanged) and publishes.
    @_noLocks
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        level.process(channels, frameCount: frameCount)
        truePeak.process(channels, frameCount: frameCount)
        let out = snapshot.writeSlot
        func clean(_ v: Double) -> Double { v.isFinite ? v : -1000 }
        if let loudness {
            _unsafePerformance { loudness.process(channels, frameCount: frameCount) }
            let step = Double(Int64(loudness.seconds * 10))
            if step != cache[0] {
                cache[0] = step
                _unsafePerformance { cache[1] = loudness.integratedLUFS; cache[2] = loudness.loudnessRangeLU }
            }
            out[0] = loudness.seconds
            _unsafePerformance {
                out[1] = clean(loudness.momentaryLUFS); out[2] = clean(loudness.shortTermLUFS)
                out[5] = clean(loudness.maxMomentaryLUFS); out[6] = clean(loudness.maxShortTermLUFS)
            }
            out[3] = clean(cache[1]); out[4] = cache[2]
        }
        out[7] = Double(channelCount)
        for c in 0..<channelCount {
            let p = out + Self.headerSize + Self.perChannel * c
            _unsafePerformance {
                p[0] = level.samplePeakDBFS(channel: c); p[1] = clean(20 * log10(Double(truePeak.peak(channel: c))))
                p[2] = level.rmsDBFS(channel: c); p[3] = Double(level.clippedSamples(channel: c))
                p[4] = level.peakPower(channel: c); p[5] = level.averagePower(channel: c)
            }
        }
        snapshot.publish()
    }

    /// The newest snapshot as JSON (control thread).
    func readValues() -> JSONValue {
        let r = snapshot.read()
        func v(_ x: Double) -> JSONValue { x <= -1000 ? .null : .number((x * 100).rounded() / 100) }
        var o: [String: JSONValue] = ["type": .string(kind.rawValue)]
        if kind == .loudness {
            o["seconds"] = .number((r[0] * 100).rounded() / 100)
            o["momentaryLUFS"] = v(r[1]); o["shortTermLUFS"] = v(r[2]); o["integratedLUFS"] = v(r[3]); o["loudnessRangeLU"] = v(r[4])
            o["maxMomentaryLUFS"] = v(r[5]); o["maxShortTermLUFS"] = v(r[6])
        }
        let n = Int(r[7])
        o["channels"] = .array((0..<n).map { c in
            let p = r + Self.headerSize + Self.perChannel * c
            return .object(["samplePeakDBFS": v(p[0]), "truePeakDBTP": v(p[1]), "rmsDBFS": v(p[2]), "clippedSamples": .number(p[3]),
                            "peakPower": v(p[4]), "averagePower": v(p[5])])
        })
        return .object(o)
    }
}
