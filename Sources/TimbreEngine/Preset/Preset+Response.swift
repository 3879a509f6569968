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

extension Preset {
    /// The terms of every active node that shapes the response linearly (filters, EQs, gains),
    /// in processing order. Nodes that pass the spectrum unchanged (pan, meters) are left out;
    /// so are plugins, whose response is not known without running them (see
    /// ``hasUnknownResponse``).
    public func responseTerms(sampleRate: Double) -> [NodeResponseTerm] {
        allNodes.filter { !$0.bypass }.compactMap { node in
            guard case .linear(let sections, let gain, let markers) = node.kind.definition.response(ofAny: node.kind.parameters, sampleRate: sampleRate) else {
                return nil
            }
            return NodeResponseTerm(path: node.path, sections: sections, gainDB: gain, markersHz: markers)
        }
    }

    /// True when an active node's response is not known without running it (a plugin).
    public var hasUnknownResponse: Bool {
        allNodes.contains { node in
            guard !node.bypass, case .unknown = node.kind.definition.response(ofAny: node.kind.parameters, sampleRate: 48000) else { return false }
            return true
        }
    }

    /// The designed second-order sections of every active filter node, in chain order,
    /// with the node's path. Gain and pan nodes are left out.
    public func filterSections(sampleRate: Double) -> [(path: String, sections: [BiquadCoefficients])] {
        responseTerms(sampleRate: sampleRate).filter { !$0.sections.isEmpty }.map { ($0.path, $0.sections) }
    }

    /// The magnitude response in dB of the whole chain at `hz` (filters and gains; pan ignored).
    public func magnitudeDB(at hz: Double, sampleRate: Double) -> Double {
        responseTerms(sampleRate: sampleRate).reduce(0) { $0 + $1.gainDB + $1.sections.magnitudeDB(at: hz, sampleRate: sampleRate) }
    }
}
