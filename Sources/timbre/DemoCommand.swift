import TimbreHost
import ArgumentParser
import Foundation
import TimbreEngine
import TimbrePlugins
import TimbreFile

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Synthesise a 10-second test signal, render it through the default preset and summarise.",
        usage: "timbre demo [<options>]")

    @Option(name: .long, help: "Where to write demo-input.wav and demo-output.wav.") var outputDir: String = "."
    @Option(name: .long, help: "Preset file or shipped name.") var preset: String = "default"
    @Option(name: .long, help: "Seconds of signal.") var seconds: Double = 10

    func run() throws {
        guard seconds > 0 && seconds <= 3600 else { throw HostError.usage("--seconds \(seconds) is out of range (allowed 0…3600)") }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDir, isDirectory: &isDir) {
            guard isDir.boolValue else { throw HostError.usage("--output-dir \(outputDir) is a file, not a folder") }
        } else {
            do { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) } catch {
                throw HostError.io("\(outputDir): cannot create the folder: \(error.localizedDescription)")
            }
        }
        TemporaryFiles.installSignalHandlers()
        let (p, label) = try PresetLoader.load(preset)
        let rate = 48000.0
        let signal = DemoSignal.stereo(seconds: seconds, sampleRate: rate)
        let inputPath = (outputDir as NSString).appendingPathComponent("demo-input.wav")
        let outputPath = (outputDir as NSString).appendingPathComponent("demo-output.wav")
        do {
            let w = try SoundFileWriter(path: inputPath, format: .wav, encoding: .pcm24, sampleRate: Int(rate), channelCount: 2, dither: false)
            try signal.left.withUnsafeBufferPointer { l in
                try signal.right.withUnsafeBufferPointer { r in
                    var ptrs = [UnsafeMutablePointer(mutating: l.baseAddress!), UnsafeMutablePointer(mutating: r.baseAddress!)]
                    try w.write(&ptrs, frameCount: l.count)
                }
            }
            try w.commit()
        } catch let e as AudioFileError { throw HostError.io(e.description) }
        print("Synthesised \(String(format: "%.1f", seconds)) s of test music → \(inputPath)")
        print("Preset: \(p.name) (\(label))")
        for line in p.outline { print(line) }
        do {
            var request = RenderRequest(inputPath: inputPath, outputPath: outputPath, preset: p)
            request.pluginLoader = PluginHost.loader
            let summary = try OfflineRenderer.render(request, presetName: label)
            print(RenderCommand.summaryLine(summary, output: outputPath))
            let inInfo = try AudioFileInfo.scan(path: inputPath)
            print(String(format: "Input peak %.2f dBFS, output peak %.2f dBFS", inInfo.peakDBFS ?? -999, summary.peakDBFS))
        } catch let e as RenderError { throw HostError(e) } catch let e as AudioFileError { throw HostError.io(e.description) }
    }
}
