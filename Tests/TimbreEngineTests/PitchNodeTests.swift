import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreControl
import TimbreTestSupport

/// The `pitch` node: decoding and ranges, the plan's latency and its compensation on parallel
/// paths, and live pitch changes that glide through plan swaps without restarting the shifter.
@Suite struct PitchNodeTests {
    static let fs = 48_000.0

    static func preset(_ json: String) throws -> Preset { try PresetDecoder.decode(PresetDecoder.parse(Data(json.utf8))) }

    static func chain(_ nodes: String) -> String { #"{"version": 1, "name": "p", "chain": [\#(nodes)]}"# }

    @Test func decodesSemitonesAndCents() throws {
        let p = try Self.preset(Self.chain(#"{"type": "pitch", "id": "p", "semitones": 7, "cents": -50}"#))
        guard case .chain(let nodes) = p.form else { Issue.record("not a chain"); return }
        #expect(nodes[0].kind == .pitch(semitones: 6.5))
        #expect(nodes[0].summary == "p: pitch +6.50 semitones")
        let plain = try Self.preset(Self.chain(#"{"type": "pitch"}"#))
        guard case .chain(let plainNodes) = plain.form else { return }
        #expect(plainNodes[0].kind == .pitch(semitones: 0))
    }

    @Test(arguments: [
        (#"{"type": "pitch", "semitones": 25}"#, "chain[0].semitones", "-24…24"),
        (#"{"type": "pitch", "cents": 101}"#, "chain[0].cents", "-100…100"),
        (#"{"type": "pitch", "semitones": 24, "cents": 50}"#, "chain[0]", "24.5"),
        (#"{"type": "pitch", "semitones": "up"}"#, "chain[0].semitones", "number"),
        (#"{"type": "pitch", "semitone": 3}"#, "chain[0]", "semitone"),
    ])
    func rejectsOutOfRange(node: String, path: String, mentions: String) {
        do {
            _ = try Self.preset(Self.chain(node))
            Issue.record("\(node) was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains(path) && message.contains(mentions), "\(message)")
        }
    }

    /// Renders `preset` (stereo input: `x` on both channels) and returns output channel 0.
    static func render(_ preset: Preset, _ x: [Float], block: Int = 512) throws -> (y: [Float], latency: Int) {
        let (output, plan) = try PresetRender.render(preset, input: [x, x], block: block, rate: fs)
        return (output[0], plan.latencyFrames)
    }

    /// Two channels from the same input, one through `pitch` at 0 semitones (a pure delay of
    /// the shifter's latency): the plan reports that latency and delays the other channel by it,
    /// so the mix equals the same graph without the pitch node, delayed — within the shifter's
    /// own pure-delay error (−127 dB measured; limit −90 dB relative to the peak). Without the
    /// compensation the two copies would comb-filter (error near 0 dB).
    @Test(arguments: ["channel", "group", "master"])
    func parallelPathsStayAligned(where place: String) throws {
        let pitch = #"{"type": "pitch", "id": "shift"}"#
        func graph(_ withPitch: Bool) -> String {
            let p = withPitch ? pitch : ""
            return #"""
            {"version": 1, "name": "g", "graph": {
              "channels": [
                {"id": "a", "input": [0], "chain": [\#(place == "channel" ? p : "")], "volume": 0.5, "group": "bus"},
                {"id": "b", "input": [1], "chain": [{"type": "peak", "frequency": 2000, "gain": 4}], "volume": 0.5, "pan": 0.3},
                {"id": "c", "generator": {"type": "sine", "frequency": 330, "level": -20}, "volume": 0.4}
              ],
              "groups": [{"id": "bus", "chain": [\#(place == "group" ? p : "")]}],
              "master": {"chain": [\#(place == "master" ? p : "")]}
            }}
            """#
        }
        let n = Int(2 * Self.fs)
        let x = (0..<n).map { i in Float(0.3 * sin(2 * Double.pi * 440 * Double(i) / Self.fs) + 0.2 * sin(2 * Double.pi * 3123.4 * Double(i) / Self.fs + 1)) }
        let (y, latency) = try Self.render(Self.preset(graph(true)), x)
        let (reference, none) = try Self.render(Self.preset(graph(false)), x)
        #expect(none == 0)
        #expect(latency == PitchShifter.latencyFrames(sampleRate: Self.fs))
        var worst: Float = 0, peak: Float = 0
        for i in (latency + 4096)..<n { worst = max(worst, abs(y[i] - reference[i - latency])); peak = max(peak, abs(reference[i - latency])) }
        let db = 20 * log10(Double(worst) / Double(peak))
        print("pitch node in \(place): plan latency \(latency) frames, mix vs the delayed graph without it \(String(format: "%.1f", db)) dB")
        #expect(db < -90)
    }

    /// A 0.1 s burst of NaN and infinity through a `pitch` node: the plan silences the blocks it
    /// reaches and clears the shifter's memory (overlap-add, spectra, FIFO, resampler history),
    /// and the sine after it comes out again: the last second is finite, at the sine's level
    /// (RMS within 1 dB of 0.4/√2). (The shifter's memory also turns over within a few frames on
    /// its own — this passes with the clear removed too; the clear guards the state that lives
    /// longer, such as the phase reference.)
    @Test func recoversFromNonFiniteInput() throws {
        let burst = 4800, before = 9600, after = 96_000
        var x = Signals.sine(before + burst + after, hz: 440, amplitude: 0.4)
        for i in before..<(before + burst) { x[i] = i % 3 == 0 ? .infinity : .nan }
        let (y, latency) = try Self.render(Self.preset(Self.chain(#"{"type": "pitch", "semitones": 3}"#)), x)
        let tail = y.suffix(48_000)
        #expect(latency < after - 48_000)
        let finite = tail.allSatisfy { $0.isFinite }
        #expect(finite, "non-finite output after the burst")
        let rms = (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
        print("pitch after a non-finite burst: last second RMS \(20 * log10(rms / (0.4 / 2.0.squareRoot()))) dB re the sine")
        #expect(abs(20 * log10(rms / (0.4 / 2.0.squareRoot()))) < 1)
    }

    /// Two pitch nodes in series add their latencies; bypassed ones add none.
    @Test func latencyAddsUpAlongAPath() throws {
        let l = PitchShifter.latencyFrames(sampleRate: Self.fs)
        let two = try Self.preset(Self.chain(#"{"type": "pitch", "semitones": 2}, {"type": "gain"}, {"type": "pitch", "semitones": -2}"#))
        let bypassed = try Self.preset(Self.chain(#"{"type": "pitch", "semitones": 2, "bypass": true}"#))
        let fmt = RenderFormat(sampleRate: Self.fs, inputChannelCount: 2, maxBlockFrames: 256)
        #expect(try RenderPlan(preset: two, format: fmt).latencyFrames == 2 * l)
        #expect(try RenderPlan(preset: bypassed, format: fmt).latencyFrames == 0)
        #expect(l == PitchShifter(sampleRate: Self.fs, channelCount: 1, maximumBlockFrames: 64).latencyFrames)
    }

    /// `set <id>.semitones` while the engine renders: each edit is a new plan and a crossfade,
    /// yet the shifter continues (shared by both plans) and glides. A 440 Hz tone goes to +12,
    /// −5, then back to 0 semitones; each settles at the exact frequency (0.1 %), the output
    /// never drops out (no 10 ms stretch below −20 dB of the tone after the latency), and the
    /// shifter never ran short (no underruns).
    @Test func liveSemitonesGlide() throws {
        let (engine, interpreter, driver) = try Self.liveEngine(#"{"type": "pitch", "id": "p", "semitones": 0}"#)
        let second = Int(Self.fs)
        let x = Signals.sine(4 * second, hz: 440, amplitude: 0.4, rate: Self.fs)
        var y = driver.run(x[0..<second])
        for (k, semitones) in [12.0, -5, 0].enumerated() {
            _ = try interpreter.perform(.set(address: "p.semitones", value: semitones))
            y += driver.run(x[((k + 1) * second)..<((k + 2) * second)])
            _ = engine.performHousekeeping()
        }
        let latency = engine.latencyFrames
        #expect(latency == PitchShifter.latencyFrames(sampleRate: Self.fs))
        func frequency(_ from: Int, near hz: Double) -> Double {
            StretchMeasures.measuredFrequency(y, near: hz, rate: Self.fs, from: from, to: from + 12_000, length: 12_000)
        }
        let up = frequency(second + latency + 12_000, near: 880)
        let down = frequency(2 * second + latency + 12_000, near: 440 * pow(2, -5.0 / 12))
        var quietest = Double.infinity
        for start in stride(from: latency + 480, to: y.count - 480, by: 240) {
            let rms = sqrt(y[start..<(start + 480)].reduce(0.0) { $0 + Double($1 * $1) } / 480)
            quietest = min(quietest, 20 * log10(rms / (0.4 / 2.0.squareRoot())))
        }
        let underruns = engine.plan.pitchStates.first?.state.underruns ?? -1
        print(String(format: "live pitch: +12 st → %.3f Hz (880), −5 st → %.3f Hz (%.3f); quietest 10 ms after the latency %.1f dB; underruns %d",
                     up, down, 440 * pow(2, -5.0 / 12), quietest, underruns))
        #expect(abs(up / 880 - 1) < 0.001)
        #expect(abs(down / (440 * pow(2, -5.0 / 12)) - 1) < 0.001)
        #expect(quietest > -20)
        #expect(underruns == 0)
    }

    /// Edits elsewhere in the chain swap plans (each swap a 30 ms crossfade in which both
    /// plans render the pitch node); the shifter still runs once per block, so at 0 semitones
    /// the output stays the input delayed by the latency (−90 dB; −127 dB measured). If both
    /// plans advanced it, the shifter would hear each crossfade's blocks twice (measured
    /// +5 dB with that fault: the crossfade mixes two different moments of the stream).
    @Test func crossfadesRunTheShifterOncePerBlock() throws {
        let (engine, interpreter, driver) = try Self.liveEngine(#"{"type": "pitch", "id": "p"}, {"type": "gain", "id": "g", "gain": 0}"#)
        let block = 4800
        let x = (0..<(20 * block)).map { i in Float(0.3 * sin(2 * Double.pi * 440 * Double(i) / Self.fs) + 0.2 * sin(2 * Double.pi * 3123.4 * Double(i) / Self.fs + 1)) }
        var y: [Float] = []
        for k in 0..<20 {
            if k >= 2 { _ = try interpreter.perform(.set(address: "g.gain", value: 0)); engine.performHousekeeping() }
            y += driver.run(x[(k * block)..<((k + 1) * block)])
        }
        let latency = engine.latencyFrames
        var worst: Float = 0
        for i in (latency + 4096)..<y.count { worst = max(worst, abs(y[i] - x[i - latency])) }
        let db = 20 * log10(Double(worst) / 0.5)
        print(String(format: "pitch node through 18 plan swaps at 0 st: worst deviation from the delayed input %.1f dB", db))
        #expect(db < -90)
    }

    static func liveEngine(_ chain: String) throws -> (LiveEngine, ControlInterpreter, LiveEngineTests.Driver) {
        let document = try PresetDecoder.parse(Data(Self.chain(chain).utf8))
        let engine = try LiveEngine(document: document, sampleRate: Self.fs, inputChannelCount: 1, outputChannelCount: 1, maxBlockFrames: 256)
        engine.warmUp()
        let interpreter = ControlInterpreter(engine: engine, loadDocument: { name in throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name]) })
        return (engine, interpreter, LiveEngineTests.Driver(engine, block: 256))
    }
}
