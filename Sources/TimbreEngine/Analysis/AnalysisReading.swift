/// The newest values of a `meter`, `loudness` or `spectrum` node, typed. Levels are in dBFS
/// (true peak dBTP), loudness in LUFS and LU; silence (no level yet) reads `-infinity`.
public struct AnalysisReading: Sendable, Equatable {
    public var kind: AnalysisState.Kind
    /// Per-channel levels (not measured by `spectrum` nodes: empty there).
    public var channels: [ChannelLevels]
    /// EBU R 128 / ITU-R BS.1770 loudness (a `loudness` node's; nil for the others).
    public var loudness: Loudness?
    /// The analyser's view (a `spectrum` node's; nil for the others).
    public var spectrum: Spectrum?

    /// One channel's levels.
    public struct ChannelLevels: Sendable, Equatable {
        public var samplePeakDBFS: Double
        /// Inter-sample peak (4× oversampled, BS.1770 Annex 2, a parabola between grid points).
        public var truePeakDBTP: Double
        /// AES17 RMS (a full-scale sine reads 0 dBFS).
        public var rmsDBFS: Double
        /// Samples at or beyond full scale.
        public var clippedSamples: Int
        /// AVAudioPlayer's `peakPower` (1.5 s hold, then 20 dB/s) and `averagePower` (300 ms).
        public var peakPower: Double
        public var averagePower: Double
    }

    /// Loudness readings.
    public struct Loudness: Sendable, Equatable {
        /// Seconds of audio measured.
        public var seconds: Double
        public var momentaryLUFS: Double
        public var shortTermLUFS: Double
        /// Gated integrated loudness (BS.1770-4).
        public var integratedLUFS: Double
        /// Loudness range (EBU Tech 3342).
        public var rangeLU: Double
        public var maxMomentaryLUFS: Double
        public var maxShortTermLUFS: Double
    }

    /// Spectrum readings.
    public struct Spectrum: Sendable, Equatable {
        /// FFT frames averaged so far.
        public var frames: Int
        public var fftSize: Int
        public var peakFrequencyHz: Double
        public var peakLevelDB: Double
        /// Third-octave band levels.
        public var bands: [(centerHz: Double, levelDB: Double)]

        public static func == (a: Spectrum, b: Spectrum) -> Bool {
            a.frames == b.frames && a.fftSize == b.fftSize && a.peakFrequencyHz == b.peakFrequencyHz && a.peakLevelDB == b.peakLevelDB
                && a.bands.map(\.centerHz) == b.bands.map(\.centerHz) && a.bands.map(\.levelDB) == b.bands.map(\.levelDB)
        }
    }
}

extension AnalysisReading {
    /// As JSON (status reports, `timbre meter --json`): levels rounded to 0.01, silence as null.
    var json: JSONValue {
        func v(_ x: Double) -> JSONValue { x.isFinite ? .number((x * 100).rounded() / 100) : .null }
        var o: [String: JSONValue] = ["type": .string(kind.rawValue)]
        if let s = spectrum {
            o["frames"] = .number(Double(s.frames)); o["fftSize"] = .number(Double(s.fftSize))
            o["peakFrequencyHz"] = .number((s.peakFrequencyHz * 100).rounded() / 100); o["peakLevelDB"] = v(s.peakLevelDB)
            o["bands"] = .array(s.bands.map { .object(["frequencyHz": .number(($0.centerHz * 10).rounded() / 10), "levelDB": v($0.levelDB)]) })
        }
        if let l = loudness {
            o["seconds"] = .number((l.seconds * 100).rounded() / 100)
            o["momentaryLUFS"] = v(l.momentaryLUFS); o["shortTermLUFS"] = v(l.shortTermLUFS); o["integratedLUFS"] = v(l.integratedLUFS)
            o["loudnessRangeLU"] = v(l.rangeLU); o["maxMomentaryLUFS"] = v(l.maxMomentaryLUFS); o["maxShortTermLUFS"] = v(l.maxShortTermLUFS)
        }
        o["channels"] = .array(channels.map { c in
            .object(["samplePeakDBFS": v(c.samplePeakDBFS), "truePeakDBTP": v(c.truePeakDBTP), "rmsDBFS": v(c.rmsDBFS),
                     "clippedSamples": .number(Double(c.clippedSamples)), "peakPower": v(c.peakPower), "averagePower": v(c.averagePower)])
        })
        return .object(o)
    }
}
