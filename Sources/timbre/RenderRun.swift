import Foundation
import TimbreEngine
import TimbreFile

/// One `timbre render` of one output: the request (one pass, or two with `--normalize`), the
/// warnings and the summary, without printing. The single render and every file of a batch
/// run through here, so a batch file is exactly what `timbre render IN -o OUT` gives.
enum RenderRun {
    /// The command's options as a request without inputs and output.
    struct Template: Sendable {
        var request: RenderRequest
        var label: String
        /// `--normalize` target (LUFS) and true-peak ceiling (dBTP).
        var normalize: (target: Double, ceiling: Double)?
    }

    struct Result: Sendable {
        var summary: RenderSummary
        var warnings: [String]
        /// The gain `--normalize` applied and whether the true-peak ceiling limited it.
        var normalization: (gainDB: Double, limited: Bool, target: Double, ceiling: Double)?

        var normalizationText: String? {
            guard let n = normalization, let l = summary.loudness else { return nil }
            return String(format: "normalised: gain %+.2f dB, %@", n.gainDB,
                          n.limited ? String(format: "limited by the %.1f dBTP true-peak ceiling: %.2f LUFS instead of %.1f", n.ceiling, l.integratedLUFS, n.target)
                                    : String(format: "%.2f LUFS (target %.1f)", l.integratedLUFS, n.target))
        }

        /// The summary as JSON, in `timbre info --json`'s field names where they overlap.
        func json(output: String) -> JSONValue {
            let s = summary
            func round(_ v: Double, _ digits: Double = 100) -> JSONValue { v.isFinite ? .number((v * digits).rounded() / digits) : .null }
            var fields: [String: JSONValue] = [
                "path": .string(output),
                "format": .string(s.format.rawValue),
                "encoding": .string(s.encoding.rawValue),
                "encodingSource": .string(s.encodingSource),
                "sampleRate": .number(s.sampleRate),
                "channels": .number(Double(s.outputChannels)),
                "inputChannels": .number(Double(s.inputChannels)),
                "frames": .number(Double(s.frames)),
                "durationSeconds": round(s.durationSeconds, 1000),
                "peakDBFS": round(s.peakDBFS),
                "truePeakDBTP": round(s.truePeakDBTP),
                "clippedSamples": .number(Double(s.clippedSamples)),
                "gainToAvoidClippingDB": s.gainToAvoidClippingDB.map { .number($0) } ?? .null,
                "speed": round(s.speed, 10),
                "warnings": .array(warnings.map { .string($0) }),
                "tags": .object(Dictionary(s.tags.fields.map { ($0.key, JSONValue.string($0.value)) }, uniquingKeysWith: { a, _ in a })),
            ]
            if let l = s.loudness { fields["loudness"] = l.json }
            if let n = normalization {
                fields["normalization"] = .object(["gainDB": .number((n.gainDB * 100).rounded() / 100), "limitedByTruePeak": .bool(n.limited),
                                                   "targetLUFS": .number(n.target), "truePeakCeilingDBTP": .number(n.ceiling)])
            }
            return .object(fields)
        }
    }

    /// Renders `request`; `progress` gets the fraction of the whole job (both passes) and the
    /// pass's progress.
    static func perform(_ request: RenderRequest, label: String, normalize: (target: Double, ceiling: Double)?,
                        progress: ((Double, RenderProgress) -> Void)? = nil) throws(CLIError) -> Result {
        var request = request
        var normalization: (gainDB: Double, limited: Bool, target: Double, ceiling: Double)?
        let name = request.inputPaths.first ?? request.outputPath
        if let (target, ceiling) = normalize {
            guard !request.inputPaths.contains("-") else {
                throw CLIError.usage("--normalize reads its input twice: give a file, not standard input")
            }
            // Pass 1: render and measure without writing; then append the gain to the preset.
            let first: RenderSummary
            do {
                first = try OfflineRenderer.render(request, presetName: label, measureOnly: true) { p in progress?(p.fraction / 2, p) }
            } catch { throw CLIError(error) }
            guard let measured = first.loudness, measured.integratedLUFS.isFinite else {
                throw CLIError.io("\(name): cannot normalise: the rendered audio has no gated loudness (silent, or shorter than 400 ms)")
            }
            var gain = target - measured.integratedLUFS
            let limited = measured.truePeakDBTP + gain > ceiling
            if limited { gain = ceiling - measured.truePeakDBTP }
            guard (-96...24).contains(gain) else {
                throw CLIError.io("\(name): normalising needs \(String(format: "%+.2f", gain)) dB, outside -96…24 dB")
            }
            request.preset = appendingGain(gain, to: request.preset)
            normalization = (gain, limited, target, ceiling)
        }
        let summary: RenderSummary
        do {
            summary = try OfflineRenderer.render(request, presetName: label) { p in
                progress?(normalization == nil ? p.fraction : 0.5 + p.fraction / 2, p)
            }
        } catch { throw CLIError(error) }
        var warnings = summary.warnings
        if let n = normalization, n.limited, let l = summary.loudness {
            warnings.append(String(format: "%@: limited by the %.1f dBTP true-peak ceiling: %.2f LUFS instead of %.1f (a limiter would be needed to reach the target)",
                                   request.outputPath, n.ceiling, l.integratedLUFS, n.target))
        }
        if let gain = summary.gainToAvoidClippingDB {
            warnings.append(String(
                format: "%@: %lld samples clipped to fit %@ (peak %+.2f dBFS, true peak %+.2f dBTP before clipping); a gain of %.1f dB (a gain node {\"type\": \"gain\", \"gain\": %.1f}) or --encoding float would avoid it",
                request.outputPath, summary.clippedSamples, summary.encoding.rawValue, summary.peakDBFS, summary.truePeakDBTP, gain, gain))
        }
        return Result(summary: summary, warnings: warnings, normalization: normalization)
    }

    /// `preset` with a gain node at the very end (the chain, or the master bus of a graph).
    static func appendingGain(_ db: Double, to preset: Preset) -> Preset {
        var p = preset
        let node = NodeSpec(id: "normalize", kind: .gain(linear: pow(10, db / 20)), path: "normalize")
        switch p.form {
        case .chain(let chain): p.form = .chain(chain + [node])
        case .graph(var g): g.master.chain.append(node); p.form = .graph(g)
        }
        return p
    }
}
