import TimbreDSP

extension NodeSpec {
    /// The static level curve of a dynamics node — output level against a steady input level,
    /// both dB, as its peak detector sees a constant: a compressor's curve with its knee and
    /// makeup, a gate's or expander's closed curve, a limiter's ceiling. nil for other kinds.
    public var staticCurve: ((Double) -> Double)? {
        if let c = kind.settings(as: CompressorSettings.self) {
            let curve = CompressorCurve(thresholdDB: c.thresholdDB, ratio: c.ratio, kneeDB: c.kneeDB)
            let makeup = c.makeupDB ?? curve.automaticMakeupDB
            return { curve.outputDB($0) + makeup }
        }
        if let g = kind.settings(as: GateSettings.self) {
            let settings = g.kernelSettings(sampleRate: 48_000)  // the static law does not depend on the rate
            return { $0 + settings.gainDB($0, wasOpen: false) }
        }
        if let l = kind.settings(as: LimiterSettings.self) {
            let ceiling = l.ceilingDB
            return { min($0, ceiling) }
        }
        return nil
    }
}
