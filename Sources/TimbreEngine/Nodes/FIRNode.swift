import Foundation
import TimbreDSP

// `fir`: a finite impulse response given in the preset, run with no added latency by the
// partitioned convolver (a direct-form head, FFT partitions after it).

/// The settings of a `fir` node: one filter for every channel, or one per channel.
public struct FIRSettings: NodeParameters {
    /// The taps, one list per channel (a single list: every channel).
    public var responses: [[Float]]
    /// A gain in dB applied to every tap.
    public var gainDB: Double
    public init(responses: [[Float]], gainDB: Double = 0) { self.responses = responses; self.gainDB = gainDB }
}

extension NodeKind {
    /// A FIR filter: `taps` for every channel (or one list per channel).
    public static func fir(_ responses: [[Float]], gainDB: Double = 0) -> NodeKind { NodeKind(FIRSettings(responses: responses, gainDB: gainDB)) }
}

package enum FIRNode: NodeDefinition {
    package static let typeNames = ["fir"]
    package static func typeName(of _: FIRSettings) -> String { "fir" }

    /// The most taps a filter may have: 2²¹ (43.7 s at 48 kHz).
    package static let maximumTaps = 1 << 21

    package static let parameterSpecs = [
        ParameterSpec("gain", unit: "dB", range: -60...24, default: 0, scale: .decibel, in: ["firNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        let taps: JSONValue = .object(["type": .string("array"), "minItems": .number(1), "maxItems": .number(Double(maximumTaps)),
                                       "items": .object(["type": .string("number"), "minimum": .number(-1_000), "maximum": .number(1_000)])])
        return NodeSchemaEntry(
            name: "firNode",
            description: "A finite impulse response (room correction, a crossover, a linear-phase filter) given as its taps: one list for every channel, or one list per channel. Convolved with no added latency (a direct-form head, then FFT partitions of doubling size).",
            otherKeys: [("coefficients", .object(["oneOf": .array([taps, .object(["type": .string("array"), "minItems": .number(1), "items": taps])])]))],
            required: ["coefficients"])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> FIRSettings {
        let field = try o.required("coefficients")
        let list = try field.array()
        guard !list.isEmpty else { throw PresetError(path: field.path, "expected at least one coefficient") }
        var responses: [[Float]] = []
        if case .array = list[0] {
            for (c, v) in list.enumerated() { responses.append(try taps(Field(value: v, path: "\(field.path)[\(c)]"))) }
        } else {
            responses = [try taps(field)]
        }
        let gain = try o.optional("gain")?.number(in: parameterSpecs[0].range, unit: "dB") ?? 0
        return FIRSettings(responses: responses, gainDB: gain)
    }

    /// One list of taps: finite numbers, at least one, at most ``maximumTaps``.
    static func taps(_ field: Field) throws(PresetError) -> [Float] {
        let values = try field.array()
        guard !values.isEmpty else { throw PresetError(path: field.path, "expected at least one coefficient") }
        guard values.count <= maximumTaps else { throw PresetError(path: field.path, "\(values.count) coefficients is too many (allowed up to \(maximumTaps))") }
        var out: [Float] = []
        out.reserveCapacity(values.count)
        for (k, v) in values.enumerated() {
            guard case .number(let d) = v, d.isFinite, abs(d) <= 1_000 else {
                throw PresetError(path: "\(field.path)[\(k)]", "expected a number within ±1000 (+60 dB), found \(v.typeName) \(v.brief)")
            }
            out.append(Float(d))
        }
        return out
    }

    package static func encode(_ s: FIRSettings) -> [String: JSONValue] {
        let lists = s.responses.map { JSONValue.array($0.map { .number(Double($0)) }) }
        var o: [String: JSONValue] = ["coefficients": lists.count == 1 ? lists[0] : .array(lists)]
        if s.gainDB != 0 { o["gain"] = .number(s.gainDB) }
        return o
    }

    package static func lower(_ s: FIRSettings, into node: inout NodeLowering) throws(PresetError) {
        if s.responses.count > 1 && s.responses.count != node.channels {
            throw PresetError(path: node.path + ".coefficients", "\(s.responses.count) lists of coefficients for \(node.channels) channels (give one list, or one per channel)")
        }
        let state: FIRState
        if let registry = node.registry {
            state = try registry.state(FIRState.self, key: node.key, reuse: { $0.settings == s }, make: { () throws(PresetError) in FIRState(s) })
        } else {
            state = FIRState(s)
        }
        node.retain(state)
        let filter = state.filter, channels = node.channels
        node.addKernel(KernelRecipe(shape: KernelShape("fir", [channels] + filter.layout.levels.map(\.size), carriesState: true)) {
            PartitionedConvolver(filter: filter, channelCount: channels)
        })
    }

    /// Not yet drawn by `timbre response` (its taps are no second-order sections): reported as
    /// unknown rather than flat.
    package static func response(of s: FIRSettings, sampleRate: Double) -> NodeResponse { .unknown }

    package static func summary(of s: FIRSettings) -> String {
        let lengths = Set(s.responses.map(\.count)).sorted().map(String.init).joined(separator: "/")
        return "fir \(lengths) taps" + (s.responses.count > 1 ? " (\(s.responses.count) channels)" : "") + (s.gainDB != 0 ? String(format: ", %+.1f dB", s.gainDB) : "")
    }
}

/// A `fir` node's prepared spectra, shared by the plans that continue the node with the same taps.
final class FIRState {
    let settings: FIRSettings
    let filter: ConvolutionFilter
    init(_ s: FIRSettings) {
        settings = s
        let scale = Float(pow(10, s.gainDB / 20))
        let responses = s.responses.map { $0.map { $0 * scale } }
        filter = ConvolutionFilter(responses: responses, layout: PartitionLayout(length: responses.map(\.count).max() ?? 1))
    }
}

extension PartitionedConvolver: RenderKernel {
    package static let operations = KernelOperations(
        process: { k, b in PartitionedConvolver.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in PartitionedConvolver.at(new).pointee.continueState(from: PartitionedConvolver.at(old).pointee) },
        reset: { k in PartitionedConvolver.at(k).pointee.reset() },
        clearNonFinite: { k in PartitionedConvolver.at(k).pointee.clearNonFinite() })
}
