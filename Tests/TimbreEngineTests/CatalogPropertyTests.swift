import Foundation
import Testing
import TimbreEngine
import TimbreFile
import TimbreTestSupport

/// Random in-range chains over the whole catalog (drawn from the preset JSON Schema, edges
/// weighted), fed the signals that break dynamics and filters — silence, 1e-30 noise, DC,
/// impulses, full-scale squares, sweeps, sines sitting exactly at a node's threshold — at
/// 8–192 kHz, mono and stereo, in random blocks. Every case either renders finite output
/// bounded by 10⁴ (a chain can add at most +24 dB gain, +20 dB a band, makeup; 10⁴ is far
/// above any in-range chain's reach and far below what an instability produces), or is
/// refused with a ``PresetError`` naming the node's JSON path.
///
/// 2,000 cases with a fixed seed; `TIMBRE_PROPERTY_CASES=N` (and `TIMBRE_PROPERTY_SEED`) run
/// more on demand.
@Suite struct CatalogPropertyTests {
    static let rates: [Double] = [8000, 16000, 22050, 44100, 48000, 96000, 192_000]
    static let blocks = [1, 7, 64, 256, 1000, 4096]

    enum Signal: CaseIterable { case silence, tiny, dc, impulse, square, sweep, atThreshold, noise, nyquist }

    static var cases: Int { ProcessInfo.processInfo.environment["TIMBRE_PROPERTY_CASES"].flatMap(Int.init) ?? 2000 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["TIMBRE_PROPERTY_SEED"].flatMap(UInt64.init) ?? 20_261_127 }

    /// The signal's samples: `level` is a threshold drawn from the chain (dB), for the signals
    /// that sit exactly on it.
    static func samples(_ signal: Signal, frames n: Int, rate: Double, level: Double, channel: Int, rng: inout SeededRandom) -> [Float] {
        let a = Float(pow(10, level / 20))
        switch signal {
        case .silence: return [Float](repeating: 0, count: n)
        case .tiny: return (0..<n).map { _ in Float(rng.unit() * 2 - 1) * 1e-30 }
        case .dc: return [Float](repeating: channel == 0 ? a : -a, count: n)
        case .impulse: return (0..<n).map { $0 == n / 3 ? 1 : 0 }
        case .square: return (0..<n).map { ($0 / 24) % 2 == 0 ? 1 : -1 }
        case .sweep:
            return (0..<n).map { i in
                let t = Double(i) / rate, d = Double(n) / rate, f0 = 20.0, f1 = rate * 0.45
                return Float(sin(2 * Double.pi * f0 * d / log(f1 / f0) * (exp(t / d * log(f1 / f0)) - 1)))
            }
        case .atThreshold: return (0..<n).map { i in a * Float(sin(2 * Double.pi * 997 * Double(i) / rate)) }
        case .noise: return (0..<n).map { _ in Float(rng.unit() * 2 - 1) }
        case .nyquist: return (0..<n).map { i in i % 2 == 0 ? a : -a }
        }
    }

    /// The largest Σ|h| a node naming each fixture file can reach: its longest-summing channel
    /// (true stereo: two routes into an output), under the normalisation that raises it most,
    /// with 10 % for resampling and predelay.
    static func worstGains(_ fixture: ResponseFileFixture) throws -> [String: Double] {
        let room = try SoundFileReader(path: fixture.directory + "/room.wav").readAll()
        let sums = room.map { $0.reduce(0.0) { $0 + Double(abs($1)) } }
        let peak = Double(room.map { $0.map(abs).max() ?? 0 }.max() ?? 1)
        let energy = room.map { $0.reduce(0.0) { $0 + Double($1) * Double($1) } }.max() ?? 1
        let roomGain = 2 * (sums.max() ?? 1) * max(1, 1 / peak, 1 / energy.squareRoot()) * 1.1
        let fir = try String(contentsOfFile: fixture.directory + "/fir.txt", encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("*") && !$0.contains("//") }.compactMap { Double($0) }.reduce(0) { $0 + abs($1) }
        return ["room.wav": roomGain, "fir.txt": fir * 1.1]
    }

    @Test func randomChainsRenderFiniteOrAreRefusedByPath() throws {
        var sampler = try RandomPresets(schema: ShippedPresetTests.presetsDir.appendingPathComponent("timbre-preset.schema.json"))
        // Response files for fir and convolver nodes: REW text taps and a short true-stereo room.
        let fixture = try ResponseFileFixture(seconds: 0.02)
        sampler.files = ["fir": ["fir.txt"], "convolver": ["room.wav"]]
        let fileGains = try Self.worstGains(fixture)
        var rng = SeededRandom(seed: Self.seed)
        var rendered = 0, refused = 0, byType: [String: Int] = [:], failures: [String] = []
        for index in 0..<Self.cases {
            let rate = Self.rates[Int(rng.next() % UInt64(Self.rates.count))]
            let channels = rng.chance(0.5) ? 1 : 2
            let block = Self.blocks[Int(rng.next() % UInt64(Self.blocks.count))]
            let count = 1 + Int(rng.next() % 5)
            var nodes: [[String: Any]] = []
            for _ in 0..<count {
                let type = sampler.typeNames[Int(rng.next() % UInt64(sampler.typeNames.count))]
                nodes.append(sampler.node(type: type, using: &rng))
                byType[type, default: 0] += 1
            }
            // A level to test at: a threshold or ceiling of the chain, else a random one.
            let levels = nodes.compactMap { ($0["threshold"] as? Double) ?? ($0["ceiling"] as? Double) }
            let level = levels.isEmpty ? -rng.unit() * 60 : levels[Int(rng.next() % UInt64(levels.count))]
            let signal = Signal.allCases[Int(rng.next() % UInt64(Signal.allCases.count))]
            let frames = 2048 + Int(rng.next() % 4096)
            let document: [String: Any] = ["version": 1, "name": "case \(index)", "chain": nodes]
            let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
            let text = String(decoding: data, as: UTF8.self)
            let input = (0..<channels).map { Self.samples(signal, frames: frames, rate: rate, level: level, channel: $0, rng: &rng) }
            do {
                let preset = try PresetDecoder.decode(data)
                let output = try PresetRender.render(preset, input: input, block: block, rate: rate,
                                                     registry: NodeStateRegistry(services: .files(in: fixture.directory))).output
                var worst: Float = 0, finite = true
                for row in output { for x in row { if !x.isFinite { finite = false } else { worst = max(worst, abs(x)) } } }
                // (A FIR raises a peak by at most Σ|h|: its own gain on top of the bound.)
                if !finite || Double(worst) > 1e4 * max(1, RandomPresets.firGain(nodes, fileGains: fileGains)) {
                    failures.append("case \(index) (\(signal), \(rate) Hz, \(channels) ch, block \(block)): \(finite ? "peak \(worst)" : "non-finite output") from \(text)")
                }
                rendered += 1
            } catch let error as PresetError {
                // Refused: the message must name where (a node of the chain).
                if !error.path.hasPrefix("chain[") { failures.append("case \(index): refused without a node's path: \(error) for \(text)") }
                refused += 1
            }
        }
        print("catalog property test: \(Self.cases) cases (seed \(Self.seed)), \(rendered) rendered, \(refused) refused by path; nodes drawn: \(byType.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        for f in failures.prefix(20) { Issue.record(Comment(rawValue: f)) }
        #expect(failures.isEmpty, "\(failures.count) failing cases")
        #expect(rendered + refused == Self.cases)
        // Every kind the schema names was drawn (the sampler reads the catalog's schema).
        #expect(Set(byType.keys) == Set(sampler.typeNames))
        #expect(Set(sampler.typeNames).union(["plugin"]) == Set(NodeCatalog.typeNames))
        #expect(rendered > Self.cases / 2)
    }
}
