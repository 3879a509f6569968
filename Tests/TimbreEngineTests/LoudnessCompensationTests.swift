import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `loudnessCompensation` node (#40): ISO 226:2003 loudness compensation, checked against an
/// independent implementation of the standard (MOSQITO's `equal_loudness_contours`, from PyPI,
/// a port of Tackett's MATLAB `iso226`): the contours themselves, then the node's response —
/// an impulse through a real plan, a naive DFT — against the contour difference
/// Lp(ref + v) − Lp(ref) − v at the standard's 29 frequencies, at 44.1, 48 and 96 kHz,
/// references 60, 80 and 90 phon, volumes 0 to −70 dB (and between the table's steps).
/// Tolerances (measured: 0.37 dB to −30 dB at 44.1/48 kHz, 0.52 at 96 kHz, 1.11 dB at −60 dB
/// and 96 kHz, the worst point 12.5 kHz): 0.55 dB to −30 dB below the reference, 1.2 dB beyond
/// (the five-biquad fit's own error: the standard's third-octave data are not a smooth curve);
/// below 20 Hz the boost levels off (not above the 20 Hz target + 1 dB at 10 and 5 Hz).
@Suite struct LoudnessCompensationTests {
    /// MOSQITO's contours for `phons`, one row of 29 dB SPL values each.
    static func mosqito(_ phons: [Double]) throws -> [[Double]] {
        let script = """
        import sys
        from mosqito import equal_loudness_contours
        for p in sys.argv[1:]:
            spl, _ = equal_loudness_contours(float(p))
            print(" ".join(repr(float(x)) for x in spl))
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script] + phons.map { "\($0)" }
        let output = Pipe()
        p.standardOutput = output
        try p.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "python3 with mosqito is needed (make deps installs it)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ").map { Double($0)! } }
    }

    @Test func contoursEqualMosqitos() throws {
        let phons = stride(from: 20.0, through: 90, by: 5).map { $0 }
        let reference = try Self.mosqito(phons)
        var worst = 0.0
        for (phon, row) in zip(phons, reference) {
            try #require(row.count == 29)
            for (k, v) in row.enumerated() { worst = max(worst, abs(EqualLoudnessContour.soundPressureLevel(phon: phon, at: k) - v)) }
            // 1 kHz is where a phon is a dB (within the standard's rounding).
            #expect(abs(EqualLoudnessContour.soundPressureLevel(phon: phon, at: 17) - phon) < 0.1)
        }
        print("ISO 226 contours: worst difference from MOSQITO \(worst) dB")
        #expect(worst < 1e-9)
    }

    static let frames = 1 << 15

    /// The node's impulse response at `rate` (mono chain).
    static func impulseResponse(_ node: String, rate: Double, block: Int = 512) throws -> [Float] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "x", "chain": [\#(node)]}"#.utf8))
        var impulse = [Float](repeating: 0, count: frames)
        impulse[0] = 1
        return try PresetRender.render(preset, input: [impulse], block: block, rate: rate).output[0]
    }

    static func db(_ h: [Float], _ hz: Double, _ rate: Double) -> Double {
        let z = CrossoverNodeTests.dft(h, hz: hz, rate: rate)
        return CrossoverNodeTests.db(z)
    }

    @Test(arguments: [(80.0, 44_100.0), (80, 48_000), (80, 96_000), (60, 48_000), (90, 48_000)])
    func responseFollowsTheContourDifference(reference: Double, rate: Double) throws {
        let volumes = [0.0, -5, -10, -20, -27.4, -30, -40, -50, -60, -70].filter { reference + $0 >= 20 || $0 == -70 }
        let levels = try Self.mosqito([reference] + volumes.map { max(20, reference + $0) })
        var report: [String] = []
        for (v, row) in zip(volumes, levels.dropFirst()) {
            let h = try Self.impulseResponse(#"{"type": "loudnessCompensation", "reference": \#(reference), "volume": \#(v)}"#, rate: rate)
            let heard = max(20, reference + v) - reference
            var worst = 0.0, at = 0.0
            for (k, f) in EqualLoudnessContour.frequencies.enumerated() where f < 0.45 * rate {
                let target = row[k] - levels[0][k] - heard
                let e = Self.db(h, f, rate) - target
                if abs(e) > abs(worst) { worst = e; at = f }
            }
            report.append("\(v) dB: \(String(format: "%+.2f", worst)) at \(at) Hz")
            #expect(abs(worst) <= (heard >= -30 ? 0.55 : 1.2), "ref \(reference) phon, \(rate) Hz, volume \(v) dB: \(worst) dB at \(at) Hz")
            // Below 20 Hz the boost levels off.
            let at20 = row[0] - levels[0][0] - heard
            #expect(Self.db(h, 10, rate) <= at20 + 1 && Self.db(h, 5, rate) <= at20 + 1, "\(Self.db(h, 5, rate)) \(Self.db(h, 10, rate)) \(at20)")
        }
        print("loudness compensation, \(reference) phon at \(rate) Hz, worst error at the ISO frequencies: " + report.joined(separator: "; "))
    }

    @Test func theSameBitsAtEveryBlockSize() throws {
        let node = #"{"type": "loudnessCompensation", "volume": -33}"#
        let a = try Self.impulseResponse(node, rate: 48_000, block: 512)
        for block in [1, 37, 4096] { #expect(try Self.impulseResponse(node, rate: 48_000, block: block) == a) }
    }

    static func masterGraph(volume: Double) -> String {
        GraphTests.graph(#"{"channels": [{"id": "in", "input": [0, 1]}], "master": {"volume": \#(volume), "chain": [{"type": "loudnessCompensation", "id": "lc", "followMaster": true}]}}"#)
    }

    @Test func followsTheMasterVolumeOfflineAndLive() throws {
        var impulse = [Float](repeating: 0, count: Self.frames)
        impulse[0] = 1
        // Offline: the master at 0.1 (−20 dB) is the contour difference for −20 dB, then −20 dB.
        let offline = try PresetRender.render(try PresetDecoder.decode(Data(Self.masterGraph(volume: 0.1).utf8)), input: [impulse, [Float](repeating: 0, count: Self.frames)], block: 256).output[0]
        let own = try Self.impulseResponse(#"{"type": "loudnessCompensation", "volume": -20}"#, rate: 48_000)
        var worst: Float = 0
        for i in 0..<Self.frames { worst = max(worst, abs(offline[i] - Float(0.1) * own[i])) }
        #expect(worst < 1e-6, "\(worst)")

        // Live: the master moved from 1 to 0.1 inside the plan; the node glides after it.
        let doc = try PresetDecoder.parse(Data(Self.masterGraph(volume: 1).utf8))
        let engine = try LiveEngine(document: doc, sampleRate: 48_000, inputChannelCount: 2)
        let driver = LiveEngineTests.Driver(engine, block: 128)
        _ = driver.runAll([Float](repeating: 0, count: 4_800)[...])
        let before = engine.plan
        let edit = try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("master.volume", toValue: .number(0.1))
        _ = try engine.apply(document: edit)
        #expect(engine.plan === before, "no new plan")
        _ = driver.runAll([Float](repeating: 0, count: 4_800)[...])
        let live = driver.runAll(impulse[...])
        // Live plans run 32-frame coefficient steps only while gliding; settled, the same filter.
        worst = 0
        for i in 0..<Self.frames { worst = max(worst, abs(live[0][i] - offline[i])) }
        #expect(worst < 1e-6, "live after the master moved: \(worst)")
    }

    @Test func followMasterOutsideTheMasterChainIsRefused() throws {
        let doc = GraphTests.graph(#"{"channels": [{"id": "in", "input": [0], "chain": [{"type": "loudnessCompensation", "followMaster": true}]}]}"#)
        do {
            _ = try PresetRender.render(try PresetDecoder.decode(Data(doc.utf8)), input: [[0]], block: 64)
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("graph.channels[0].chain[0].followMaster: followMaster needs the node on a graph's master chain"), "\(error)")
        }
    }
}
