import TimbreDSP

extension Preset {
    /// The designed second-order sections of every active filter node, in chain order,
    /// with the node's path. Gain and pan nodes are left out.
    public func filterSections(sampleRate: Double) -> [(path: String, sections: [BiquadCoefficients])] {
        allNodes.filter { !$0.bypass }.compactMap { node in
            switch node.kind {
            case .filter(let d): return (node.path, d.sections(sampleRate: sampleRate))
            case .eq(let bands): return (node.path, bands.flatMap { $0.design.sections(sampleRate: sampleRate) })
            default: return nil
            }
        }
    }

    /// The magnitude response in dB of the whole chain at `hz` (filters and gains; pan ignored).
    public func magnitudeDB(at hz: Double, sampleRate: Double) -> Double {
        var db = filterSections(sampleRate: sampleRate).reduce(0) { $0 + $1.sections.magnitudeDB(at: hz, sampleRate: sampleRate) }
        for node in allNodes where !node.bypass {
            if case .gain(let g) = node.kind { db += GainUnits.decibels(fromLinear: g) }
        }
        return db
    }
}
