import Foundation
import TimbreDSP

// `matrix`: N chain channels to M through routes with gain, polarity and mute
// (`ChannelMatrix`); splits and merges channels. Route gains move live, ramped.

/// The settings of a `matrix` node.
public struct MatrixSettings: NodeParameters {
    /// One route from an input channel to an output channel.
    public struct Route: Sendable, Equatable, Hashable {
        public var from: Int
        public var to: Int
        public var gainDB: Double
        public var inverted: Bool
        public var mute: Bool
        public init(from: Int, to: Int, gainDB: Double = 0, inverted: Bool = false, mute: Bool = false) {
            self.from = from; self.to = to; self.gainDB = gainDB; self.inverted = inverted; self.mute = mute
        }
        /// The route's linear gain (0 muted, negative inverted).
        public var linearGain: Double { mute ? 0 : (inverted ? -1 : 1) * pow(10, gainDB / 20) }
    }

    public var outputs: Int
    public var routes: [Route]
    /// Names of the output channels (as many as `outputs`), or nil.
    public var labels: [String]?
    public init(outputs: Int, routes: [Route], labels: [String]? = nil) { self.outputs = outputs; self.routes = routes; self.labels = labels }
}

extension NodeKind {
    /// A matrix mixer.
    public static func matrix(_ settings: MatrixSettings) -> NodeKind { NodeKind(settings) }
}

package enum MatrixNode: NodeDefinition {
    package static let typeNames = ["matrix"]
    package static func typeName(of _: MatrixSettings) -> String { "matrix" }
    static let gainRange: ClosedRange<Double> = -120...20

    package static let parameterSpecs = [
        ParameterSpec("outputs", range: 1...Double(NodeLowering.maximumChannels), wholeNumber: true, in: ["matrixNode"]),
        ParameterSpec("routes[].from", range: 0...Double(NodeLowering.maximumChannels - 1), wholeNumber: true, in: ["matrixNode"]),
        ParameterSpec("routes[].to", range: 0...Double(NodeLowering.maximumChannels - 1), wholeNumber: true, in: ["matrixNode"]),
        ParameterSpec("routes[].gain", unit: "dB", range: gainRange, default: 0, scale: .decibel, movesLive: true, in: ["matrixNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        let route: JSONValue = .object([
            "type": .string("object"), "additionalProperties": .bool(false), "required": .array([.string("from"), .string("to")]),
            "properties": .object([
                "from": .object(["type": .string("integer"), "minimum": .number(0), "maximum": .number(Double(NodeLowering.maximumChannels - 1))]),
                "to": .object(["type": .string("integer"), "minimum": .number(0), "maximum": .number(Double(NodeLowering.maximumChannels - 1))]),
                "gain": .object(["type": .string("number"), "description": .string("dB"), "minimum": .number(gainRange.lowerBound), "maximum": .number(gainRange.upperBound)]),
                "invert": .object(["type": .string("boolean")]),
                "mute": .object(["type": .string("boolean")]),
            ]),
        ])
        return NodeSchemaEntry(
            name: "matrixNode",
            description: "A matrix mixer: the chain's channels (inputs, from 0) to outputs channels through routes, each from → to with gain (dB), invert and mute; an output no route reaches is silent. Splits (one input to several outputs) and merges (several into one). labels name the outputs. Route gains, inverts and mutes move live in 20 ms ramps; other changes make a new plan. No latency.",
            otherKeys: [("routes", .object(["type": .string("array"), "items": route])),
                        ("labels", .object(["type": .string("array"), "items": .object(["type": .string("string")])]))],
            required: ["outputs", "routes"])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> MatrixSettings {
        let outputsField = try o.required("outputs")
        let outputs = try outputsField.number(in: 1...Double(NodeLowering.maximumChannels), unit: "")
        guard outputs == outputs.rounded() else { throw PresetError(path: outputsField.path, "\(JSONValue.number(outputs).brief) is not a whole number of channels") }
        var s = MatrixSettings(outputs: Int(outputs), routes: [])
        let list = try o.required("routes")
        for (i, item) in try list.array().enumerated() {
            var r = try ObjectReader(item, path: list.path + "[\(i)]")
            func index(_ key: String, below limit: Int) throws(PresetError) -> Int {
                let f = try r.required(key)
                let v = try f.number(in: 0...Double(NodeLowering.maximumChannels - 1), unit: "")
                guard v == v.rounded() else { throw PresetError(path: f.path, "\(JSONValue.number(v).brief) is not a channel index") }
                guard Int(v) < limit else { throw PresetError(path: f.path, "channel \(Int(v)) does not exist (0…\(limit - 1))") }
                return Int(v)
            }
            var route = MatrixSettings.Route(from: try index("from", below: NodeLowering.maximumChannels), to: try index("to", below: s.outputs))
            if let f = try r.optional("gain") { route.gainDB = try f.number(in: gainRange, unit: "dB") }
            if let f = try r.optional("invert") { route.inverted = try f.bool() }
            if let f = try r.optional("mute") { route.mute = try f.bool() }
            try r.finish()
            s.routes.append(route)
        }
        if let f = try o.optional("labels") {
            let names = try f.array()
            guard names.count == s.outputs else { throw PresetError(path: f.path, "\(names.count) labels for \(s.outputs) outputs") }
            var labels: [String] = []
            for (i, v) in names.enumerated() { labels.append(try Field(value: v, path: f.path + "[\(i)]").string()) }
            s.labels = labels
        }
        return s
    }

    package static func encode(_ s: MatrixSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = [
            "outputs": .number(Double(s.outputs)),
            "routes": .array(s.routes.map { r in
                var e: [String: JSONValue] = ["from": .number(Double(r.from)), "to": .number(Double(r.to)), "gain": .number(r.gainDB)]
                if r.inverted { e["invert"] = .bool(true) }
                if r.mute { e["mute"] = .bool(true) }
                return .object(e)
            }),
        ]
        if let labels = s.labels { o["labels"] = .array(labels.map { .string($0) }) }
        return o
    }

    package static func lower(_ s: MatrixSettings, into node: inout NodeLowering) throws(PresetError) {
        for (i, r) in s.routes.enumerated() where r.from >= node.channels {
            throw PresetError(path: node.path + ".routes[\(i)].from", "channel \(r.from) does not exist (the chain has \(node.channels) here, 0…\(node.channels - 1))")
        }
        let inputs = node.channels, outputs = s.outputs, rate = node.sampleRate, block = node.maxBlockFrames
        let routes = s.routes.map { ChannelMatrix.Route(from: $0.from, to: $0.to, gain: Float($0.linearGain)) }
        node.channelsOut = outputs
        if let labels = s.labels { node.outputNames = labels }
        let motion = node.valuesMotion(s.routes.map(\.linearGain))
        let detail = [inputs, outputs] + s.routes.flatMap { [$0.from, $0.to] }
        node.addKernel(KernelRecipe(shape: KernelShape("matrix", detail, carriesState: true)) {
            var step = MatrixStep(matrix: ChannelMatrix(routes: routes, inputCount: inputs, outputCount: outputs, sampleRate: rate, maximumBlockFrames: block))
            step.motion = motion?.makeFollower()
            return step
        }, width: max(inputs, outputs))
    }

    /// Gains, inverts and mutes move live when the routes stay the same.
    package static func liveValues(from old: MatrixSettings, to new: MatrixSettings, sampleRate _: Double) -> [Double]? {
        guard old.outputs == new.outputs, old.labels == new.labels, old.routes.map({ [$0.from, $0.to] }) == new.routes.map({ [$0.from, $0.to] }) else { return nil }
        return new.routes.map(\.linearGain)
    }

    package static func summary(of s: MatrixSettings) -> String {
        "matrix → \(s.outputs) ch: " + s.routes.map { r in
            "\(r.from)→\(r.to)\(r.gainDB != 0 ? String(format: " %+.1f dB", r.gainDB) : "")\(r.inverted ? " inverted" : "")\(r.mute ? " muted" : "")"
        }.joined(separator: "; ")
    }
}

/// A `matrix` node's step.
struct MatrixStep: RenderKernel, ~Copyable {
    let matrix: ChannelMatrix
    var motion: ValuesMotion.Follower? = nil

    mutating func follow() {
        guard let gains = motion?.next() else { return }
        matrix.setGains(gains, count: matrix.routeCount)
    }

    static let operations = KernelOperations(
        process: { k, b in
            MatrixStep.at(k).pointee.follow()
            MatrixStep.at(k).pointee.matrix.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in MatrixStep.at(new).pointee.matrix.continueState(from: MatrixStep.at(old).pointee.matrix) },
        reset: nil,
        clearNonFinite: nil)
    deinit { motion?.deallocate() }
}
