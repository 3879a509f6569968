// Karaoke on Timbre: a backing track plays from a file while a singer sings into JACK input
// 1; the voice goes through a vocal chain (high-pass, de-esser, compressor, EQ) and is mixed
// with the backing on the master bus. Two takes run at once: the processed mix (the master)
// and the dry voice (the input as it arrived), so the vocal can be mixed again later.
//
//   swift run -c release KaraokeExample [seconds] [folder]     (a JACK server must run)
//
// Connect a microphone with `jack_connect system:capture_1 karaoke:in_1`, or pass ports in
// KARAOKE_VOICE_PORT; the mix plays on system:playback_1/2 when those ports exist.
import Foundation
import TimbreEngine
import TimbreFile
import TimbreJack

let arguments = Array(CommandLine.arguments.dropFirst())
let seconds = arguments.first.flatMap(Double.init) ?? 10
let folder = arguments.count > 1 ? arguments[1] : FileManager.default.currentDirectoryPath

// The backing track: four bars of a chord progression, written next to the preset.
let sampleRate = 48_000.0
let backingFrames = Int(seconds * sampleRate)
let backing = try SoundFileWriter(path: folder + "/backing.wav", format: .wav, encoding: .float, sampleRate: Int(sampleRate), channelCount: 2, dither: false)
let chords: [[Double]] = [[220, 277.18, 329.63], [196, 246.94, 293.66], [174.61, 220, 261.63], [196, 246.94, 311.13]]
let track = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: backingFrames) }
for i in 0..<backingFrames {
    let t = Double(i) / sampleRate
    let v = Float(chords[Int(t / 2) % 4].reduce(0) { $0 + 0.1 * sin(2 * .pi * $1 * t) })
    track[0][i] = v; track[1][i] = v
}
try track.withUnsafeBufferPointer { try backing.write($0.baseAddress!, frameCount: backingFrames) }
try backing.commit()
track.forEach { $0.deallocate() }

// The graph: the backing player and the voice (input port 1) through its chain, on the master.
let preset = #"""
{"version": 1, "name": "Karaoke", "graph": {
  "channels": [
    {"id": "backing", "player": {"file": "backing.wav"}, "volume": 0.7},
    {"id": "voice", "input": [0], "chain": [
      {"type": "highpass", "frequency": 90, "slope": 24},
      {"type": "deesser", "id": "deesser"},
      {"type": "compressor", "id": "leveler", "threshold": -24, "ratio": 3, "attack": 5, "release": 120},
      {"type": "eq", "id": "eq", "bands": [{"frequency": 3000, "gain": 2}, {"frequency": 12000, "gain": 2, "shape": "highshelf"}]}
    ]}
  ],
  "master": {"chain": [{"type": "limiter", "id": "ceiling", "ceiling": -1}]}
}}
"""#
let host = try JackHost(name: "karaoke", document: PresetDecoder.parse(Data(preset.utf8)), inputs: 1, outputs: 2,
                        host: .files(in: folder))
let prefetcher = PlayerPrefetcher()
prefetcher.update(Array(host.engine.playerStates.values))
prefetcher.start()
try host.activate()
if let port = ProcessInfo.processInfo.environment["KARAOKE_VOICE_PORT"] { try host.jack.connect(port, host.inputPortNames[0]) }
for (k, port) in ["system:playback_1", "system:playback_2"].enumerated() { try? host.jack.connect(host.outputPortNames[k], port) }

// The two takes: each a ring the JACK cycle fills and a disk thread empties.
func take(_ name: String, channels: Int, source: JackHost.RecordSource) throws -> (TakeRecorder, Int) {
    var options = TakeRecorder.Options(path: folder + "/" + name, format: .wav, encoding: .float, sampleRate: host.jack.sampleRate, channelCount: channels)
    options.source = source == .inputs ? "inputs" : "master"
    options.durationFrames = Int(seconds * Double(host.jack.sampleRate))
    let recorder = try TakeRecorder(options)
    let slot = try host.attach(recorder.tap, source: source)
    recorder.record()
    return (recorder, slot)
}
let takes = [try take("karaoke-mix.wav", channels: 2, source: .outputs), try take("karaoke-voice-dry.wav", channels: 1, source: .inputs)]
while takes.contains(where: { [.armed, .recording, .paused].contains($0.0.status.state) }) {
    prefetcher.update(Array(host.engine.playerStates.values))
    _ = host.pollEvents()
    usleep(20_000)
}
for (recorder, slot) in takes {
    let s = recorder.stop()
    host.detach(slot: slot)
    print(String(format: "%@: %lld frames (%.3f s), %d overruns", recorder.options.path, s.frames, s.seconds, s.overruns))
}
prefetcher.stop()
host.close()
