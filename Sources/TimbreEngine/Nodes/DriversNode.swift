import Foundation
import TimbreDSP

// `drivers`: per-output delay (ms, samples or mm, fractions exact to 20 kHz), gain, polarity
// and protection limiter for active speakers (`DriverAlignment`).

/// The settings of a `drivers` node.
public struct DriversSettings: NodeParameters {
    /// One output (one driver's amplifier channel).
    public struct Output: Sendable, Equatable, Hashable {
        /// How the output's delay was given.
        public enum Delay: Sendable, Equatable, Hashable {
            case milliseconds(Double)
            case samples(Double)
            /// A distance, converted with the node's speed of sound.
            case millimetres(Double)
        }
        public var label: String?
        public var delay: Delay
        public var gainDB: Double
        public var inverted: Bool
        /// The protection limiter's ceiling (dBTP), or nil.
        public var limitDB: Double?
        public var mute: Bool
        public init(label: String? = nil, delay: Delay = .milliseconds(0), gainDB: Double = 0, inverted: Bool = false, limitDB: Double? = nil, mute: Bool = false) {
            self.label = label; self.delay = delay; self.gainDB = gainDB; self.inverted = inverted; self.limitDB = limitDB; self.mute = mute
        }

        /// The delay in frames at `sampleRate`.
        public func delayFrames(sampleRate: Double, speedOfSound: Double) -> Double {
            switch delay {
            case .milliseconds(let ms): ms / 1000 * sampleRate
            case .samples(let n): n
            case .millimetres(let mm): mm / 1000 / speedOfSound * sampleRate
            }
        }
    }

    public var outputs: [Output]
    /// Metres per second, for delays given as distances: 343 (dry air at 20 °C).
    public var speedOfSound: Double = 343
    public init(outputs: [Output], speedOfSound: Double = 343) { self.outputs = outputs; self.speedOfSound = speedOfSound }
}

extension NodeKind {
    /// Per-output delay, gain, polarity and protection limiting.
    public static func drivers(_ settings: DriversSettings) -> NodeKind { NodeKind(settings) }
}

package enum DriversNode: NodeDefinition {
    package static let typeNames = ["drivers"]
    package static func typeName(of _: DriversSettings) -> String { "drivers" }

    enum Range {
        static let delayMs: ClosedRange<Double> = 0...1000
        static let delaySamples: ClosedRange<Double> = 0...192_000
        static let delayMm: ClosedRange<Double> = 0...340_000
        static let gain: ClosedRange<Double> = -60...20
        static let limit: ClosedRange<Double> = -40...0
        static let speedOfSound: ClosedRange<Double> = 300...360
    }

    package static let parameterSpecs = [
        ParameterSpec("outputs[].delay", unit: "ms", range: Range.delayMs, default: 0, in: ["driversNode"]),
        ParameterSpec("outputs[].delaySamples", unit: "samples", range: Range.delaySamples, in: ["driversNode"]),
        ParameterSpec("outputs[].delayMm", unit: "mm", range: Range.delayMm, in: ["driversNode"]),
        ParameterSpec("outputs[].gain", unit: "dB", range: Range.gain, default: 0, scale: .decibel, in: ["driversNode"]),
        ParameterSpec("outputs[].limit", unit: "dBTP", range: Range.limit, scale: .decibel, in: ["driversNode"]),
        ParameterSpec("speedOfSound", unit: "m/s", range: Range.speedOfSound, default: 343, in: ["driversNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        let output: JSONValue = .object([
            "type": .string("object"), "additionalProperties": .bool(false),
            "properties": .object([
                "label": .object(["type": .string("string")]),
                "delay": .object(["type": .string("number"), "description": .string("ms"), "minimum": .number(Range.delayMs.lowerBound), "maximum": .number(Range.delayMs.upperBound)]),
                "delaySamples": .object(["type": .string("number"), "description": .string("samples"), "minimum": .number(Range.delaySamples.lowerBound), "maximum": .number(Range.delaySamples.upperBound)]),
                "delayMm": .object(["type": .string("number"), "description": .string("mm"), "minimum": .number(Range.delayMm.lowerBound), "maximum": .number(Range.delayMm.upperBound)]),
                "gain": .object(["type": .string("number"), "description": .string("dB"), "minimum": .number(Range.gain.lowerBound), "maximum": .number(Range.gain.upperBound)]),
                "invert": .object(["type": .string("boolean")]),
                "mute": .object(["type": .string("boolean")]),
                "limit": .object(["type": .string("number"), "description": .string("dBTP"), "minimum": .number(Range.limit.lowerBound), "maximum": .number(Range.limit.upperBound)]),
            ]),
        ])
        return NodeSchemaEntry(
            name: "driversNode",
            description: "Per-output alignment for active speakers, one entry in outputs per chain channel: delay in ms, delaySamples or delayMm (a distance, at speedOfSound m/s, 343 = dry air at 20 °C), fractions of a sample exact to 20 kHz (a 96-tap windowed sinc, error below −95 dB); gain in dB; invert for polarity; mute; limit, a true-peak protection limiter's ceiling in dBTP (unlinked across outputs, 1.5 ms lookahead). Latency: what fractional delays need beyond the smallest (at most 47 frames) plus the limiter's lookahead, the same on every output and reported.",
            otherKeys: [("outputs", .object(["type": .string("array"), "minItems": .number(1), "maxItems": .number(Double(NodeLowering.maximumChannels)), "items": output]))],
            required: ["outputs"])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> DriversSettings {
        var s = DriversSettings(outputs: [])
        if let f = try o.optional("speedOfSound") { s.speedOfSound = try f.number(in: Range.speedOfSound, unit: "m/s") }
        let list = try o.required("outputs")
        let items = try list.array()
        guard (1...NodeLowering.maximumChannels).contains(items.count) else {
            throw PresetError(path: list.path, "\(items.count) outputs (allowed 1…\(NodeLowering.maximumChannels))")
        }
        for (i, item) in items.enumerated() {
            let itemPath = list.path + "[\(i)]"
            var r = try ObjectReader(item, path: itemPath)
            var out = DriversSettings.Output()
            if let f = try r.optional("label") { out.label = try f.string() }
            let delays = [try r.optional("delay"), try r.optional("delaySamples"), try r.optional("delayMm")]
            if delays.compactMap({ $0 }).count > 1 { throw PresetError(path: itemPath, "give one of delay (ms), delaySamples and delayMm") }
            if let f = delays[0] { out.delay = .milliseconds(try f.number(in: Range.delayMs, unit: "ms")) }
            if let f = delays[1] { out.delay = .samples(try f.number(in: Range.delaySamples, unit: "samples")) }
            if let f = delays[2] { out.delay = .millimetres(try f.number(in: Range.delayMm, unit: "mm")) }
            if let f = try r.optional("gain") { out.gainDB = try f.number(in: Range.gain, unit: "dB") }
            if let f = try r.optional("invert") { out.inverted = try f.bool() }
            if let f = try r.optional("mute") { out.mute = try f.bool() }
            if let f = try r.optional("limit") { out.limitDB = try f.number(in: Range.limit, unit: "dBTP") }
            try r.finish()
            s.outputs.append(out)
        }
        return s
    }

    package static func encode(_ s: DriversSettings) -> [String: JSONValue] {
        let outputs: [JSONValue] = s.outputs.map { out in
            var o: [String: JSONValue] = ["gain": .number(out.gainDB)]
            if let label = out.label { o["label"] = .string(label) }
            switch out.delay {
            case .milliseconds(let v): o["delay"] = .number(v)
            case .samples(let v): o["delaySamples"] = .number(v)
            case .millimetres(let v): o["delayMm"] = .number(v)
            }
            if out.inverted { o["invert"] = .bool(true) }
            if out.mute { o["mute"] = .bool(true) }
            if let l = out.limitDB { o["limit"] = .number(l) }
            return .object(o)
        }
        return ["outputs": .array(outputs), "speedOfSound": .number(s.speedOfSound)]
    }

    /// The kernel's outputs at `sampleRate`.
    static func alignment(_ s: DriversSettings, sampleRate: Double) -> [DriverAlignment.Output] {
        s.outputs.map { out in
            DriverAlignment.Output(delayFrames: out.delayFrames(sampleRate: sampleRate, speedOfSound: s.speedOfSound),
                                   gain: out.mute ? 0 : (out.inverted ? -1 : 1) * pow(10, out.gainDB / 20), ceilingDB: out.limitDB)
        }
    }

    package static func lower(_ s: DriversSettings, into node: inout NodeLowering) throws(PresetError) {
        guard s.outputs.count == node.channels else {
            throw PresetError(path: node.path + ".outputs", "\(s.outputs.count) outputs for a chain of \(node.channels) channel\(node.channels == 1 ? "" : "s") here (give one per channel)")
        }
        if s.outputs.contains(where: { $0.label != nil }) {
            let before = CrossoverNode.inputNames(node.channelNames, count: node.channels)
            node.outputNames = s.outputs.enumerated().map { i, out in out.label ?? before[i] }
        }
        let outputs = alignment(s, sampleRate: node.sampleRate), rate = node.sampleRate, block = node.maxBlockFrames
        let latency = DriverAlignment.latencyFrames(for: outputs, sampleRate: rate)
        node.addKernel(KernelRecipe(shape: KernelShape("drivers", [outputs.count, latency], carriesState: true)) {
            DriversStep(alignment: DriverAlignment(outputs: outputs, sampleRate: rate, maximumBlockFrames: block))
        }, latency: latency)
    }

    package static func summary(of s: DriversSettings) -> String {
        "drivers " + s.outputs.enumerated().map { i, out in
            var text = out.label ?? "\(i + 1)"
            switch out.delay {
            case .milliseconds(let v) where v != 0: text += " \(SummaryFormat.number(v)) ms"
            case .samples(let v) where v != 0: text += " \(SummaryFormat.number(v)) samples"
            case .millimetres(let v) where v != 0: text += " \(SummaryFormat.number(v)) mm"
            default: break
            }
            if out.gainDB != 0 { text += String(format: " %+.1f dB", out.gainDB) }
            if out.inverted { text += " inverted" }
            if out.mute { text += " muted" }
            if let l = out.limitDB { text += " limit \(SummaryFormat.number(l)) dBTP" }
            return text
        }.joined(separator: "; ")
    }
}

/// A `drivers` node's step.
struct DriversStep: RenderKernel, ~Copyable {
    let alignment: DriverAlignment

    static let operations = KernelOperations(
        process: { k, b in DriversStep.at(k).pointee.alignment.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in DriversStep.at(new).pointee.alignment.continueState(from: DriversStep.at(old).pointee.alignment) },
        reset: { k in DriversStep.at(k).pointee.alignment.reset() },
        clearNonFinite: { k in DriversStep.at(k).pointee.alignment.clearNonFinite() })
}
