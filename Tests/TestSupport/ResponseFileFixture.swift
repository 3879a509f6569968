import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile

/// A chain whose `fir` and `convolver` nodes read files written for the occasion — a
/// true-stereo (4-channel) impulse response at 44.1 kHz, resampled to the session's rate, and
/// REW-style text coefficients — and a stream of edits to them, for the real-time proofs
/// (RealtimeSanitizer, allocation counts).
public struct ResponseFileFixture {
    public let directory: String
    public let preset: String

    /// Writes `room.wav` (4 channels, `seconds` of decaying noise at 44.1 kHz) and `fir.txt`
    /// (2,000 taps in REW's text export format) into a fresh folder.
    public init(seconds: Double = 1) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-response-fixture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let frames = Int(seconds * 44_100)
        let writer = try SoundFileWriter(path: directory + "/room.wav", format: .wav, encoding: .float, sampleRate: 44_100, channelCount: 4, dither: false)
        try writer.write(PlanarBuffer(channels: (0..<4).map { c in Self.decaying(frames, seed: UInt64(61 + c)) }))
        try writer.commit()
        let taps = Self.decaying(2_000, seed: 71).map { String(format: "%.9g", $0 * 0.3) }
        let text = ["* Impulse Response data saved by REW V5.20.13", "* IR is not normalised", "0.3 // Peak value before normalisation",
                    "0 // Peak index", "2000 // Response length", "2.0833333E-5 // Sample interval (seconds)", "0.0 // Start time (seconds)",
                    "* Data start"] + taps
        try (text.joined(separator: "\n") + "\n").write(toFile: directory + "/fir.txt", atomically: true, encoding: .utf8)
        preset = """
        {"version": 1, "name": "responses", "chain": [
          {"type": "fir", "id": "fir", "file": "fir.txt"}, {"type": "pan", "id": "pan"},
          {"type": "convolver", "id": "room", "file": "room.wav", "normalize": "energy", "predelay": 10, "mix": 30, "width": 120}
        ]}
        """
    }

    /// Seeded noise under an exponential decay (a room's shape).
    public static func decaying(_ frames: Int, seed: UInt64) -> [Float] {
        let noise = Signals.noise(frames, amplitude: 1, seed: seed)
        return (0..<frames).map { noise[$0] * Float(exp(-6 * Double($0) / Double(frames))) }
    }

    /// The host services for an engine over this fixture (the nodes read its folder).
    public var host: HostServices { .files(in: directory) }

    /// Step `k` of an endless stream of edits: mix, width, predelay (a new response), the fir's gain.
    public static func edit(_ interpreter: ControlInterpreter, step k: Int) throws {
        let command: ControlCommand = switch k % 4 {
        case 0: .set(address: "room.mix", value: Double(k % 10) * 10)
        case 1: .set(address: "room.width", value: Double(k % 5) * 40)
        case 2: .set(address: "room.predelay", value: Double(k % 3) * 5)
        default: .set(address: "fir.gain", value: Double(k % 7) - 6)
        }
        _ = try interpreter.perform(command)
    }
}
