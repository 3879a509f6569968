// TheAmazingAudioEngine's two-channel demo on Timbre: a backing track and a second track,
// each a `player` channel with its own 10-band EQ, volume and pan, mixed on the master bus.
// Offline it renders the graph to a file; with `--live` it runs the same graph as a JACK
// client and changes volume and pan while it plays, as a mixing desk would.
//
//   swift run -c release TwoChannelsExample out.wav          # offline
//   swift run -c release TwoChannelsExample --live           # live (a JACK server must run)
import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbreJack

let arguments = Array(CommandLine.arguments.dropFirst())
let live = arguments.contains("--live")
let output = arguments.first { !$0.hasPrefix("--") } ?? "two-channels.wav"

// Two tracks, written next to the preset: a chord (backing) and a melody (a second track, mono).
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-two-channels").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
func writeTrack(_ name: String, channels: Int, seconds: Double, _ sample: (Double) -> Float) throws {
    let fs = 48000.0, frames = Int(seconds * fs)
    let writer = try SoundFileWriter(path: folder + "/" + name, format: .wav, encoding: .float, sampleRate: Int(fs), channelCount: channels, dither: false)
    let buffers = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
    defer { buffers.forEach { $0.deallocate() } }
    for i in 0..<frames { let v = sample(Double(i) / fs); for c in 0..<channels { buffers[c][i] = v } }
    try buffers.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: frames) }
    try writer.commit()
}
try writeTrack("backing.wav", channels: 2, seconds: 4) { t in
    Float([220.0, 277.18, 329.63].reduce(0) { $0 + 0.12 * sin(2 * .pi * $1 * t) })
}
try writeTrack("melody.wav", channels: 1, seconds: 4) { t in
    let notes = [440.0, 493.88, 554.37, 659.26]
    return Float(0.3 * sin(2 * .pi * notes[Int(t * 2) % 4] * t))
}

// CH1 and CH2, each with its own EQ (TheAmazingAudioEngine's 10 bands), into the master bus.
let presetPath = folder + "/two-channels.json"
let preset = #"""
{"version": 1, "name": "Two channels", "graph": {
  "channels": [
    {"id": "backing", "player": {"file": "backing.wav", "loops": 1}, "volume": 0.8,
     "chain": [{"type": "eq", "id": "eq1", "bands": [{"frequency": 100, "gain": -6}, {"frequency": 3000, "gain": 2}]}]},
    {"id": "melody", "player": {"file": "melody.wav", "loops": 1}, "volume": 0.7, "pan": 0.3,
     "chain": [{"type": "eq", "id": "eq2", "bands": [{"frequency": 1000, "gain": 3, "q": 0.8}, {"frequency": 8000, "gain": -4, "shape": "highshelf"}]}]}
  ],
  "master": {"chain": [{"type": "loudness", "id": "out"}], "volume": 0.9}
}}
"""#
try Data(preset.utf8).write(to: URL(fileURLWithPath: presetPath))
let document = try PresetDecoder.parse(Data(preset.utf8))

if !live {
    var request = RenderRequest(inputPaths: [], outputPath: output, preset: try PresetDecoder.decode(document))
    request.presetDirectory = folder
    let summary = try OfflineRenderer.render(request, presetName: presetPath)
    print(String(format: "%@: %lld frames (%.3f s) at %.0f Hz, %d channels, peak %.2f dBFS", output, summary.frames,
                 Double(summary.frames) / summary.sampleRate, summary.sampleRate, summary.outputChannels, summary.peakDBFS))
} else {
    let host = try JackHost(name: "two-channels", document: document, inputs: 1, outputs: 2,
                            host: .files(in: folder))
    let prefetcher = PlayerPrefetcher()
    prefetcher.update(Array(host.engine.playerStates.values))
    prefetcher.start()
    try host.activate()
    for (k, port) in ["system:playback_1", "system:playback_2"].enumerated() { try? host.jack.connect(host.outputPortNames[k], port) }
    let control = ControlInterpreter(engine: host.engine, loadDocument: { _ in throw CocoaError(.fileNoSuchFile) })
    // A slow crossfade between the channels and a pan sweep, as a desk's faders would make.
    for step in 0...40 {
        let x = Double(step) / 40
        _ = try control.perform(.set(address: "backing.volume", value: 0.8 * (1 - x) + 0.2 * x))
        _ = try control.perform(.set(address: "melody.pan", value: -0.8 + 1.6 * x))
        prefetcher.update(Array(host.engine.playerStates.values))
        _ = host.engine.performHousekeeping()
        usleep(150_000)
    }
    prefetcher.stop()
    host.close()
    print("played 6 s live with volume and pan moves")
}
