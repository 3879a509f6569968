import Foundation
import TimbreDSP

// `convolver`: an impulse response from a sound file (a room, a hall, a cabinet, a headphone
// correction), resampled to the session's rate, run with no added latency; mono, per-channel,
// mono-to-stereo and true-stereo routing from the file's channel count; gain normalisation,
// predelay, trim, wet/dry mix and width for reverb use.

/// The settings of a `convolver` node.
public struct ConvolverSettings: NodeParameters {
    /// How the response's level is set before `gainDB`.
    public enum Normalization: String, CaseIterable, Sendable {
        /// As the file holds it.
        case none
        /// The response with the most energy scaled to unity energy (Σh² = 1): white noise
        /// keeps its level through it.
        case energy
        /// The largest tap of any response scaled to 1.
        case peak
    }

    /// The impulse response's file(s): 1 channel (every channel through it), one per chain
    /// channel, 2 on a mono chain (mono to stereo), or 4 (true stereo: L→L, L→R, R→L, R→R).
    public var file: ResponseFile
    public var gainDB: Double = 0
    public var normalization: Normalization = .none
    /// Silence put before the response, in ms.
    public var predelayMs: Double = 0
    /// Wet share in percent (0 dry only … 100 wet only).
    public var mixPercent: Double = 100
    /// The wet stereo image: 0 mono, 100 as recorded, 200 twice the side signal.
    public var widthPercent: Double = 100
    /// Cuts the response's start and tail below this level relative to its peak (dB); nil keeps all.
    public var trimDB: Double?

    public init(file: ResponseFile) { self.file = file }
}

extension NodeKind {
    /// A convolver running the impulse response in `file`.
    public static func convolver(_ settings: ConvolverSettings) -> NodeKind { NodeKind(settings) }
}

package enum ConvolverNode: NodeDefinition {
    package static let typeNames = ["convolver"]
    package static func typeName(of _: ConvolverSettings) -> String { "convolver" }

    /// The longest response after resampling and predelay: 2²² taps (87 s at 48 kHz).
    package static let maximumTaps = 1 << 22

    package static let parameterSpecs = [
        ParameterSpec("gain", unit: "dB", range: -60...24, default: 0, scale: .decibel, in: ["convolverNode"]),
        ParameterSpec("predelay", unit: "ms", range: 0...1_000, default: 0, in: ["convolverNode"]),
        ParameterSpec("mix", unit: "%", range: 0...100, default: 100, in: ["convolverNode"]),
        ParameterSpec("width", unit: "%", range: 0...200, default: 100, in: ["convolverNode"]),
        ParameterSpec("trim", unit: "dB", range: -160 ... -20, scale: .decibel, in: ["convolverNode"]),
        ResponseFile.sampleRateSpec(in: "convolverNode"),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "convolverNode",
            description: "An impulse response from a sound file (any format libsndfile reads, resampled to the session's rate) convolved with no added latency. The file's channels choose the routing: 1 (every channel through it), one per chain channel, 2 on a mono chain (mono to stereo), 4 (true stereo: L→L, L→R, R→L, R→R). normalize sets its level (none, energy: unity energy, peak: unity peak) before gain; predelay puts silence before it; trim cuts its start and tail below a level relative to its peak; mix is the wet share, width the wet stereo image.",
            otherKeys: ResponseFile.schemaKeys + [("normalize", .object(["enum": .array(ConvolverSettings.Normalization.allCases.map { .string($0.rawValue) })]))],
            required: ["file"])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> ConvolverSettings {
        guard let file = try ResponseFile.decode(&o) else { throw PresetError(path: path, "a convolver needs file (its impulse response)") }
        var s = ConvolverSettings(file: file)
        s.gainDB = try o.optional("gain")?.number(in: parameterSpecs[0].range, unit: "dB") ?? 0
        s.predelayMs = try o.optional("predelay")?.number(in: parameterSpecs[1].range, unit: "ms") ?? 0
        s.mixPercent = try o.optional("mix")?.number(in: parameterSpecs[2].range, unit: "%") ?? 100
        s.widthPercent = try o.optional("width")?.number(in: parameterSpecs[3].range, unit: "%") ?? 100
        s.trimDB = try o.optional("trim")?.number(in: parameterSpecs[4].range, unit: "dB")
        s.normalization = try o.optional("normalize")?.oneOf(ConvolverSettings.Normalization.self) ?? .none
        return s
    }

    package static func encode(_ s: ConvolverSettings) -> [String: JSONValue] {
        var o = s.file.encoded
        if s.gainDB != 0 { o["gain"] = .number(s.gainDB) }
        if s.normalization != .none { o["normalize"] = .string(s.normalization.rawValue) }
        if s.predelayMs != 0 { o["predelay"] = .number(s.predelayMs) }
        if s.mixPercent != 100 { o["mix"] = .number(s.mixPercent) }
        if s.widthPercent != 100 { o["width"] = .number(s.widthPercent) }
        if let trim = s.trimDB { o["trim"] = .number(trim) }
        return o
    }

    /// The routes for `responses` on `channels` inputs, and the outputs; nil when they do not fit.
    static func routes(responses: Int, channels: Int) -> (routes: [RoutedConvolver.Route], outputs: Int)? {
        typealias Route = RoutedConvolver.Route
        if responses == 1 || responses == channels { return ((0..<channels).map { Route(input: $0, output: $0) }, channels) }
        if responses == 2 && channels == 1 { return ([Route(input: 0, output: 0), Route(input: 0, output: 1)], 2) }
        if responses == 4 && channels <= 2 {
            let r = channels - 1
            return ([Route(input: 0, output: 0), Route(input: 0, output: 1), Route(input: r, output: 0), Route(input: r, output: 1)], 2)
        }
        return nil
    }

    package static func lower(_ s: ConvolverSettings, into node: inout NodeLowering) throws(PresetError) {
        let rate = node.sampleRate, path = node.path, reader = node.registry?.services.files
        let previous = node.previousState(ConvolverState.self)?.filter
        let state = try node.sharedState(ConvolverState.self, reuse: { $0.matches(s, sampleRate: rate) }) { () throws(PresetError) in
            try ConvolverState(s, sampleRate: rate, reader: reader, path: path)
        }
        let count = state.filter.responseCount
        guard let (routes, outputs) = routes(responses: count, channels: node.channels) else {
            throw PresetError(path: node.path + ".file", "\(count) channels of impulse response for \(node.channels) chain channels (give 1, one per channel, 2 on a mono chain, or 4 for true stereo on mono or stereo)")
        }
        node.retain(state)
        node.channelsOut = outputs
        let filter = state.filter, inputs = node.channels, frames = node.maxBlockFrames, (threading, counters) = node.convolutionThreads()
        let mix = Float(s.mixPercent / 100), width = Float(s.widthPercent / 100)
        node.addKernel(KernelRecipe(shape: KernelShape("convolver", [inputs, outputs, routes.count] + filter.layout.levels.map(\.size), carriesState: true)) {
            RoutedConvolver(filter: filter, routes: routes, inputCount: inputs, outputCount: outputs, maximumBlockFrames: frames, mix: mix, width: width,
                            threading: threading, counters: counters, fadingFrom: previous)
        })
    }

    package static func response(of s: ConvolverSettings, sampleRate: Double) -> NodeResponse { .unknown }

    package static func summary(of s: ConvolverSettings) -> String {
        var text = "convolver " + s.file.names.joined(separator: ", ")
        if s.normalization != .none { text += ", \(s.normalization.rawValue) normalised" }
        if s.gainDB != 0 { text += String(format: ", %+.1f dB", s.gainDB) }
        if s.predelayMs != 0 { text += ", predelay \(SummaryFormat.number(s.predelayMs)) ms" }
        if s.mixPercent != 100 { text += ", mix \(SummaryFormat.number(s.mixPercent)) %" }
        if s.widthPercent != 100 { text += ", width \(SummaryFormat.number(s.widthPercent)) %" }
        if let trim = s.trimDB { text += ", trimmed at \(SummaryFormat.number(trim)) dB" }
        return text
    }
}

/// A `convolver` node's prepared response, shared by the plans that continue the node with
/// the same file and shaping (mix and width changes reuse it).
final class ConvolverState {
    let settings: ConvolverSettings
    let sampleRate: Double
    let filter: ConvolutionFilter

    init(_ s: ConvolverSettings, sampleRate: Double, reader: NodeFileReader?, path: String) throws(PresetError) {
        settings = s; self.sampleRate = sampleRate
        var responses = try s.file.load(sampleRate: sampleRate, reader: reader, path: path + ".file", maximumTaps: ConvolverNode.maximumTaps)
        responses = Self.shape(responses, s, sampleRate: sampleRate)
        guard let longest = responses.map(\.count).max(), longest <= ConvolverNode.maximumTaps else {
            throw PresetError(path: path + ".predelay", "the response with its predelay is longer than \(ConvolverNode.maximumTaps) taps")
        }
        filter = ConvolutionFilter(responses: responses, layout: PartitionLayout(length: longest))
    }

    func matches(_ s: ConvolverSettings, sampleRate: Double) -> Bool {
        sampleRate == self.sampleRate && s.file == settings.file && s.gainDB == settings.gainDB && s.normalization == settings.normalization
            && s.predelayMs == settings.predelayMs && s.trimDB == settings.trimDB
    }

    /// Trim (the same cut on every response, so they stay aligned), normalisation, gain and predelay.
    static func shape(_ input: [[Float]], _ s: ConvolverSettings, sampleRate: Double) -> [[Float]] {
        var responses = input
        let peak = responses.map { $0.reduce(0) { max($0, abs($1)) } }.max() ?? 0
        if let trim = s.trimDB, peak > 0 {
            let floor = peak * Float(pow(10, trim / 20))
            let first = responses.compactMap { $0.firstIndex { abs($0) >= floor } }.min() ?? 0
            let last = responses.compactMap { $0.lastIndex { abs($0) >= floor } }.max() ?? 0
            responses = responses.map { Array($0[min(first, $0.count)..<min(last + 1, $0.count)]) }
            responses = responses.map { $0.isEmpty ? [0] : $0 }
        }
        var scale = pow(10, s.gainDB / 20)
        switch s.normalization {
        case .none: break
        case .peak: if peak > 0 { scale /= Double(peak) }
        case .energy:
            let energy = responses.map { $0.reduce(0.0) { $0 + Double($1) * Double($1) } }.max() ?? 0
            if energy > 0 { scale /= energy.squareRoot() }
        }
        let delay = Int((s.predelayMs / 1000 * sampleRate).rounded())
        let zeros = [Float](repeating: 0, count: delay), factor = Float(scale)
        return responses.map { zeros + $0.map { $0 * factor } }
    }
}

extension RoutedConvolver: RenderKernel {
    package static let operations = KernelOperations(
        process: { k, b in RoutedConvolver.at(k).pointee.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in RoutedConvolver.at(new).pointee.continueState(from: RoutedConvolver.at(old).pointee) },
        reset: { k in RoutedConvolver.at(k).pointee.reset() },
        clearNonFinite: { k in RoutedConvolver.at(k).pointee.clearNonFinite() })
}
