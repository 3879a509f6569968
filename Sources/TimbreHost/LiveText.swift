import Foundation
import TimbreEngine

/// The live session's text: `status`'s CPU fields, the meter line, the loop's pace. One place,
/// used by `timbre live` and any host built on ``LiveSession``.
package enum LiveText {
    /// `status`'s `cpuSeconds`: CPU time used so far by JACK's thread (`audio`), the control
    /// loop (`control`) and the web server's thread (`web`, with --http), read from each
    /// thread's CPU-time clock (microseconds kept).
    package static func cpuSeconds(audio: Double?, control: Double?, web: Double?) -> JSONValue {
        var o: [String: JSONValue] = [:]
        for (key, value) in [("audio", audio), ("control", control), ("web", web)] {
            if let value { o[key] = .number((value * 1e6).rounded() / 1e6) }
        }
        return .object(o)
    }

    /// `status`'s `convolution`: FFT level runs the convolution nodes' worker threads computed
    /// and runs late for their deadline (left out of the output, never waited for), in total
    /// and by node key.
    package static func convolutionStatus(_ counters: [String: ConvolutionCounters]) -> JSONValue {
        let nodes = counters.mapValues { JSONValue.object(["workerRuns": .number(Double($0.workerRuns)), "late": .number(Double($0.late))]) }
        return .object([
            "workerRuns": .number(Double(counters.values.reduce(0) { $0 + $1.workerRuns })),
            "late": .number(Double(counters.values.reduce(0) { $0 + $1.late })),
            "nodes": .object(nodes),
        ])
    }

    /// The control loop's longest sleep: 20 ms with a MIDI input (its edits are coalesced per
    /// 20 ms anyway), else 50 ms (players' rings hold seconds; events are printed, not acted on).
    package static func loopPace(midi: Bool) -> Double { midi ? 0.02 : 0.05 }

    /// One compact line: per node, the channels' held peaks and average power, and loudness.
    package static func meterLine(_ meters: JSONValue) -> String {
        guard case .object(let nodes) = meters, !nodes.isEmpty else { return "meter: none" }
        func num(_ v: JSONValue?) -> String { if case .number(let d)? = v { return String(format: "%.1f", d) }; return "-inf" }
        var parts: [String] = []
        for key in nodes.keys.sorted() {
            guard case .object(let o)? = nodes[key] else { continue }
            var text = key + ":"
            if case .array(let channels)? = o["channels"] {
                for (k, ch) in channels.enumerated() {
                    guard case .object(let c) = ch else { continue }
                    text += " \(k + 1) \(num(c["peakPower"]))/\(num(c["averagePower"]))"
                }
                text += " dBFS"
            }
            if case .string("loudness")? = o["type"] {
                text += " | M \(num(o["momentaryLUFS"])) S \(num(o["shortTermLUFS"])) I \(num(o["integratedLUFS"])) LUFS, LRA \(num(o["loudnessRangeLU"])) LU"
            }
            if o["gainReductionDB"] != nil {
                text += " GR \(num(o["gainReductionDB"])) dB (max \(num(o["maxGainReductionDB"])))"
            }
            parts.append(text)
        }
        return "meter: " + parts.joined(separator: "; ")
    }
}
