import Foundation
import TimbreEngine

/// What a ``BatchRender`` did: each file's outcome, and the totals `timbre render
/// --output-dir` prints (a line, or JSON with `--json`).
public struct BatchSummary: Sendable {
    public let jobs: [BatchRender.Job]
    public let outcomes: [BatchRender.Outcome]
    public let wallSeconds: Double
    public let parallel: Int

    public var failed: [BatchRender.Outcome] { outcomes.filter { $0.status == .failed } }
    public var skipped: Int { outcomes.filter { $0.status == .skipped }.count }
    public var rendered: Int { jobs.count - failed.count - skipped }
    /// Seconds of audio rendered.
    public var audioSeconds: Double { outcomes.compactMap { $0.durationSeconds }.reduce(0, +) }
    /// 0, or 2 when any file failed.
    public var exitCode: Int32 { failed.isEmpty ? 0 : 2 }

    public var json: JSONValue {
        let byInput = Dictionary(outcomes.map { ($0.job.input, $0) }, uniquingKeysWith: { a, _ in a })
        return .object([
            "files": .number(Double(jobs.count)),
            "rendered": .number(Double(rendered)),
            "skipped": .number(Double(skipped)),
            "failed": .array(failed.map { .string($0.job.input) }),
            "withWarnings": .array(outcomes.filter { !($0.result?.warnings.isEmpty ?? true) }.map { .string($0.job.input) }),
            "audioSeconds": .number((audioSeconds * 1000).rounded() / 1000),
            "wallSeconds": .number((wallSeconds * 1000).rounded() / 1000),
            "speed": .number((audioSeconds / max(wallSeconds, 1e-9) * 10).rounded() / 10),
            "jobs": .number(Double(parallel)),
            "outputs": .array(jobs.compactMap { byInput[$0.input]?.result?.json(output: $0.output) }),
        ])
    }

    public var text: String {
        let warned = outcomes.filter { !($0.result?.warnings.isEmpty ?? true) }.count
        return String(format: "%d files: %d rendered%@, %d skipped, %d failed; %@ of audio in %.2f s, %.1f× real time (%d jobs)",
                      jobs.count, rendered, warned > 0 ? " (\(warned) with warnings)" : "", skipped, failed.count, ProgressBar.clock(audioSeconds), wallSeconds,
                      audioSeconds / max(wallSeconds, 1e-9), parallel)
    }
}
