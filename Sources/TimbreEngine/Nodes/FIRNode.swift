import Foundation
import TimbreDSP

// `fir`: a finite impulse response given in the preset, run with no added latency by the
// partitioned convolver (a direct-form head, FFT partitions after it).

/// The settings of a `fir` node: one filter for every channel, or one per channel, given
/// inline or in files (REW's and rePhase's text exports, raw samples, sound files).
public struct FIRSettings: NodeParameters {
    /// The taps, one list per channel (a single list: every channel); empty when `file` holds them.
    public var responses: [[Float]]
    /// The files holding the taps (one file's channels, or one file per channel).
    public var file: ResponseFile?
    /// A magnitude curve to design the taps from (AutoEQ's GraphicEQ line), inline; a `file`
    /// holding such a line is designed the same way.
    public var graphicEQ: GraphicEQCurve?
    /// How a curve is designed: minimum phase (no latency, no pre-ringing) or linear phase
    /// (latency (taps − 1)/2, reported).
    public var phase: MagnitudeFIRDesign.Phase = .minimum
    /// Taps a designed curve gets (nil: 8,192).
    public var designTaps: Int?
    /// A gain in dB applied to every tap.
    public var gainDB: Double
    public init(responses: [[Float]], gainDB: Double = 0) { self.responses = responses; self.gainDB = gainDB }
    public init(file: ResponseFile, gainDB: Double = 0) { responses = []; self.file = file; self.gainDB = gainDB }
    public init(graphicEQ: GraphicEQCurve, phase: MagnitudeFIRDesign.Phase = .minimum, taps: Int? = nil, gainDB: Double = 0) {
        responses = []; self.graphicEQ = graphicEQ; self.phase = phase; designTaps = taps; self.gainDB = gainDB
    }
}

extension NodeKind {
    /// A FIR filter: `taps` for every channel (or one list per channel).
    public static func fir(_ responses: [[Float]], gainDB: Double = 0) -> NodeKind { NodeKind(FIRSettings(responses: responses, gainDB: gainDB)) }
    /// A FIR filter whose taps are in `file`.
    public static func fir(file: ResponseFile, gainDB: Double = 0) -> NodeKind { NodeKind(FIRSettings(file: file, gainDB: gainDB)) }
}

package enum FIRNode: NodeDefinition {
    package static let typeNames = ["fir"]
    package static func typeName(of _: FIRSettings) -> String { "fir" }

    /// The most taps a filter may have: 2²¹ (43.7 s at 48 kHz).
    package static let maximumTaps = 1 << 21
    /// Taps a designed curve gets by default: 8,192 (at 48 kHz a resolution of 5.9 Hz; linear
    /// phase 8,193, latency 4,096 frames = 85 ms).
    package static let defaultDesignTaps = 8_192

    package static let parameterSpecs = [
        ParameterSpec("gain", unit: "dB", range: -60...24, default: 0, scale: .decibel, in: ["firNode"]),
        ResponseFile.sampleRateSpec(in: "firNode"),
        ParameterSpec("taps", range: 64...65_536, default: Double(defaultDesignTaps), scale: .logarithmic, wholeNumber: true, in: ["firNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        let taps: JSONValue = .object(["type": .string("array"), "minItems": .number(1), "maxItems": .number(Double(maximumTaps)),
                                       "items": .object(["type": .string("number"), "minimum": .number(-1_000), "maximum": .number(1_000)])])
        return NodeSchemaEntry(
            name: "firNode",
            description: "A finite impulse response (room correction, a crossover, a linear-phase filter) given as its taps: one list for every channel, or one list per channel, inline (coefficients) or in files (file: REW's or rePhase's text export, raw samples in format, or a sound file; one file's channels or one file per channel), or designed from AutoEQ's GraphicEQ line (graphicEQ, or a file holding it) with taps taps in minimum or linear phase. Convolved with no added latency (a direct-form head, then FFT partitions of doubling size).",
            otherKeys: [("coefficients", .object(["oneOf": .array([taps, .object(["type": .string("array"), "minItems": .number(1), "items": taps])])]))]
                + ResponseFile.schemaKeys
                + [("graphicEQ", .object(["type": .string("string"), "minLength": .number(1)])),
                   ("phase", .object(["enum": .array(MagnitudeFIRDesign.Phase.allCases.map { .string($0.rawValue) })]))],
            required: [])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> FIRSettings {
        let gain = try o.optional("gain")?.number(in: parameterSpecs[0].range, unit: "dB") ?? 0
        let phaseField = try o.optional("phase")
        let phase = try phaseField?.oneOf(MagnitudeFIRDesign.Phase.self) ?? .minimum
        var designTaps: Int?
        let tapsField = try o.optional("taps")
        if let field = tapsField {
            let n = try field.number(in: parameterSpecs[2].range, unit: "")
            guard n == n.rounded() else { throw PresetError(path: field.path, "\(JSONValue.number(n).brief) is not a whole number of taps") }
            designTaps = Int(n)
        }
        if let field = try o.optional("graphicEQ") {
            for key in ["coefficients", "file"] {
                if let both = try o.optional(key) { throw PresetError(path: both.path, "give one of coefficients, file and graphicEQ") }
            }
            return FIRSettings(graphicEQ: try GraphicEQCurve(try field.string(), source: "graphicEQ", path: field.path), phase: phase, taps: designTaps, gainDB: gain)
        }
        if let file = try ResponseFile.decode(&o) {
            if let both = try o.optional("coefficients") { throw PresetError(path: both.path, "give coefficients or file, not both") }
            var s = FIRSettings(file: file, gainDB: gain)
            s.phase = phase; s.designTaps = designTaps
            return s
        }
        guard let field = try o.optional("coefficients") else { throw PresetError(path: path, "a fir node needs coefficients (inline taps), file or graphicEQ") }
        if let designed = phaseField ?? tapsField { throw PresetError(path: designed.path, FIRState.designOnly) }
        let list = try field.array()
        guard !list.isEmpty else { throw PresetError(path: field.path, "expected at least one coefficient") }
        var responses: [[Float]] = []
        if case .array = list[0] {
            for (c, v) in list.enumerated() { responses.append(try taps(Field(value: v, path: "\(field.path)[\(c)]"))) }
        } else {
            responses = [try taps(field)]
        }
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
        var o: [String: JSONValue]
        if let curve = s.graphicEQ {
            o = ["graphicEQ": .string(curve.text)]
        } else if let file = s.file {
            o = file.encoded
        } else {
            let lists = s.responses.map { JSONValue.array($0.map { .number(Double($0)) }) }
            o = ["coefficients": lists.count == 1 ? lists[0] : .array(lists)]
        }
        if s.gainDB != 0 { o["gain"] = .number(s.gainDB) }
        if s.phase != .minimum { o["phase"] = .string(s.phase.rawValue) }
        if let taps = s.designTaps { o["taps"] = .number(Double(taps)) }
        return o
    }

    package static func lower(_ s: FIRSettings, into node: inout NodeLowering) throws(PresetError) {
        let rate = node.sampleRate, path = node.path, reader = node.registry?.services.files
        let previous = node.previousState(FIRState.self)?.filter
        let state = try node.sharedState(FIRState.self, reuse: { $0.settings == s && $0.sampleRate == rate }) { () throws(PresetError) in
            try FIRState(s, sampleRate: rate, reader: reader, path: path)
        }
        if state.responseCount > 1 && state.responseCount != node.channels {
            let what = s.file == nil ? "lists of coefficients" : "channels of coefficients in \(s.file!.names.joined(separator: ", "))"
            throw PresetError(path: node.path + (s.file == nil ? ".coefficients" : ".file"), "\(state.responseCount) \(what) for \(node.channels) channels (give one, or one per channel)")
        }
        node.retain(state)
        node.addConvolution(state.filter, fadingFrom: previous, latency: state.latency)
    }

    /// Not yet drawn by `timbre response` (its taps are no second-order sections): reported as
    /// unknown rather than flat.
    package static func response(of s: FIRSettings, sampleRate: Double) -> NodeResponse { .unknown }

    package static func summary(of s: FIRSettings) -> String {
        let gain = s.gainDB != 0 ? String(format: ", %+.1f dB", s.gainDB) : ""
        if let curve = s.graphicEQ {
            return "fir from a GraphicEQ curve (\(curve.points.count) points, \(s.phase.rawValue) phase, \(MagnitudeFIRDesign.tapCount(s.designTaps ?? defaultDesignTaps, phase: s.phase)) taps)" + gain
        }
        if let file = s.file { return "fir " + file.names.joined(separator: ", ") + gain }
        let lengths = Set(s.responses.map(\.count)).sorted().map(String.init).joined(separator: "/")
        return "fir \(lengths) taps" + (s.responses.count > 1 ? " (\(s.responses.count) channels)" : "") + gain
    }
}

/// A `fir` node's prepared spectra, shared by the plans that continue the node with the same
/// taps at the same rate (files are read and parsed once, on the control thread).
final class FIRState {
    let settings: FIRSettings
    let sampleRate: Double
    let filter: ConvolutionFilter
    /// Frames a linear-phase design delays by (0 otherwise).
    let latency: Int
    /// Why `phase` and `taps` are refused beside taps given as they are.
    static let designOnly = "phase and taps shape a filter designed from a GraphicEQ curve; given taps are used as they are"
    var responseCount: Int { filter.responseCount }
    init(_ s: FIRSettings, sampleRate: Double, reader: NodeFileReader?, path: String) throws(PresetError) {
        settings = s; self.sampleRate = sampleRate
        var responses = s.responses
        var curve = s.graphicEQ
        // A file holding a GraphicEQ line is a curve to design, not taps.
        if let file = s.file, file.names.count == 1, file.format == nil || file.format == .text, let reader,
           !reader.isSoundFile(file.names[0]) {
            let bytes = try reader.bytes(file.names[0], path + ".file")
            if GraphicEQCurve.looksLikeOne(bytes) {
                curve = try GraphicEQCurve(String(decoding: bytes, as: UTF8.self), source: file.names[0], path: path + ".file")
            }
        }
        if curve == nil && (s.phase != .minimum || s.designTaps != nil) {
            throw PresetError(path: path + (s.designTaps != nil ? ".taps" : ".phase"), Self.designOnly)
        }
        var latency = 0
        if let curve {
            let length = s.designTaps ?? FIRNode.defaultDesignTaps
            responses = [MagnitudeFIRDesign.design(length: length, sampleRate: sampleRate, phase: s.phase) { curve.gainDB(at: $0) }]
            latency = MagnitudeFIRDesign.latency(length, phase: s.phase)
        } else if let file = s.file {
            responses = try file.load(sampleRate: sampleRate, reader: reader, path: path + ".file", maximumTaps: FIRNode.maximumTaps)
        }
        self.latency = latency
        let scale = Float(pow(10, s.gainDB / 20))
        responses = responses.map { $0.map { $0 * scale } }
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
