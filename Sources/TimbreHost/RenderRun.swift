import Foundation
import TimbreEngine
import TimbreFile

/// One `timbre render` of one output: the request (one pass, or two with `--normalize`), the
/// warnings and the summary, without printing. The single render and every file of a batch
/// run through here, so a batch file is exactly what `timbre render IN -o OUT` gives.
public enum RenderRun {
    /// `--normalize` target, true-peak ceiling and mode.
    public struct Normalize: Sendable {
        public var targetLUFS: Double
        public var ceilingDBTP: Double
        /// `.linear` (`--normalize-mode linear`): a gain only, never a limiter; a gain that
        /// would cross the ceiling is cut and the shortfall reported.
        public var linear: Bool
        public init(targetLUFS: Double, ceilingDBTP: Double, linear: Bool) { self.targetLUFS = targetLUFS; self.ceilingDBTP = ceilingDBTP; self.linear = linear }
    }

    /// The command's options as a request without inputs and output.
    public struct Template: Sendable {
        public var request: RenderRequest
        public var label: String
        public var normalize: Normalize?
        public init(request: RenderRequest, label: String, normalize: Normalize? = nil) { self.request = request; self.label = label; self.normalize = normalize }
    }

    /// What `--normalize` did.
    public struct Normalization: Sendable {
        public var gainDB: Double
        public var target: Double
        public var ceiling: Double
        /// Where the gain went: in front of the preset's own final limiter, or at the end.
        public var beforePresetLimiter: Bool
        /// A true-peak limiter was added after the gain (the gain alone would cross the ceiling).
        public var limiterInserted: Bool
        /// `.linear` mode cut the gain to stay under the ceiling.
        public var cutByCeiling: Bool
        /// Measuring passes (the first, unprocessed one included).
        public var passes: Int
        /// The deepest gain reduction of the limiter that follows the gain, dB.
        public var maximumLimitingDB: Double?
        /// That limiter's node key in the rendered plan.
        public var limiterKey: String?
        public init(gainDB: Double, target: Double, ceiling: Double, beforePresetLimiter: Bool, limiterInserted: Bool, cutByCeiling: Bool, passes: Int, maximumLimitingDB: Double? = nil, limiterKey: String? = nil) { self.gainDB = gainDB; self.target = target; self.ceiling = ceiling; self.beforePresetLimiter = beforePresetLimiter; self.limiterInserted = limiterInserted; self.cutByCeiling = cutByCeiling; self.passes = passes; self.maximumLimitingDB = maximumLimitingDB; self.limiterKey = limiterKey }
    }

    public struct Result: Sendable {
        public var summary: RenderSummary
        public var warnings: [String]
        public var normalization: Normalization?
        public init(summary: RenderSummary, warnings: [String], normalization: Normalization? = nil) { self.summary = summary; self.warnings = warnings; self.normalization = normalization }

        /// The integrated loudness reached is more than 0.1 LU from the target.
        public var missedTarget: Bool {
            guard let n = normalization, let l = summary.loudness else { return false }
            return abs(l.integratedLUFS - n.target) > RenderRun.targetTolerance
        }

        public var normalizationText: String? {
            guard let n = normalization, let l = summary.loudness else { return nil }
            var text = String(format: "normalised: gain %+.2f dB", n.gainDB)
            if n.beforePresetLimiter { text += String(format: " before the preset's limiter (up to %.2f dB of limiting)", n.maximumLimitingDB ?? 0) }
            if n.limiterInserted { text += String(format: ", then a %.1f dBTP true-peak limiter (up to %.2f dB of limiting)", n.ceiling, n.maximumLimitingDB ?? 0) }
            text += String(format: ": %.2f LUFS (target %.1f)", l.integratedLUFS, n.target)
            if n.cutByCeiling { text += String(format: ", held under the %.1f dBTP ceiling by --normalize-mode linear", n.ceiling) }
            return text
        }

    /// The summary as JSON, in `timbre info --json`'s field names where they overlap.
        public func json(output: String) -> JSONValue {
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
            if let names = s.channelNames { fields["channelNames"] = .array(names.map { .string($0) }) }
            if let l = s.loudness { fields["loudness"] = l.json }
            if let n = normalization {
                fields["normalization"] = .object([
                    "gainDB": .number((n.gainDB * 100).rounded() / 100), "targetLUFS": .number(n.target), "truePeakCeilingDBTP": .number(n.ceiling),
                    "gainBeforePresetLimiter": .bool(n.beforePresetLimiter), "limiterInserted": .bool(n.limiterInserted),
                    "cutByCeiling": .bool(n.cutByCeiling), "missedTarget": .bool(missedTarget), "passes": .number(Double(n.passes)),
                    "maxLimitingDB": n.maximumLimitingDB.map { .number(($0 * 100).rounded() / 100) } ?? .null,
                ])
            }
            if !s.maximumGainReductionDB.isEmpty {
                fields["maxGainReductionDB"] = .object(s.maximumGainReductionDB.mapValues { .number(($0 * 100).rounded() / 100) })
            }
            return .object(fields)
        }
    }

    /// How close `--normalize` must come to its target, LU.
    public static let targetTolerance = 0.1
    /// The key of the limiter `--normalize` inserts.
    package static let insertedLimiterID = "normalize-limiter"

    /// Renders `request`; `progress` gets the fraction of the whole job (every pass) and the
    /// pass's progress.
    ///
    /// With `--normalize`: a first pass measures the preset's output; the gain to the target
    /// goes in front of the preset's final limiter when it ends with one (at or under the
    /// ceiling), else at the end, followed by a true-peak limiter at the ceiling when the gain
    /// alone would cross it (not in linear mode, which cuts the gain instead). Limiting lowers
    /// the loudness, so measuring passes correct the gain (secant steps, at most 6) until the
    /// output is within 0.05 LU of the target; then the output is written. When the first pass's
    /// output is in memory (a `RenderCapture` within its budget), the trials run on it and the
    /// written pass reads it too — the winning trial's gain and limiter, or the gain alone —
    /// instead of decoding the input and running the preset again.
    public static func perform(_ request: RenderRequest, label: String, normalize: Normalize?,
                        progress: ((Double, RenderProgress) -> Void)? = nil) throws(HostError) -> Result {
        var request = request
        var normalization: Normalization?
        let name = request.inputPaths.first ?? request.outputPath
        var passes = 1
        // With `--normalize`: the first pass, and the audio the file will hold when it is in
        // memory already (a trial's output, or the capture times `gain`).
        var firstPass: RenderSummary?
        var written: TimelineSource?
        var capture: RenderCapture?
        func measure(_ r: RenderRequest, pass: Int, capture: RenderCapture? = nil) throws(HostError) -> RenderSummary {
            do {
                return try OfflineRenderer.render(r, presetName: label, measureOnly: true, capture: capture) { p in progress?(min(0.8, Double(pass) * 0.2 + p.fraction * 0.2), p) }
            } catch { throw HostError(error) }
        }
        if let n = normalize {
            guard !request.inputPaths.contains("-") else {
                throw HostError.usage("--normalize reads its input more than once: give a file, not standard input")
            }
            let limiterAt = n.linear ? nil : finalLimiterPosition(in: request.preset, atOrUnder: n.ceilingDBTP)
            // The first pass renders the preset up to where the gain goes (before its final
            // limiter, if it has one) and keeps that in memory for the trials and the written pass.
            capture = RenderCapture()
            let first = try measure(limiterAt.map { truncated(request, before: $0.index) } ?? request, pass: 0, capture: capture)
            firstPass = first
            guard let measured = first.loudness, measured.integratedLUFS.isFinite else {
                throw HostError.io("\(name): cannot normalise: the rendered audio has no gated loudness (silent, or shorter than 400 ms)")
            }
            var gain = n.targetLUFS - measured.integratedLUFS
            let crosses = measured.truePeakDBTP + gain > n.ceilingDBTP
            var plan = Normalization(gainDB: gain, target: n.targetLUFS, ceiling: n.ceilingDBTP, beforePresetLimiter: limiterAt != nil,
                                     limiterInserted: limiterAt == nil && crosses && !n.linear, cutByCeiling: false, passes: 1)
            // Plan keys: the chain's node id, or "#index" (after the gain is inserted), under "master/" in a graph.
            let prefix = { if case .graph = request.preset.form { return "master/" } else { return "" } }()
            plan.limiterKey = plan.limiterInserted ? prefix + insertedLimiterID
                : limiterAt.map { prefix + ($0.id ?? "#\($0.index + 1)") }
            if n.linear && crosses {
                gain = n.ceilingDBTP - measured.truePeakDBTP
                plan.gainDB = gain; plan.cutByCeiling = true
            }
            func checkRange(_ g: Double) throws(HostError) {
                guard (-96...36).contains(g) else { throw HostError.io("\(name): normalising needs \(String(format: "%+.2f", g)) dB, outside -96…36 dB") }
            }
            try checkRange(gain)
            var predicted = measured.integratedLUFS + gain
            if plan.beforePresetLimiter || plan.limiterInserted {
                // Limiting takes loudness away: correct the gain by the shortfall, divided by how
                // much the loudness rose per dB of gain between the last two passes (secant).
                // The trials run the gain and the limiter over the first pass's output in
                // memory; past the capture's budget they render from the input.
                let limiter = limiterAt.map { finalChain(of: request.preset)[$0.index] } ?? insertedLimiter(ceiling: plan.ceiling)
                let trials = capture.flatMap { $0.overflowed || $0.frameCount == 0 ? nil : NormalizationTrials(capture: $0, sampleRate: first.sampleRate, blockFrames: request.blockFrames, limiter: limiter, layout: first.channelLayout) }
                // Each trial: (gain, loudness reached). (The deepest limiting is the written pass's.)
                func evaluate(_ gains: [Double]) throws(HostError) -> [(gain: Double, reached: Double)] {
                    passes += gains.count
                    if let trials { return Array(zip(gains, trials.run(gainsDB: gains))) }
                    var results: [(gain: Double, reached: Double)] = []
                    for g in gains {
                        let trial = try measure(withGain(g, plan: plan, limiterAt: limiterAt?.index, request), pass: passes)
                        results.append((g, trial.loudness?.integratedLUFS ?? -.infinity))
                    }
                    return results
                }
                // In memory, two gains a round, one on each core: the linear gain and 1.5 dB
                // more, then the secant's estimate and a quarter of its step beyond (the
                // loudness rises ever more slowly with the gain as the limiter works harder).
                var tried: [(gain: Double, reached: Double)] = []
                var next = trials == nil ? [gain] : [gain, gain + 1.5]
                for _ in 0..<(trials == nil ? 6 : 3) {
                    tried += try evaluate(next).filter { $0.reached.isFinite }
                    guard let best = tried.min(by: { abs($0.reached - n.targetLUFS) < abs($1.reached - n.targetLUFS) }) else { break }
                    gain = best.gain; predicted = best.reached
                    trials?.keep(gainDB: best.gain)
                    let shortfall = n.targetLUFS - best.reached
                    if abs(shortfall) <= 0.05 { break }
                    // Slope: between the two trials nearest the target.
                    let near = tried.sorted { abs($0.reached - n.targetLUFS) < abs($1.reached - n.targetLUFS) }
                    var slope = 1.0
                    if near.count >= 2, abs(near[0].gain - near[1].gain) > 1e-6 {
                        slope = min(1, max(0.05, (near[0].reached - near[1].reached) / (near[0].gain - near[1].gain)))
                    }
                    let step = shortfall / slope
                    try checkRange(best.gain + step)
                    next = trials == nil ? [best.gain + step] : [best.gain + step, best.gain + 1.25 * step]
                }
                plan.gainDB = gain
                // The file's audio is the winning trial's: the capture through the gain and limiter.
                if let trials, trials.heldPeaks != nil { written = trials.writtenSource(gainDB: gain) }
            } else if let capture, !capture.overflowed, capture.frameCount > 0 {
                // A gain alone: the capture (the whole preset's output) times the gain.
                written = MemoryFrameSource((0..<capture.channelCount).map { capture.channel($0) }, frameCount: capture.frameCount, gain: Float(pow(10, gain / 20)))
            }
            plan.passes = passes
            if request.strict && abs(predicted - n.targetLUFS) > targetTolerance {
                throw HostError.io(String(format: "%@: --normalize would reach %.2f LUFS instead of %.1f%@ (--strict: nothing written)", name, predicted, n.targetLUFS,
                                         plan.cutByCeiling ? String(format: ": --normalize-mode linear holds the gain under the %.1f dBTP ceiling", n.ceilingDBTP) : ""))
            }
            request = withGain(gain, plan: plan, limiterAt: limiterAt?.index, request)
            normalization = plan
        }
        var summary: RenderSummary
        do {
            let report = { (p: RenderProgress) -> Void in progress?(normalization == nil ? p.fraction : 0.8 + p.fraction * 0.2, p) ?? () }
            if let written, let first = firstPass {
                // The audio is in memory already: write it (no decoding, no preset). A trial's
                // audio comes with that trial's loudness meter.
                let limited = written as? LimitedCaptureSource
                summary = try OfflineRenderer.write(from: written, sampleRate: first.sampleRate, request: request, presetName: label,
                                                    renderedBy: first, measured: limited?.takeTrialMeter(), progress: report)
                if let key = normalization?.limiterKey, let limited { summary.maximumGainReductionDB[key] = limited.limitingDB }
            } else {
                summary = try OfflineRenderer.render(request, presetName: label, progress: report)
            }
        } catch { throw HostError(error) }
        if var n = normalization, let key = n.limiterKey {
            n.maximumLimitingDB = summary.maximumGainReductionDB[key]
            normalization = n
        }
        var result = Result(summary: summary, warnings: summary.warnings, normalization: normalization)
        if let n = normalization, result.missedTarget, let l = summary.loudness {
            let why = n.cutByCeiling ? String(format: "the gain was held under the %.1f dBTP ceiling (--normalize-mode linear; without it a limiter would reach the target)", n.ceiling)
                : "the limiting needed did not converge in \(n.passes - 1) passes"
            result.warnings.append(String(format: "%@: %.2f LUFS instead of %.1f: %@", request.outputPath, l.integratedLUFS, n.target, why))
        }
        if let gain = summary.gainToAvoidClippingDB {
            result.warnings.append(String(
                format: "%@: %lld samples clipped to fit %@ (peak %+.2f dBFS, true peak %+.2f dBTP before clipping); a gain of %.1f dB (a gain node {\"type\": \"gain\", \"gain\": %.1f}) or --encoding float would avoid it",
                request.outputPath, summary.clippedSamples, summary.encoding.rawValue, summary.peakDBFS, summary.truePeakDBTP, gain, gain))
        }
        return result
    }

    /// The preset's final chain: the chain, or the master bus of a graph.
    package static func finalChain(of preset: Preset) -> [NodeSpec] {
        switch preset.form {
        case .chain(let c): c
        case .graph(let g): g.master.chain
        }
    }

    /// The limiter `--normalize` inserts after its gain.
    package static func insertedLimiter(ceiling: Double) -> NodeSpec {
        NodeSpec(id: insertedLimiterID, kind: .limiter(LimiterSettings(ceilingDB: ceiling)), path: insertedLimiterID)
    }

    /// `request` with its final chain cut before `index`: the part a trial's gain follows.
    package static func truncated(_ request: RenderRequest, before index: Int) -> RenderRequest {
        var r = request
        switch r.preset.form {
        case .chain(let chain): r.preset.form = .chain(Array(chain[..<index]))
        case .graph(var g): g.master.chain = Array(g.master.chain[..<index]); r.preset.form = .graph(g)
        }
        return r
    }

    /// Where the preset's final chain (the chain, or the master bus of a graph) ends with a
    /// true-peak `limiter` whose ceiling is at or under `ceiling` (measuring nodes after it ignored): its
    /// index in that chain and its id.
    package static func finalLimiterPosition(in preset: Preset, atOrUnder ceiling: Double) -> (index: Int, id: String?)? {
        let chain = finalChain(of: preset)
        guard let last = chain.lastIndex(where: { !$0.bypass && $0.kind.settings(as: AnalysisSettings.self) == nil }),
              let limiter = chain[last].kind.settings(as: LimiterSettings.self), limiter.ceilingDB <= ceiling,
              !limiter.samplePeak else { return nil }  // a sample-peak limiter does not hold a true-peak ceiling
        return (last, chain[last].id)
    }

    /// `request` with the normalising gain in place: in front of the final limiter at
    /// `limiterAt`, or at the end (followed by the inserted limiter when the plan has one).
    package static func withGain(_ db: Double, plan: Normalization, limiterAt: Int?, _ request: RenderRequest) -> RenderRequest {
        var r = request
        var nodes = [NodeSpec(id: "normalize", kind: .gain(linear: pow(10, db / 20)), path: "normalize")]
        if plan.limiterInserted { nodes.append(insertedLimiter(ceiling: plan.ceiling)) }
        func insert(into chain: [NodeSpec]) -> [NodeSpec] {
            var c = chain
            c.insert(contentsOf: nodes, at: limiterAt ?? c.count)
            return c
        }
        switch r.preset.form {
        case .chain(let chain): r.preset.form = .chain(insert(into: chain))
        case .graph(var g): g.master.chain = insert(into: g.master.chain); r.preset.form = .graph(g)
        }
        return r
    }
}
