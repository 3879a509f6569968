// Drives Timbre's sessions from Swift, as the `timbre` CLI does: a loudness normalisation, a
// batch over several files with a JSON Lines report, and (with a JACK server running and
// `--live SECONDS`) a live session stopped from another thread.
//
//   swift run HostSessionsExample input.wav out-folder [--live 5]
import Foundation
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreHost

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2 else { print("usage: HostSessionsExample INPUT OUTPUT-FOLDER [--live SECONDS]"); exit(1) }
let (input, folder) = (args[0], args[1])
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
let preset = Preset(name: "voice", form: .chain([
    NodeSpec(id: "hp", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 80, slopeDBPerOctave: 12))),
    NodeSpec(id: "presence", kind: .eq([EQBand(frequencyHz: 3500, gainDB: 2, q: 1)])),
]))

do {
    // 1. Normalise to −16 LUFS integrated with a −1 dBTP ceiling (a true-peak limiter is
    //    added only where the gain alone would cross it), as `timbre render --normalize -16`.
    let request = RenderRequest(inputPath: input, outputPath: folder + "/normalised.wav", preset: preset, meter: true)
    let result = try RenderRun.perform(request, label: "voice", normalize: .init(targetLUFS: -16, ceilingDBTP: -1, linear: false))
    print(result.normalizationText ?? "not normalised")

    // 2. A batch: every file rendered alone through the preset on two threads, FLAC out, one
    //    JSON line per file in the report, as `timbre render --output-dir`.
    let jobs = try BatchRender.plan(inputs: [input, folder + "/normalised.wav"], directory: folder + "/batch", format: "flac", recursive: false)
    let template = RenderRun.Template(request: RenderRequest(inputPaths: [], outputPath: "", preset: preset), label: "voice")
    let summary = try BatchRender(jobs: jobs, template: template, parallel: 2, report: folder + "/report.jsonl").run { outcome, _ in
        print("  \(outcome.job.output): \(outcome.status.rawValue)")
    }
    print(summary.text)

    // 3. Live: the preset as a JACK client, changed from this thread, stopped after SECONDS.
    if let i = args.firstIndex(of: "--live"), i + 1 < args.count, let seconds = Double(args[i + 1]) {
        let file = folder + "/voice.json"
        try PresetEncoder.data(preset).write(to: URL(fileURLWithPath: file))
        var options = LiveSession.Options(preset: file)
        options.clientName = "host-sessions-example"
        let session = try LiveSession(options, say: { print($0) }, reportError: { print("error: \($0)") })
        let stopper = session.stopper
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { stopper.stop() }
        let status = session.run()
        print("live session ended with status \(status)")
        exit(status)
    }
} catch let error as HostError {
    print("error: \(error.message)")
    exit(error.exitCode)
}
