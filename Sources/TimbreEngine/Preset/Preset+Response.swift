import TimbreDSP

/// A node's contribution to a preset's frequency response.
public struct NodeResponseTerm: Sendable {
    /// The node's JSON path.
    public var path: String
    /// Its second-order sections (empty for a pure gain).
    public var sections: [BiquadCoefficients]
    /// Its broadband gain in dB.
    public var gainDB: Double
    /// Frequencies worth marking on a plot (filter corners, EQ bands that boost or cut).
    public var markersHz: [Double]
}

extension NodeSpec {
    /// The node's linear response at `sampleRate` (filters, EQs, gains), or nil for a node that
    /// passes the spectrum unchanged (pan, meters) or whose response is not known without
    /// running it (a plugin: ``hasKnownResponse``). Bypass is not considered here.
    public func responseTerm(sampleRate: Double) -> NodeResponseTerm? {
        guard case .linear(let sections, let gain, let markers) = kind.definition.response(ofAny: kind.parameters, sampleRate: sampleRate) else { return nil }
        return NodeResponseTerm(path: path, sections: sections, gainDB: gain, markersHz: markers)
    }

    /// False for a node whose response is not known without running it (a plugin).
    public var hasKnownResponse: Bool {
        if case .unknown = kind.definition.response(ofAny: kind.parameters, sampleRate: 48000) { return false }
        return true
    }
}

extension Preset {
    /// The terms of every active node that shapes the response linearly, in processing order.
    public func responseTerms(sampleRate: Double) -> [NodeResponseTerm] {
        allNodes.filter { !$0.bypass }.compactMap { $0.responseTerm(sampleRate: sampleRate) }
    }

    /// The magnitude response in dB of the whole chain at `hz` (filters and gains; pan ignored).
    public func magnitudeDB(at hz: Double, sampleRate: Double) -> Double {
        responseTerms(sampleRate: sampleRate).reduce(0) { $0 + $1.gainDB + $1.sections.magnitudeDB(at: hz, sampleRate: sampleRate) }
    }
}
