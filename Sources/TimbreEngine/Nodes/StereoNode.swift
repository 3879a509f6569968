import Foundation
import TimbreDSP

// `stereo`: the stereo tools on a stereo chain (`StereoMatrix`): width, mid and side gain,
// balance, swap, polarity per side, mono check — one 2 × 2 matrix, every change ramped.

/// The settings of a `stereo` node.
public struct StereoSettings: NodeParameters {
    /// 0…200 %: the side signal's scale (0: mono, 100: as it is, 200: twice as wide).
    public var widthPercent: Double = 100
    /// −24…+24 dB each.
    public var midGainDB: Double = 0
    public var sideGainDB: Double = 0
    /// −1 (the right turned off) … +1 (the left turned off).
    public var balance: Double = 0
    public var swap = false
    public var invertLeft = false
    public var invertRight = false
    /// Both sides (L + R)/2: how the mix sounds summed to mono.
    public var mono = false
    public init() {}

    /// The matrix these settings make.
    public var matrix: StereoMatrix {
        StereoMatrix.tools(swap: swap, invertLeft: invertLeft, invertRight: invertRight, width: widthPercent / 100,
                           midGain: GainUnits.linear(fromDB: midGainDB), sideGain: GainUnits.linear(fromDB: sideGainDB), balance: balance, mono: mono)
    }
}

extension NodeKind {
    /// The stereo tools.
    public static func stereo(_ settings: StereoSettings) -> NodeKind { NodeKind(settings) }
}

package enum StereoNode: NodeDefinition {
    package static let typeNames = ["stereo"]
    package static func typeName(of _: StereoSettings) -> String { "stereo" }

    package enum Range {
        package static let width: ClosedRange<Double> = 0...200
        package static let gain: ClosedRange<Double> = -24...24
        package static let balance: ClosedRange<Double> = -1...1
    }

    package static let parameterSpecs = [
        ParameterSpec("width", unit: "%", range: Range.width, default: 100, movesLive: true, in: ["stereoNode"]),
        ParameterSpec("midGain", unit: "dB", range: Range.gain, default: 0, scale: .decibel, movesLive: true, in: ["stereoNode"]),
        ParameterSpec("sideGain", unit: "dB", range: Range.gain, default: 0, scale: .decibel, movesLive: true, in: ["stereoNode"]),
        ParameterSpec("balance", range: Range.balance, default: 0, movesLive: true, in: ["stereoNode"]),
    ]

    static let switches = ["swap", "invertLeft", "invertRight", "mono"]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "stereoNode",
            description: "Stereo tools on a stereo chain, in this order: swap the sides, invert the polarity of either side (invertLeft, invertRight), scale mid and side (midGain, sideGain in dB; width % scales the side again: 0 mono, 200 twice as wide), balance (−1 turns the right off, +1 the left), mono (both sides (L + R)/2, a mono check). One 2 × 2 matrix; every change, switches included, ramps over 25 ms live.",
            otherKeys: switches.map { ($0, .object(["type": .string("boolean")])) })
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> StereoSettings {
        var s = StereoSettings()
        if let f = try o.optional("width") { s.widthPercent = try f.number(in: Range.width, unit: "%") }
        if let f = try o.optional("midGain") { s.midGainDB = try f.number(in: Range.gain, unit: "dB") }
        if let f = try o.optional("sideGain") { s.sideGainDB = try f.number(in: Range.gain, unit: "dB") }
        if let f = try o.optional("balance") { s.balance = try f.number(in: Range.balance, unit: "") }
        if let f = try o.optional("swap") { s.swap = try f.bool() }
        if let f = try o.optional("invertLeft") { s.invertLeft = try f.bool() }
        if let f = try o.optional("invertRight") { s.invertRight = try f.bool() }
        if let f = try o.optional("mono") { s.mono = try f.bool() }
        return s
    }

    package static func encode(_ s: StereoSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["width": .number(s.widthPercent), "midGain": .number(s.midGainDB), "sideGain": .number(s.sideGainDB), "balance": .number(s.balance)]
        if s.swap { o["swap"] = .bool(true) }
        if s.invertLeft { o["invertLeft"] = .bool(true) }
        if s.invertRight { o["invertRight"] = .bool(true) }
        if s.mono { o["mono"] = .bool(true) }
        return o
    }

    package static func lower(_ s: StereoSettings, into node: inout NodeLowering) throws(PresetError) {
        guard node.channels == 2 else {
            throw PresetError(path: node.path, "the stereo tools need a stereo chain (this one has \(node.channels) channel\(node.channels == 1 ? "" : "s"))")
        }
        let kernel = StereoMatrixKernel(s.matrix, sampleRate: node.sampleRate)
        let motion = node.valuesMotion(motionValues(s.matrix))
        node.addKernel(KernelRecipe(shape: KernelShape("stereo", carriesState: true)) {
            var step = StereoStep(kernel: kernel)
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Every setting moves live: all of them are the one matrix.
    package static func liveValues(from _: StereoSettings, to new: StereoSettings, sampleRate _: Double) -> [Double]? { motionValues(new.matrix) }

    static func motionValues(_ m: StereoMatrix) -> [Double] { [m.ll, m.rl, m.lr, m.rr] }

    package static func summary(of s: StereoSettings) -> String {
        var parts: [String] = []
        if s.swap { parts.append("swapped") }
        if s.invertLeft { parts.append("left inverted") }
        if s.invertRight { parts.append("right inverted") }
        if s.widthPercent != 100 { parts.append("width \(SummaryFormat.number(s.widthPercent)) %") }
        if s.midGainDB != 0 { parts.append(String(format: "mid %+.1f dB", s.midGainDB)) }
        if s.sideGainDB != 0 { parts.append(String(format: "side %+.1f dB", s.sideGainDB)) }
        if s.balance != 0 { parts.append("balance \(SummaryFormat.number(s.balance))") }
        if s.mono { parts.append("mono") }
        return "stereo " + (parts.isEmpty ? "as it is" : parts.joined(separator: ", "))
    }
}

/// A `stereo` node's step: the matrix, moved in place in a live plan.
struct StereoStep: RenderKernel, ~Copyable {
    var kernel: StereoMatrixKernel
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let r = motion?.next() else { return }
        kernel.set(StereoMatrix(ll: r[0], rl: r[1], lr: r[2], rr: r[3]))
    }

    static let operations = KernelOperations(
        process: { k, b in
            StereoStep.at(k).pointee.follow()
            StereoStep.at(k).pointee.kernel.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in StereoStep.at(new).pointee.kernel.continueFrom(StereoStep.at(old).pointee.kernel) })
    deinit { motion?.deallocate() }
}
