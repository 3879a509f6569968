import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile

/// A graph with two `player` channels over a file written for the occasion, and a stream of
/// live player commands, for the real-time proofs (RealtimeSanitizer, allocation counts).
public struct PlayerFixture {
    public let directory: String
    public let preset: String

    /// Writes a 3 s stereo and a 2 s mono float file (seeded noise) into a fresh folder.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-player-fixture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, channels, seconds) in [("stereo.wav", 2, 3.0), ("mono.wav", 1, 2.0)] {
            let frames = Int(seconds * 48000)
            let writer = try SoundFileWriter(path: directory + "/" + name, format: .wav, encoding: .float, sampleRate: 48000, channelCount: channels, dither: false)
            try writer.write(PlanarBuffer(channels: (0..<channels).map { c in Signals.noise(frames, amplitude: 0.2, seed: UInt64(31 + c)) }))
            try writer.commit()
        }
        preset = """
        {"version": 1, "name": "players", "graph": {
          "channels": [
            {"id": "bed", "player": {"file": "stereo.wav", "loops": -1}, "chain": [{"type": "eq", "id": "bedeq", "bands": [{"gain": 2}]}], "volume": 0.8},
            {"id": "lead", "player": {"file": "mono.wav", "loops": -1, "rate": 1.25}, "chain": [{"type": "pitch", "id": "leadpitch", "semitones": 2}], "pan": 0.3}
          ],
          "master": {"chain": [{"type": "gain", "id": "mg", "gain": -3}]}
        }}
        """
    }

    /// The host services for an engine over this fixture (players read its folder).
    public var host: HostServices { .files(in: directory) }

    /// Fills every player's ring of `engine` (what the prefetch thread does live).
    public static func fill(_ engine: LiveEngine) throws {
        for state in engine.playerStates.values { try (state.feeder as? PlayerFeeder)?.fill() }
    }

    /// Step `k` of an endless stream of player commands: pause/play, seeks, volume, pan, rate and loop changes.
    public static func edit(_ interpreter: ControlInterpreter, step k: Int) throws {
        let command: ControlCommand
        switch k % 8 {
        case 0: command = .pause(player: "bed")
        case 1: command = .play(player: "bed")
        case 2: command = .seek(player: "lead", seconds: Double(k % 19) / 10)
        case 3: command = .set(address: "bed.volume", value: Double(k % 10) / 10)
        case 4: command = .set(address: "lead.player.rate", value: [0.75, 1.25, 1.5][k % 3])
        case 5: command = .set(address: "lead.pan", value: Double(k % 5) / 5 - 0.4)
        case 6: command = .seek(player: "bed", seconds: Double(k % 29) / 10)
        default: command = .set(address: "bed.player.loops", value: -1)
        }
        _ = try interpreter.perform(command)
    }
}
