import Foundation
import TimbreDSP

/// The render side of a `meter`, `loudness` or `spectrum` node: a pass-through that feeds its
/// meters and publishes a snapshot after every block. A `spectrum` node runs only its
/// analyser (no level or true-peak meters: it costs what its FFTs cost). Non-copyable, never
/// reference-counted; made and ended by ``AnalysisState`` on the control thread.
///
/// Snapshot record (Doubles): [seconds, momentary, shortTerm, integrated, range, maxMomentary,
/// maxShortTerm, channelCount, then per channel: samplePeak, truePeak, rms, clipped, peakPower,
/// averagePower]. Levels in dBFS/dBTP, loudness in LUFS/LU; −inf is stored as −1000.
/// Integrated loudness and range scan their histograms, so they are refreshed every 100 ms
/// of audio (at absolute positions), not every block.
package struct AnalysisKernel: ~Copyable {
    static let headerSize = 8, perChannel = 6, maxChannels = 32
    let kind: AnalysisState.Kind
    let channelCount: Int
    /// The meters, in memory this kernel owns and frees: the render's unchecked calls into them
    /// (their readings call libm) capture pointers, not non-copyable values. The loudness
    /// meter only for a `loudness` node.
    let level: UnsafeMutablePointer<LevelMeter>
    let truePeak: UnsafeMutablePointer<TruePeakMeter>
    let loudness: UnsafeMutablePointer<LoudnessMeter>?
    /// Whether the level and true-peak meters run (not for `spectrum`).
    let measuresLevels: Bool
    let snapshot: SnapshotBuffer
    /// [last 100 ms step at which integrated and range were computed, integrated, range,
    /// spectrum frames last published].
    let cache: UnsafeMutablePointer<Double>
    /// A `spectrum` node's analyser, and its published bin powers: [frames, bins…].
    let spectrum: SpectrumKernel?
    let spectrumSnapshot: SnapshotBuffer?

    init(kind: AnalysisState.Kind, channelCount: Int, sampleRate: Double, spectrum settings: SpectrumSettings? = nil) {
        self.kind = kind; self.channelCount = min(channelCount, Self.maxChannels)
        level = .allocate(capacity: 1)
        level.initialize(to: LevelMeter(sampleRate: sampleRate, channelCount: channelCount))
        truePeak = .allocate(capacity: 1)
        truePeak.initialize(to: TruePeakMeter(sampleRate: sampleRate, channelCount: channelCount))
        if kind == .loudness {
            let meter = UnsafeMutablePointer<LoudnessMeter>.allocate(capacity: 1)
            meter.initialize(to: LoudnessMeter(sampleRate: sampleRate, channelCount: channelCount))
            loudness = meter
        } else {
            loudness = nil
        }
        measuresLevels = kind != .spectrum
        snapshot = SnapshotBuffer(recordSize: Self.headerSize + Self.perChannel * self.channelCount)
        cache = .allocate(capacity: 4)
        cache.initialize(from: [-1, -.infinity, 0, 0], count: 4)
        if let settings {
            let k = SpectrumKernel(size: settings.size, sampleRate: sampleRate, channelCount: channelCount, window: settings.window,
                                   overlap: 0.5, averagingSeconds: settings.averagingSeconds)
            spectrumSnapshot = SnapshotBuffer(recordSize: 1 + k.binCount)
            spectrum = .some(k)
        } else {
            spectrum = nil; spectrumSnapshot = nil
        }
    }

    /// Ends the meters (their deinit frees them) and frees their memory, the snapshots and the cache.
    deinit {
        snapshot.deallocate(); cache.deallocate(); spectrumSnapshot?.deallocate()
        level.deinitialize(count: 1); level.deallocate()
        truePeak.deinitialize(count: 1); truePeak.deallocate()
        if let loudness { loudness.deinitialize(count: 1); loudness.deallocate() }
    }

    /// Measures `frameCount` frames of the node's channels (left unchanged) and publishes.
    #if TIMBRE_REALTIME_CHECKS
    @_noLocks
    #endif
    func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        // (Trivial locals: the unchecked closures below capture no non-copyable `self`.)
        let level = level, truePeak = truePeak, cache = cache
        if measuresLevels {
            level.pointee.process(channels, frameCount: frameCount)
            truePeak.pointee.process(channels, frameCount: frameCount)
        }
        let out = snapshot.writeSlot
        func clean(_ v: Double) -> Double { v.isFinite ? v : -1000 }
        if let loudness {
            _unsafePerformance { loudness.pointee.process(channels, frameCount: frameCount) }
            let step = Double(Int64(loudness.pointee.seconds * 10))
            if step != cache[0] {
                cache[0] = step
                _unsafePerformance { cache[1] = loudness.pointee.integratedLUFS; cache[2] = loudness.pointee.loudnessRangeLU }
            }
            out[0] = loudness.pointee.seconds
            _unsafePerformance {
                out[1] = clean(loudness.pointee.momentaryLUFS); out[2] = clean(loudness.pointee.shortTermLUFS)
                out[5] = clean(loudness.pointee.maxMomentaryLUFS); out[6] = clean(loudness.pointee.maxShortTermLUFS)
            }
            out[3] = clean(cache[1]); out[4] = cache[2]
        }
        switch spectrum {
        case .some(let spectrum):  // (made together with its snapshot)
            spectrum.process(channels, frameCount: frameCount)
            if let spectrumSnapshot, Double(spectrum.frames) != cache[3] {  // a new frame: publish the averaged powers
                cache[3] = Double(spectrum.frames)
                let r = spectrumSnapshot.writeSlot
                r[0] = Double(spectrum.frames)
                for k in 0..<spectrum.binCount { r[1 + k] = Double(spectrum.averagePower[k]) }
                spectrumSnapshot.publish()
            }
        case .none: break
        }
        out[7] = measuresLevels ? Double(channelCount) : 0
        for c in 0..<(measuresLevels ? channelCount : 0) {
            let p = out + Self.headerSize + Self.perChannel * c
            _unsafePerformance {
                p[0] = level.pointee.samplePeakDBFS(channel: c); p[1] = clean(20 * log10(Double(truePeak.pointee.peak(channel: c))))
                p[2] = level.pointee.rmsDBFS(channel: c); p[3] = Double(level.pointee.clippedSamples(channel: c))
                p[4] = level.pointee.peakPower(channel: c); p[5] = level.pointee.averagePower(channel: c)
            }
        }
        snapshot.publish()
    }

    /// The newest snapshot, typed (control thread). `cache` keeps the spectrum's view of the
    /// analyser frame it was computed from: a live page reads 30 times a second, the analyser
    /// publishes about 23 frames a second, and the peak's refinement is the costly part.
    /// `bandTable`: the third-octave bands' bin weights, worked out on the first read.
    func read(cache: inout AnalysisReading.Spectrum?, bandTable: inout SpectrumBandTable?) -> AnalysisReading {
        let r = snapshot.read()
        func v(_ x: Double) -> Double { x <= -1000 ? -.infinity : x }
        var reading = AnalysisReading(kind: kind, channels: [], loudness: nil, spectrum: nil)
        if let analyser = spectrumShape, let spectrumSnapshot {
            let p = spectrumSnapshot.read()
            if let cached = cache, cached.frames == Int(p[0]) { reading.spectrum = cached } else {
            func level(_ k: Int) -> Double { SpectrumKernel.levelDB(power: p[1 + k], windowSum: analyser.windowSum) }
            let peak = SpectrumKernel.peak(binCount: analyser.binCount, binWidth: analyser.sampleRate / Double(analyser.size), window: analyser.window,
                                           power: { p[1 + $0] }, level: level)
            if bandTable == nil {
                bandTable = SpectrumBandTable(fraction: 3, sampleRate: analyser.sampleRate, size: analyser.size, windowSquareSum: analyser.windowSquareSum)
            }
            let bands = bandTable!.bands { p[1 + $0] }
            reading.spectrum = .init(frames: Int(p[0]), fftSize: analyser.size, peakFrequencyHz: peak.frequencyHz, peakLevelDB: v(peak.levelDB),
                                     bands: bands.map { ($0.centerHz, v($0.levelDB)) })
            cache = reading.spectrum
            }
        }
        if kind == .loudness {
            reading.loudness = .init(seconds: r[0], momentaryLUFS: v(r[1]), shortTermLUFS: v(r[2]), integratedLUFS: v(r[3]), rangeLU: v(r[4]),
                                     maxMomentaryLUFS: v(r[5]), maxShortTermLUFS: v(r[6]))
        }
        reading.channels = (0..<Int(r[7])).map { c in
            let p = r + Self.headerSize + Self.perChannel * c
            return .init(samplePeakDBFS: v(p[0]), truePeakDBTP: v(p[1]), rmsDBFS: v(p[2]), clippedSamples: Int(p[3]), peakPower: v(p[4]), averagePower: v(p[5]))
        }
        return reading
    }

    /// The newest snapshot as JSON (control thread).
    func readValues(cache: inout AnalysisReading.Spectrum?, bandTable: inout SpectrumBandTable?) -> JSONValue {
        var json = read(cache: &cache, bandTable: &bandTable).json
        if case .object(var o) = json, let analyser = spectrumShape { o["window"] = .string(analyser.window.rawValue); json = .object(o) }
        return json
    }

    /// The analyser's fixed numbers, copied out of the non-copyable kernel for the control thread's reads.
    var spectrumShape: (size: Int, binCount: Int, sampleRate: Double, window: SpectrumWindow, windowSum: Double, windowSquareSum: Double)? {
        switch spectrum {
        case .some(let s): (s.size, s.binCount, s.sampleRate, s.window, s.windowSum, s.windowSquareSum)
        case .none: nil
        }
    }
}
