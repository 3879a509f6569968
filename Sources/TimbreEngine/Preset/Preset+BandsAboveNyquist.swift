import TimbreDSP

/// A bell, shelf or low-pass whose centre lies at or above 0.49 × the sample rate and that
/// does less than 0.01 dB below Nyquist, so the render leaves it out
/// (`FilterDesign.sections(sampleRate:)`).
public struct BandLeftOut: Sendable, Equatable {
    /// The band's JSON path (`chain[1].bands[9]`).
    public var path: String
    public var design: FilterDesign
}

extension Preset {
    /// Every active band or filter the render leaves out at `sampleRate` because it does less
    /// than 0.01 dB below Nyquist (a 16 kHz air band at 22.05 kHz, say), in processing order.
    /// Bands above Nyquist that still shape the audio are fitted, not listed.
    public func bandsLeftOut(sampleRate: Double) -> [BandLeftOut] {
        var out: [BandLeftOut] = []
        func check(_ d: FilterDesign, _ path: String) {
            guard d.type != .highPass, d.isAboveBand(sampleRate: sampleRate), d.sections(sampleRate: sampleRate).isEmpty,
                  !(d.type.hasGain && d.gainDB == 0) else { return }
            out.append(BandLeftOut(path: path, design: d))
        }
        for node in allNodes where !node.bypass {
            if let eq = node.kind.settings(as: EQSettings.self) {
                for (j, band) in eq.bands.enumerated() { check(band.design, "\(node.path).bands[\(j)]") }
            } else if let filter = node.kind.settings(as: FilterSettings.self), filter.phase == nil {
                check(filter.design, node.path)
            }
        }
        return out
    }

    /// One line naming every band left out at `sampleRate`, or nil when none is.
    public func bandsLeftOutNotice(sampleRate: Double) -> String? {
        let left = bandsLeftOut(sampleRate: sampleRate)
        guard !left.isEmpty else { return nil }
        let rate = JSONValue.number(sampleRate).brief
        let names = left.map { b in
            let hz = JSONValue.number(b.design.frequencyHz).brief
            return b.design.type.hasGain
                ? "\(b.path) (\(b.design.type.rawValue) \(hz) Hz, \(JSONValue.number(b.design.gainDB).brief) dB)"
                : "\(b.path) (\(b.design.type.rawValue) \(hz) Hz)"
        }
        return "at \(rate) Hz \(left.count == 1 ? "this band does" : "these bands do") less than 0.01 dB below Nyquist and \(left.count == 1 ? "is" : "are") left out: " + names.joined(separator: ", ")
    }
}
