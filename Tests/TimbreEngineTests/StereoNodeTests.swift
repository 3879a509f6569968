import Foundation
import Testing
import TimbreControl
import TimbreDSP
import TimbreEngine
import TimbreTestSignals
import TimbreTestSupport

/// The `stereo` node's tools against their formulas (M = (L + R)/2, S = (L − R)/2), the
/// interaural correlation of decorrelated noise following `width` as (1 − w²)/(1 + w²), the
/// same bits for every block size, and every setting — switches too — moving live in the
/// kernel with a 25 ms ramp.
@Suite struct StereoNodeTests {
    static let l = Signals.noise(48_000, amplitude: 0.3, seed: 11), r = Signals.noise(48_000, amplitude: 0.3, seed: 12)

    static func render(_ node: String, block: Int = 256) throws -> [[Float]] {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "s", "chain": [\#(node)]}"#.utf8))
        return try PresetRender.render(preset, input: [l, r], block: block).output
    }

    @Test func eachToolIsItsFormula() throws {
        let cases: [(String, (Float, Float) -> (Float, Float))] = [
            (#"{"type": "stereo"}"#, { ($0, $1) }),
            (#"{"type": "stereo", "swap": true}"#, { ($1, $0) }),
            (#"{"type": "stereo", "invertLeft": true}"#, { (-$0, $1) }),
            (#"{"type": "stereo", "invertRight": true}"#, { ($0, -$1) }),
            (#"{"type": "stereo", "width": 0}"#, { (($0 + $1) / 2, ($0 + $1) / 2) }),
            (#"{"type": "stereo", "width": 200}"#, { (($0 + $1) / 2 + ($0 - $1), ($0 + $1) / 2 - ($0 - $1)) }),
            (#"{"type": "stereo", "sideGain": -6.0206}"#, { (($0 + $1) / 2 + ($0 - $1) / 4, ($0 + $1) / 2 - ($0 - $1) / 4) }),
            (#"{"type": "stereo", "midGain": 6.0206}"#, { (($0 + $1) + ($0 - $1) / 2, ($0 + $1) - ($0 - $1) / 2) }),
            (#"{"type": "stereo", "balance": -0.5}"#, { ($0, 0.5 * $1) }),
            (#"{"type": "stereo", "balance": 1}"#, { (0, $1) }),
            (#"{"type": "stereo", "mono": true}"#, { (($0 + $1) / 2, ($0 + $1) / 2) }),
            (#"{"type": "stereo", "swap": true, "invertLeft": true, "mono": true}"#, { ((-$1 + $0) / 2, (-$1 + $0) / 2) }),
        ]
        for (node, formula) in cases {
            let y = try Self.render(node)
            var worst: Float = 0
            for i in 0..<Self.l.count {
                let (a, b) = formula(Self.l[i], Self.r[i])
                worst = max(worst, abs(y[0][i] - a), abs(y[1][i] - b))
            }
            #expect(worst < 1e-4, "\(node): off its formula by \(worst)")
        }
    }

    @Test(arguments: [0.0, 50, 100, 150, 200])
    func correlationFollowsWidth(width: Double) throws {
        let y = try Self.render(#"{"type": "stereo", "width": \#(width)}"#)
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in 0..<Self.l.count { sab += Double(y[0][i] * y[1][i]); saa += Double(y[0][i] * y[0][i]); sbb += Double(y[1][i] * y[1][i]) }
        let rho = sab / (saa * sbb).squareRoot(), w = width / 100, expected = (1 - w * w) / (1 + w * w)
        #expect(abs(rho - expected) < 0.02, "width \(width) %: correlation \(rho), expected \(expected)")
    }

    @Test func aMonoChainIsRefused() throws {
        let preset = try PresetDecoder.decode(Data(#"{"version": 1, "name": "s", "chain": [{"type": "stereo"}]}"#.utf8))
        #expect { _ = try PresetRender.render(preset, input: [Self.l], block: 64) } throws: { "\($0)".contains("chain[0]: the stereo tools need a stereo chain") }
    }

    @Test func everySettingMovesLiveWithoutAClick() throws {
        let engine = try LiveEngine(document: LiveEngineTests.document(#"{"type": "stereo", "id": "s"}"#), sampleRate: 48_000, inputChannelCount: 2, outputChannelCount: 2)
        func set(_ key: String, _ value: JSONValue) throws -> LiveEditPath {
            try engine.apply(document: try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("s." + key, toValue: value))
        }
        #expect(try set("width", .number(180)) == .inKernel(nodes: 1))
        #expect(try set("swap", .bool(true)) == .inKernel(nodes: 1))
        #expect(try set("mono", .bool(true)) == .inKernel(nodes: 1))
        #expect(try set("balance", .number(-0.3)) == .inKernel(nodes: 1))
        // A swap under a tone in the left only, switched between blocks: the left falls and the
        // right rises over 25 ms (1,200 frames), no sample jumps more than the tone's own step.
        let kernel = StereoMatrixKernel(.identity, sampleRate: 48_000)
        var k = kernel
        let n = 4_800, tone = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }
        let buffer = PlanarBuffer(channels: [tone, [Float](repeating: 0, count: n)])
        for start in stride(from: 0, to: n, by: 64) {
            if start == 1_024 { k.set(StereoMatrix.tools(swap: true, invertLeft: false, invertRight: false, width: 1, midGain: 1, sideGain: 1, balance: 0, mono: false)) }
            buffer.withChannelPointers(from: start) { k.process($0, frameCount: 64) }
        }
        let y = buffer.channels, own = 0.5 * 2 * Float.pi * 1_000 / 48_000
        let step = (1..<n).map { max(abs(y[0][$0] - y[0][$0 - 1]), abs(y[1][$0] - y[1][$0 - 1])) }.max()!
        #expect(step <= own * 1.05, "largest step \(step), the tone's own \(own)")
        #expect(y[0][3_000] == 0 && y[1][3_000] == tone[3_000])
    }

    @Test func everyBlockSizeGivesTheSameBits() throws {
        let node = #"{"type": "stereo", "width": 130, "midGain": -1, "sideGain": 2, "balance": 0.2, "invertLeft": true}"#
        let reference = try Self.render(node, block: 4_096)
        for block in [1, 64, 333, 1_024] { #expect(try Self.render(node, block: block) == reference, "block \(block)") }
    }
}
