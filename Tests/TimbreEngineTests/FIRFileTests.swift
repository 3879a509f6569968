import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreFile
import TimbreTestSupport

/// `fir` nodes reading coefficient files as REW and rePhase export them, raw samples in
/// CamillaDSP's formats, and sound files — through the engine, checked by the impulse
/// response the node renders (its taps, in order, at their level).
@Suite struct FIRFileTests {
    static func folder(_ files: [String: [UInt8]]) throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-fir-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        for (name, bytes) in files { FileManager.default.createFile(atPath: d + "/" + name, contents: Data(bytes)) }
        return d
    }

    /// The impulse response of `node` over `channels` channels (`frames` long).
    static func impulseResponse(_ node: String, in folder: String, channels: Int = 1, frames: Int = 64, rate: Double = 48_000) throws -> [[Float]] {
        var impulse = [Float](repeating: 0, count: frames); impulse[0] = 1
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: Array(repeating: impulse, count: channels), block: 16, rate: rate,
                                       registry: NodeStateRegistry(services: .files(in: folder))).output
    }

    static let taps: [Float] = [0.5, -0.25, 0.125, 0.0625, -0.03125, 1e-3, -2.5e-4]

    /// REW's impulse-response text export: a `*` header, `value // label` lines, `* Data
    /// start`, then one tap per line. Its sample interval is the rate: 48 kHz here is used as
    /// is, 96 kHz is resampled (a different response).
    @Test func readsREWTextExport() throws {
        func rew(_ interval: String) -> [UInt8] {
            let lines = ["* Impulse Response data saved by REW V5.20.13", "* IR is not normalised", "* Source: Mic, 2026-11-28",
                         "0.5 // Peak value before normalisation", "0 // Peak index", "7 // Response length",
                         "\(interval) // Sample interval (seconds)", "0.0 // Start time (seconds)", "* Data start"]
            return Array((lines + Self.taps.map { "\($0)" }).joined(separator: "\r\n").utf8)
        }
        let d = try Self.folder(["rew48.txt": rew("2.0833333E-5"), "rew96.txt": rew("1.0416667E-5")])
        let y = try Self.impulseResponse(#"{"type": "fir", "file": "rew48.txt"}"#, in: d)[0]
        #expect(Array(y.prefix(7)) == Self.taps && y[7...].allSatisfy { $0 == 0 })
        let resampled = try Self.impulseResponse(#"{"type": "fir", "file": "rew96.txt"}"#, in: d)[0]
        #expect(Array(resampled.prefix(7)) != Self.taps)
    }

    /// rePhase and most tools: one value per line, comments; two columns are two channels;
    /// `gain` scales; separators may be commas, semicolons or tabs.
    @Test func readsPlainTextColumnsAndComments() throws {
        let single = "# rePhase export\n" + Self.taps.map { "\($0)" }.joined(separator: "\n") + "\n\n"
        let columns = "% two channels\n" + Self.taps.enumerated().map { "\($1),\t\(Float($0) * 0.1)" }.joined(separator: "\n")
        let d = try Self.folder(["one.txt": Array(single.utf8), "two.csv": Array(columns.utf8)])
        let one = try Self.impulseResponse(#"{"type": "fir", "file": "one.txt", "gain": -6.0206}"#, in: d, channels: 2)
        for c in 0..<2 { #expect(zip(one[c], Self.taps).allSatisfy { abs($0 - $1 / 2) < 1e-6 }) }
        let two = try Self.impulseResponse(#"{"type": "fir", "file": "two.csv"}"#, in: d, channels: 2)
        #expect(Array(two[0].prefix(7)) == Self.taps && Array(two[1].prefix(7)) == (0..<7).map { Float($0) * 0.1 })
    }

    /// Raw little-endian samples in every format, and one file per channel.
    @Test func readsRawSamplesInEveryFormat() throws {
        let values: [Double] = [0.5, -0.25, 0.125, -1, 0.75]
        func bytes(_ format: String) -> [UInt8] {
            values.flatMap { v -> [UInt8] in
                switch format {
                case "float32le": return withUnsafeBytes(of: Float(v).bitPattern.littleEndian) { Array($0) }
                case "float64le": return withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) }
                case "s16le": return withUnsafeBytes(of: Int16(max(-32_768, min(32_767, v * 32_768))).littleEndian) { Array($0) }
                case "s24le3": return Array(withUnsafeBytes(of: Int32(max(-8_388_608, min(8_388_607, v * 8_388_608))).littleEndian) { Array($0) }.prefix(3))
                case "s24le": return withUnsafeBytes(of: Int32(max(-8_388_608, min(8_388_607, v * 8_388_608))).littleEndian) { Array($0) }
                default: return withUnsafeBytes(of: Int32(max(-2_147_483_648, min(2_147_483_647, v * 2_147_483_648))).littleEndian) { Array($0) }
                }
            }
        }
        let formats = ["float32le", "float64le", "s16le", "s24le", "s24le3", "s32le"]
        var files = Dictionary(uniqueKeysWithValues: formats.map { ("taps.\($0)", bytes($0)) })
        files["negated.f32"] = values.flatMap { v in withUnsafeBytes(of: Float(-v).bitPattern.littleEndian) { Array($0) } }
        let d = try Self.folder(files)
        for format in formats {
            let y = try Self.impulseResponse(#"{"type": "fir", "file": "taps.\#(format)", "format": "\#(format)"}"#, in: d)[0]
            #expect(zip(y, values).allSatisfy { abs(Double($0) - $1) < 1e-4 }, "\(format): \(Array(y.prefix(5)))")
        }
        let perChannel = try Self.impulseResponse(#"{"type": "fir", "file": ["taps.float32le", "negated.f32"], "format": "float32le"}"#, in: d, channels: 2)
        #expect(zip(perChannel[0], values).allSatisfy { abs(Double($0) - $1) < 1e-7 })
        #expect(zip(perChannel[1], values).allSatisfy { abs(Double($0) + $1) < 1e-7 })
    }

    /// Every malformed file is an error naming the node's key, the file, the line or sample and the value.
    @Test func malformedFilesNameLineAndValue() throws {
        let d = try Self.folder([
            "word.txt": Array("0.5\n0.25\nabc\n".utf8), "nan.txt": Array("# c\n0.5\nnan\n".utf8), "ragged.txt": Array("1, 2\n3\n".utf8),
            "big.txt": Array("0.5\n2e5\n".utf8), "odd.f32": [0, 0, 128, 63, 0, 0], "empty.txt": Array("# nothing\n".utf8),
            "inf.f32": [0, 0, 128, 127], "blob.xyz": [1, 2, 3], "ok.txt": Array("0.5\n0.25\n".utf8),
        ])
        let cases: [(String, String)] = [
            (#""file": "word.txt""#, #"chain[0].file: word.txt line 3: "abc" is not a coefficient"#),
            (#""file": "nan.txt""#, #"chain[0].file: nan.txt line 3: "nan" is not a coefficient"#),
            (#""file": "ragged.txt""#, "chain[0].file: ragged.txt line 2: 1 values where the rows before have 2"),
            (#""file": "big.txt""#, #"big.txt line 2: "2e5" is not a coefficient (a finite number within ±1000)"#),
            (#""file": "odd.f32""#, "chain[0].file: odd.f32: 6 bytes is not a whole number of 4-byte float32le samples"),
            (#""file": "inf.f32""#, "chain[0].file: inf.f32 sample 0 (byte 0): inf is not a coefficient"),
            (#""file": "empty.txt""#, "chain[0].file: empty.txt: no coefficients found"),
            (#""file": "blob.xyz""#, #"chain[0].file: blob.xyz: not a sound file, and its extension names no coefficient format; give "format""#),
            (#""file": ["word.txt", "nothere.txt"], "format": "text""#, "chain[0].file[0]: word.txt line 3"),
            (#""file": "nothere.txt""#, "chain[0].file: "),
            (#""coefficients": [1], "file": "word.txt""#, "chain[0].coefficients: give coefficients or file, not both"),
            // phase and taps shape a designed curve only: beside given taps they are refused, not ignored.
            (#""coefficients": [1], "phase": "linear""#, "chain[0].phase: phase and taps shape a filter designed from a GraphicEQ curve"),
            (#""file": "ok.txt", "taps": 1024"#, "chain[0].taps: phase and taps shape a filter designed from a GraphicEQ curve"),
        ]
        for (keys, message) in cases {
            #expect { try Self.impulseResponse(#"{"type": "fir", \#(keys)}"#, in: d) } throws: { "\($0)".contains(message) }
        }
    }

    /// A sound file as a FIR: its channels are the filters (one per chain channel).
    @Test func readsSoundFiles() throws {
        let d = try ConvolverNodeTests.folder(["taps.wav": [Self.taps, Self.taps.map { -$0 }]])
        let y = try Self.impulseResponse(#"{"type": "fir", "file": "taps.wav"}"#, in: d, channels: 2)
        #expect(Array(y[0].prefix(7)) == Self.taps && Array(y[1].prefix(7)) == Self.taps.map { -$0 })
    }
}

/// `fir` nodes designed from AutoEQ's GraphicEQ line, inline or in a file: the rendered
/// filter's magnitude follows the line, linear phase reports its latency and delays the
/// impulse by it exactly, and a malformed line names the point.
@Suite struct GraphicEQNodeTests {
    /// A GraphicEQ line as AutoEQ writes it: 127 points from 20 Hz to 19,871 Hz.
    static let line: String = {
        let points = (0..<127).map { k -> String in
            let f = (20 * pow(19_871.0 / 20, Double(k) / 126)).rounded()
            return "\(Int(f)) \(String(format: "%.1f", MagnitudeFIRDesignTargets.curve(f)))"
        }
        return "GraphicEQ: " + points.joined(separator: "; ")
    }()

    @Test(arguments: ["minimum", "linear"])
    func rendersTheCurve(phase: String) throws {
        let d = try FIRFileTests.folder(["HD 600 GraphicEQ.txt": Array((Self.line + "\r\n").utf8)])
        let inline = try FIRFileTests.impulseResponse(#"{"type": "fir", "graphicEQ": "\#(Self.line)", "phase": "\#(phase)"}"#, in: d, frames: 16_384)[0]
        let fromFile = try FIRFileTests.impulseResponse(#"{"type": "fir", "file": "HD 600 GraphicEQ.txt", "phase": "\#(phase)"}"#, in: d, frames: 16_384)[0]
        #expect(inline == fromFile)
        let curve = try GraphicEQCurve(Self.line, source: "t", path: "t")
        var worst = 0.0
        for f in stride(from: 25.0, to: 19_000, by: 97) {
            var re = 0.0, im = 0.0
            for (n, x) in inline.enumerated() where x != 0 { re += Double(x) * cos(2 * .pi * f * Double(n) / 48_000); im -= Double(x) * sin(2 * .pi * f * Double(n) / 48_000) }
            worst = max(worst, abs(10 * log10(re * re + im * im) - curve.gainDB(at: f)))
        }
        print(String(format: "fir from a 127-point GraphicEQ line, %@ phase: worst %.3f dB from the line, 25 Hz–19 kHz", phase, worst))
        #expect(worst < 0.1)
        if phase == "linear" {
            let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [{"type": "fir", "graphicEQ": "GraphicEQ: 20 0; 20000 0", "phase": "linear", "taps": 1000}]}"#.utf8))
            let (y, plan) = try PresetRender.render(preset, input: [[1] + [Float](repeating: 0, count: 2_000)], block: 64)
            let peak = y[0].indices.max { abs(y[0][$0]) < abs(y[0][$1]) }!
            #expect(plan.latencyFrames == 500 && peak == 500, "latency \(plan.latencyFrames), impulse at \(peak)")
        }
    }

    @Test func malformedLinesNameThePoint() throws {
        for (line, message) in [("GraphicEQ: 20 -3; 30 x", "point 2 \"30 x\""), ("GraphicEQ: 20 -3; 20 -2", "point 2 at 20 Hz is not above"), ("GraphicEQ:", "no points")] {
            #expect { try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [{"type": "fir", "graphicEQ": "\#(line)"}]}"#.utf8)) } throws: {
                "\($0)".contains("chain[0].graphicEQ: graphicEQ: " + message)
            }
        }
    }
}

/// The target curve the GraphicEQ tests write.
enum MagnitudeFIRDesignTargets {
    static func curve(_ f: Double) -> Double {
        func bell(_ f0: Double, _ db: Double, _ octaves: Double) -> Double { db * exp(-pow(log2(f / f0) / octaves, 2)) }
        return 5 / (1 + pow(f / 100, 2)) + bell(2_500, -4, 0.7) + bell(9_000, 3, 0.5) - 2 / (1 + pow(14_000 / f, 4))
    }
}
