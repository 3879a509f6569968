import Foundation
import TimbreEngine

/// `timbre render IN… --output-dir DIR [--jobs N]`: every input rendered through the same
/// preset by its own `timbre render` process (this executable), `jobs` at a time.
///
/// A process per file keeps each render exactly what `timbre render IN -o OUT` gives (the same
/// code, atomic output: a temporary file renamed on success), keeps files from sharing
/// memory or a crash, and spreads over the cores without any shared state. One line of
/// progress on stderr (a terminal only), every failure reported as it happens with the
/// child's own message, a summary at the end; the exit code is 2 when any file failed.
/// Each file's render is independent and idempotent, so fleets beyond one machine can run
/// the same command per file under a job runner (docs/ARCHITECTURE.md, "Batch rendering").
struct BatchRender {
    struct Job: Sendable {
        let input: String
        let output: String
    }

    struct Outcome: Sendable {
        let job: Job
        let status: Int32
        let summary: JSONValue?
        let errorText: String

        /// The rendered duration from the child's JSON summary.
        var durationSeconds: Double? {
            if case .object(let o)? = summary, case .number(let d)? = o["durationSeconds"] { return d }
            return nil
        }
    }

    let jobs: [Job]
    /// Options every child gets after `render IN -o OUT` (the preset, encoding, rate…).
    let options: [String]
    let parallel: Int
    let quiet: Bool
    let json: Bool

    /// The output path for each input in `directory`: its file name, with the extension of
    /// `format` when one is given. Throws a usage error when two inputs would write the same
    /// file or an output would replace its own input.
    static func plan(inputs: [String], directory: String, format: String?) throws(CLIError) -> [Job] {
        var seen: [String: String] = [:]
        var jobs: [Job] = []
        for input in inputs {
            var name = URL(fileURLWithPath: input).lastPathComponent
            if let format { name = URL(fileURLWithPath: name).deletingPathExtension().appendingPathExtension(format.lowercased()).lastPathComponent }
            let output = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            let key = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
            if let other = seen[key] {
                throw .usage("\(other) and \(input) would both be written to \(output): rename one, or render them to different folders")
            }
            if URL(fileURLWithPath: input).standardizedFileURL.resolvingSymlinksInPath().path == key {
                throw .usage("\(input) would be replaced by its own output: choose another --output-dir")
            }
            seen[key] = input
            jobs.append(Job(input: input, output: output))
        }
        return jobs
    }

    /// Runs every job; returns the process exit code (0, or 2 when any file failed).
    func run() -> Int32 {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let started = Date()
        let log = OutcomeLog()
        let progress = BatchProgress(total: jobs.count, enabled: !quiet && isatty(STDERR_FILENO) == 1)
        progress.draw(outcomes: [], elapsed: 0)
        let slots = DispatchSemaphore(value: parallel)
        let group = DispatchGroup()
        for job in jobs {
            slots.wait()
            group.enter()
            Thread.detachNewThread {
                let outcome = Self.render(job, executable: executable, options: options)
                log.lock.lock()
                log.items.append(outcome)
                progress.clear()
                if outcome.status != 0 {
                    let text = outcome.errorText.isEmpty ? "timbre: error: \(job.input): render failed (exit \(outcome.status))\n" : outcome.errorText
                    FileHandle.standardError.write(Data(text.utf8))
                }
                progress.draw(outcomes: log.items, elapsed: Date().timeIntervalSince(started))
                log.lock.unlock()
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        progress.clear()
        let outcomes = log.items
        let wall = Date().timeIntervalSince(started)
        let failed = outcomes.filter { $0.status != 0 }
        let audio = outcomes.compactMap { $0.durationSeconds }.reduce(0, +)
        if json {
            let ordered = jobs.compactMap { job in outcomes.first { $0.job.input == job.input } }
            print(JSONValue.object([
                "files": .number(Double(jobs.count)),
                "rendered": .number(Double(jobs.count - failed.count)),
                "failed": .array(failed.map { .string($0.job.input) }),
                "audioSeconds": .number((audio * 1000).rounded() / 1000),
                "wallSeconds": .number((wall * 1000).rounded() / 1000),
                "speed": .number((audio / max(wall, 1e-9) * 10).rounded() / 10),
                "jobs": .number(Double(parallel)),
                "outputs": .array(ordered.compactMap(\.summary)),
            ]).jsonText)
        } else if !quiet {
            print(String(format: "%d files: %d rendered, %d failed; %@ of audio in %.2f s, %.1f× real time (%d jobs)",
                         jobs.count, jobs.count - failed.count, failed.count, ProgressBar.clock(audio), wall, audio / max(wall, 1e-9), parallel))
        }
        return failed.isEmpty ? 0 : 2
    }

    /// One child `timbre render IN -o OUT <options> -q --json`; its summary read from stdout.
    static func render(_ job: Job, executable: String, options: [String]) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["render", job.input, "-o", job.output] + options + ["-q", "--json"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            return Outcome(job: job, status: 2, summary: nil, errorText: "timbre: error: \(job.input): cannot start a render process: \(error)\n")
        }
        // Read both pipes to the end before waiting (a child blocked on a full pipe never exits).
        nonisolated(unsafe) var errData = Data()
        let errDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        process.waitUntilExit()
        let summary = try? PresetDecoder.parse(outData)
        return Outcome(job: job, status: process.terminationStatus, summary: summary, errorText: String(decoding: errData, as: UTF8.self))
    }
}

/// The outcomes so far, appended by the worker threads under `lock`.
final class OutcomeLog: @unchecked Sendable {
    let lock = NSLock()
    var items: [BatchRender.Outcome] = []
}

/// `[3/10 files, 1 failed]  2:10 of audio  0:04` on one line of stderr, when it is a terminal.
struct BatchProgress: Sendable {
    let total: Int
    let enabled: Bool

    func draw(outcomes: [BatchRender.Outcome], elapsed: Double) {
        guard enabled else { return }
        let failed = outcomes.filter { $0.status != 0 }.count
        let audio = outcomes.compactMap { $0.durationSeconds }.reduce(0, +)
        let line = String(format: "\r[%d/%d files%@]  %@ of audio  %@", outcomes.count, total,
                          failed > 0 ? ", \(failed) failed" : "", ProgressBar.clock(audio), ProgressBar.clock(elapsed))
        FileHandle.standardError.write(Data(line.utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
