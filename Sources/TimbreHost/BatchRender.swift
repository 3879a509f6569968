import Foundation
import TimbreEngine
import TimbreFile

/// `timbre render IN… --output-dir DIR [--jobs N]`: every input rendered alone through the same
/// preset, `jobs` at a time, on threads of this process.
///
/// Each file goes through ``RenderRun`` exactly as `timbre render IN -o OUT` would (atomic
/// output: a temporary file renamed on success, registered so a signal removes it). Threads
/// rather than a process per file: starting `timbre` costs ~20 ms, as long as rendering a
/// one-second file takes ~1.5 ms, and a folder of short files would be spent starting
/// processes. One line of progress on stderr (a terminal only), every failure reported as it
/// happens, a summary at the end; the exit code is 2 when any file failed. `--shard K/N`
/// splits the list by a hash of each path, the same on every machine, so N machines or array
/// tasks render each file once between them; `--skip-existing` makes a rerun finish the job.
public struct BatchRender {
    public struct Job: Sendable {
        public let input: String
        public let output: String
        public init(input: String, output: String) { self.input = input; self.output = output }
    }

    /// `--shard K/N`: the files whose path hashes to K modulo N (K from 0).
    public struct Shard {
        public let index: Int
        public let count: Int

        public init(_ text: String) throws(HostError) {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1 else {
                throw .usage("--shard \(text) is not K/N (e.g. --shard 0/4; in a Slurm array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-(N-1))")
            }
            guard (0..<n).contains(k) else {
                throw .usage("--shard \(text): K is out of range (allowed 0…\(n - 1); shards count from 0, as Slurm's --array=0-\(n - 1) does)")
            }
            index = k; count = n
        }

        /// FNV-1a of the path's bytes: stable across machines, runs and list orders.
        public func contains(_ path: String) -> Bool {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in path.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            return Int(h % UInt64(count)) == index
        }
    }

    public enum Status: String, Sendable { case rendered, skipped, failed }

    public struct Outcome: Sendable {
        public let job: Job
        public let status: Status
        public let error: String?
        public let result: RenderRun.Result?
        public let seconds: Double
        public init(job: Job, status: Status, error: String? = nil, result: RenderRun.Result? = nil, seconds: Double) { self.job = job; self.status = status; self.error = error; self.result = result; self.seconds = seconds }
        public var durationSeconds: Double? { result?.summary.durationSeconds }
    }

    public let jobs: [Job]
    public let template: RenderRun.Template
    public let parallel: Int
    public let skipExisting: Bool
    public let report: String?
    /// `report`: a JSON Lines file, one line per file as it ends.
    public init(jobs: [Job], template: RenderRun.Template, parallel: Int, skipExisting: Bool = false, report: String? = nil) {
        self.jobs = jobs; self.template = template; self.parallel = parallel; self.skipExisting = skipExisting; self.report = report
    }

    /// Paths from `--files-from` (a file, or `-` for standard input): one per line, blank lines
    /// and surrounding spaces ignored.
    public static func readList(_ source: String) throws(HostError) -> [String] {
        guard let data = InputText.contents(of: source) else { throw .usage("--files-from \(source): cannot read the file") }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Extensions a folder search takes as sound files.
    package static let soundExtensions: Set<String> = ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc", "caf", "w64", "rf64", "au", "snd"]

    /// The output path for each input in `directory`: its file name (its path below a folder
    /// given with `recursive`), with the extension of `format` when one is given. Throws a
    /// usage error for a folder without `recursive`, when two inputs would write the same file
    /// or an output would replace its own input.
    public static func plan(inputs: [String], directory: String, format: String?, recursive: Bool) throws(HostError) -> [Job] {
        var pairs: [(input: String, relative: String)] = []
        for input in inputs {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDir), isDir.boolValue {
                guard recursive else { throw .usage("\(input) is a folder: add --recursive to render the sound files in it (subfolders kept)") }
                let base = URL(fileURLWithPath: input).standardizedFileURL
                guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
                var found: [(String, String)] = []
                for case let url as URL in walker where soundExtensions.contains(url.pathExtension.lowercased())
                    && (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true && !url.lastPathComponent.hasPrefix(".") {
                    let rel = String(url.standardizedFileURL.path.dropFirst(base.path.count + 1))
                    found.append((url.path, rel))
                }
                pairs += found.sorted { $0.1 < $1.1 }
            } else {
                pairs.append((input, URL(fileURLWithPath: input).lastPathComponent))
            }
        }
        var seen: [String: String] = [:]
        var jobs: [Job] = []
        for (input, relative) in pairs {
            var name = relative
            if let format { name = (relative as NSString).deletingPathExtension + "." + format.lowercased() }
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

    /// Runs every job on `parallel` threads; `onOutcome(outcome, soFar)` is called as each file
    /// ends (one call at a time, from the workers). Throws only when the report cannot be created.
    public func run(onOutcome: @escaping @Sendable (Outcome, [Outcome]) -> Void = { _, _ in }) throws(HostError) -> BatchSummary {
        let started = Date()
        let log = OutcomeLog()
        let reportHandle: FileHandle?
        if let report {
            guard FileManager.default.createFile(atPath: report, contents: nil), let h = FileHandle(forWritingAtPath: report) else {
                throw .io("--report \(report): cannot create the file")
            }
            reportHandle = h
        } else { reportHandle = nil }
        // Folders below the output folder (`--recursive` keeps the tree).
        for dir in Set(jobs.map { URL(fileURLWithPath: $0.output).deletingLastPathComponent().path }) {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        if skipExisting { Self.removeStaleTemporaries(in: Set(jobs.map { URL(fileURLWithPath: $0.output).deletingLastPathComponent().path })) }
        let next = JobCounter()
        let group = DispatchGroup()
        for _ in 0..<min(parallel, max(jobs.count, 1)) {
            group.enter()
            let thread = Thread { [jobs, template, skipExisting] in
                while let i = next.take(below: jobs.count) {
                    let outcome = Self.render(jobs[i], template: template, skipExisting: skipExisting)
                    log.lock.lock()
                    log.items.append(outcome)
                    if let reportHandle { reportHandle.write(Data((Self.reportLine(outcome).jsonText + "\n").utf8)) }
                    onOutcome(outcome, log.items)
                    log.lock.unlock()
                }
                group.leave()
            }
            thread.stackSize = 1 << 22
            thread.start()
        }
        group.wait()
        try? reportHandle?.close()
        return BatchSummary(jobs: jobs, outcomes: log.items, wallSeconds: Date().timeIntervalSince(started), parallel: parallel)
    }

    /// One file, as `timbre render IN -o OUT` renders it (kept as it is with `skipExisting`
    /// when a complete output exists).
    package static func render(_ job: Job, template: RenderRun.Template, skipExisting: Bool) -> Outcome {
        let started = Date()
        if skipExisting && isComplete(job.output) {
            return Outcome(job: job, status: .skipped, error: nil, result: nil, seconds: 0)
        }
        var request = template.request
        request.inputPaths = [job.input]
        request.outputPath = job.output
        do {
            let result = try RenderRun.perform(request, label: template.label, normalize: template.normalize)
            return Outcome(job: job, status: .rendered, error: nil, result: result, seconds: Date().timeIntervalSince(started))
        } catch {
            return Outcome(job: job, status: .failed, error: error.message, result: nil, seconds: Date().timeIntervalSince(started))
        }
    }

    /// An output a previous run finished: it opens as audio, has frames, and holds every frame
    /// its header announces. (Timbre's outputs appear only when complete; this also refuses a
    /// file another tool left half-written.)
    package static func isComplete(_ path: String) -> Bool {
        guard let reader = try? SoundFileReader(path: path) else { return false }
        return reader.frameCount > 0 && reader.promisedFrames == nil
    }

    /// Temporary files (`.NAME.timbre-PID-N.tmp`) a killed run left (SIGKILL, a power cut: no
    /// handler ran), removed when their process is gone, so a resumed batch leaves a clean folder.
    package static func removeStaleTemporaries(in folders: Set<String>) {
        for folder in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".tmp") {
                guard let marker = name.range(of: ".timbre-", options: .backwards) else { continue }
                let fields = name[marker.upperBound...].split(separator: "-")
                guard let pid = fields.first.flatMap({ Int32($0) }), kill(pid, 0) != 0 && errno == ESRCH else { continue }
                unlink(folder + "/" + name)
            }
        }
    }

    package static func reportLine(_ o: Outcome) -> JSONValue {
        func round(_ v: Double?) -> JSONValue { v.map { $0.isFinite ? .number(($0 * 100).rounded() / 100) : .null } ?? .null }
        let s = o.result?.summary
        return .object([
            "input": .string(o.job.input),
            "output": .string(o.job.output),
            "status": .string(o.status.rawValue),
            "error": o.error.map { .string($0) } ?? .null,
            "loudnessLUFS": round(s?.loudness?.integratedLUFS),
            "peakDBFS": round(s?.peakDBFS),
            "truePeakDBTP": round(s?.truePeakDBTP),
            "durationSeconds": round(s?.durationSeconds),
            "seconds": .number((o.seconds * 1000).rounded() / 1000),
            "warnings": .array((o.result?.warnings ?? []).map { .string($0) }),
        ])
    }
}

/// The next job index, taken by the worker threads.
package final class JobCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    package func take(below limit: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}

/// The outcomes so far, appended by the worker threads under `lock`.
package final class OutcomeLog: @unchecked Sendable {
    package let lock = NSLock()
    package var items: [BatchRender.Outcome] = []
}

/// `[3/10 files, 1 failed]  2:10 of audio  0:04` on one line of stderr, when it is a terminal.
package struct BatchProgress: Sendable {
    package let total: Int
    package let enabled: Bool
    package init(total: Int, enabled: Bool) { self.total = total; self.enabled = enabled }

    package func draw(outcomes: [BatchRender.Outcome], elapsed: Double) {
        guard enabled else { return }
        let failed = outcomes.filter { $0.status == .failed }.count
        let audio = outcomes.compactMap { $0.durationSeconds }.reduce(0, +)
        let line = String(format: "\r[%d/%d files%@]  %@ of audio  %@", outcomes.count, total,
                          failed > 0 ? ", \(failed) failed" : "", ProgressBar.clock(audio), ProgressBar.clock(elapsed))
        FileHandle.standardError.write(Data(line.utf8))
    }

    package func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
