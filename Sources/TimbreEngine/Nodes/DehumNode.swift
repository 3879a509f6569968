import Foundation
import TimbreDSP

// `dehum`: mains hum removal (`HumRemover`): adaptive notches at the mains' harmonics, the
// mains found (50 or 60 Hz) and followed; no latency.

/// The settings of a `dehum` node.
public struct DehumSettings: NodeParameters {
    public var mains: HumRemover.Mains = .automatic
    public var harmonics = 8
    public var widthHz = 1.5
    public init() {}
}

extension NodeKind {
    /// A mains hum remover.
    public static func dehum(_ settings: DehumSettings) -> NodeKind { NodeKind(settings) }
}

package enum DehumNode: NodeDefinition {
    package static let typeNames = ["dehum"]
    package static func typeName(of _: DehumSettings) -> String { "dehum" }

    package enum Range {
        package static let harmonics: ClosedRange<Double> = 1...40
        package static let width: ClosedRange<Double> = 0.2...10
    }

    package static let parameterSpecs = [
        ParameterSpec("harmonics", unit: "", range: Range.harmonics, default: 8, wholeNumber: true, in: ["dehumNode"]),
        ParameterSpec("width", unit: "Hz", range: Range.width, default: 1.5, in: ["dehumNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "dehumNode",
            description: "Mains hum removal: an adaptive canceller (two LMS weights on internal cosine and sine references) at each of harmonics harmonics of the mains, each a notch width Hz wide; the mains (auto: 50 or 60 Hz, whichever holds more hum after 1 s) followed within ±1.5 Hz as it drifts; while speech stands over the residual floor the weights hold, so a voice on the harmonics is subtracted from, not notched. Harmonics above 0.45 of the rate are left out. No latency.",
            otherKeys: [("mains", .object(["enum": .array(HumRemover.Mains.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> DehumSettings {
        var s = DehumSettings()
        if let f = try o.optional("mains") { s.mains = try f.oneOf(HumRemover.Mains.self) }
        if let f = try o.optional("harmonics") {
            let n = try f.number(in: Range.harmonics, unit: "")
            guard n == n.rounded() else { throw PresetError(path: f.path, "\(JSONValue.number(n).brief) is not a whole number of harmonics") }
            s.harmonics = Int(n)
        }
        if let f = try o.optional("width") { s.widthHz = try f.number(in: Range.width, unit: "Hz") }
        return s
    }

    package static func encode(_ s: DehumSettings) -> [String: JSONValue] {
        ["mains": .string(s.mains.rawValue), "harmonics": .number(Double(s.harmonics)), "width": .number(s.widthHz)]
    }

    package static func lower(_ s: DehumSettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        let settings = HumRemover.Settings(mains: s.mains, harmonics: s.harmonics, widthHz: s.widthHz)
        node.addKernel(KernelRecipe(shape: KernelShape("dehum", [channels, s.harmonics, s.mains == .automatic ? 0 : (s.mains == .fifty ? 50 : 60)], carriesState: true)) {
            DehumStep(remover: HumRemover(settings: settings, sampleRate: rate, channelCount: channels))
        })
    }

    package static func summary(of s: DehumSettings) -> String {
        "dehum " + (s.mains == .automatic ? "50/60 Hz (found)" : "\(s.mains.rawValue) Hz") + ", \(s.harmonics) harmonics, \(SummaryFormat.number(s.widthHz)) Hz notches"
    }
}

/// A `dehum` node's step.
struct DehumStep: RenderKernel, ~Copyable {
    var remover: HumRemover

    static let operations = KernelOperations(
        process: { k, b in DehumStep.at(k).pointee.remover.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in DehumStep.at(new).pointee.remover.continueState(from: DehumStep.at(old).pointee.remover) },
        reset: { k in DehumStep.at(k).pointee.remover.reset() },
        clearNonFinite: { k in DehumStep.at(k).pointee.remover.clearNonFinite() })
}
