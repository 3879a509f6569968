import TimbreHost
import ArgumentParser
import Foundation
import TimbreEngine
import TimbreFile

struct MeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meter",
        abstract: "Measure loudness (EBU R 128 / ITU-R BS.1770-4), loudness range, true peak, sample peak and RMS of audio files.",
        discussion: """
        Integrated loudness is gated (−70 LUFS absolute, −10 LU relative); momentary (400 ms) and \
        short-term (3 s) maxima are read every 10 ms; the loudness range (EBU Tech 3342) uses \
        short-term values taken --lra-rate times a second (10, the current text; 1 matches \
        libebur128 1.2). True peak oversamples 4× (2× at 88.2–192 kHz) and fits a parabola between grid points. RMS follows AES17: a \
        full-scale sine reads 0 dBFS. Clipped samples are those at or beyond full scale.
        """)

    @Argument(help: "Audio files (any format libsndfile reads).") var files: [String]
    @Flag(name: .long, help: "Print JSON: an array with one object per file.") var json = false
    @Option(name: .long, help: "Short-term values per second for the loudness range: 10 or 1.") var lraRate: Int = 10

    func run() throws {
        guard [1, 10].contains(lraRate) else { throw HostError.usage("--lra-rate \(lraRate) is not allowed (allowed 1 or 10)") }
        var reports: [JSONValue] = []
        for path in files {
            var bar = ProgressBar(enabled: !json || isatty(STDOUT_FILENO) == 0)
            let start = Date()
            // Seconds of audio, so the bar can say how fast the measurement runs.
            let seconds = (try? SoundFileReader(path: path))?.durationSeconds ?? 0
            let report: LoudnessReport
            do {
                report = try LoudnessAnalyzer.measure(path: path, shortTermRateHz: lraRate) { fraction in
                    let elapsed = Date().timeIntervalSince(start)
                    bar.update(fraction: fraction, elapsed: elapsed, speed: elapsed > 0 ? fraction * seconds / elapsed : 0)
                }
            } catch {
                bar.finish()
                throw HostError.io(error.description)
            }
            bar.finish()
            if json {
                guard case .object(var o) = report.json else { continue }
                o["path"] = .string(path)
                reports.append(.object(o))
            } else {
                print(path)
                print(report.text)
            }
        }
        if json { print(JSONValue.array(reports).jsonText) }
    }
}
