import TimbreDSP

// `crossover`: splits each channel into 2–5 bands (`CrossoverDesign`, `CrossoverFilter`);
// the chain carries channels × bands after it, band by band.

/// The settings of a `crossover` node.
public struct CrossoverSettings: NodeParameters {
    public var design: CrossoverDesign
    public init(design: CrossoverDesign) { self.design = design }
}

extension NodeKind {
    /// A 2- to 5-way crossover.
    public static func crossover(_ settings: CrossoverSettings) -> NodeKind { NodeKind(settings) }
}

package enum CrossoverNode: NodeDefinition {
    package static let typeNames = ["crossover"]
    package static func typeName(of _: CrossoverSettings) -> String { "crossover" }

    static let frequencyRange = ParameterRanges.frequencyHz
    package static let parameterSpecs = [
        ParameterSpec("frequency", unit: "Hz", range: frequencyRange, default: 2_500, scale: .logarithmic, in: ["crossoverNode"]),
        ParameterSpec("order", range: 1...8, default: 4, wholeNumber: true, in: ["crossoverNode"]),
    ]

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "crossoverNode",
            description: "Splits every channel into bands for active speakers: frequency (one split, 2 bands) or frequencies (1–4 ascending splits, up to 5 bands). alignment linkwitz-riley (order 2, 4 or 8: 12/24/48 dB/oct; the bands sum to an allpass, flat in magnitude; LR2's odd bands are inverted by design) or butterworth (order 1–8). The chain carries channels × bands after it, band by band: a stereo 2-way gives low L, low R, high L, high R. Lower bands carry the allpass of every higher split, so all bands stay in phase. No latency.",
            otherKeys: [("frequencies", .object(["type": .string("array"), "minItems": .number(1), "maxItems": .number(4),
                                                 "items": .object(["type": .string("number"), "minimum": .number(frequencyRange.lowerBound), "maximum": .number(frequencyRange.upperBound)])])),
                        ("alignment", .object(["enum": .array(CrossoverDesign.Alignment.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> CrossoverSettings {
        var design = CrossoverDesign(frequenciesHz: [])
        let one = try o.optional("frequency"), many = try o.optional("frequencies")
        switch (one, many) {
        case (let f?, nil): design.frequenciesHz = [try f.number(in: frequencyRange, unit: "Hz")]
        case (nil, let list?):
            let values = try list.array()
            guard CrossoverDesign.splitCounts.contains(values.count) else {
                throw PresetError(path: list.path, "\(values.count) split frequencies (allowed 1…4: 2 to 5 bands)")
            }
            for (i, v) in values.enumerated() {
                let f = try Field(value: v, path: list.path + "[\(i)]").number(in: frequencyRange, unit: "Hz")
                if let last = design.frequenciesHz.last, f <= last {
                    throw PresetError(path: list.path + "[\(i)]", "\(JSONValue.number(f).brief) Hz is not above the split before it (\(JSONValue.number(last).brief) Hz): list them ascending")
                }
                design.frequenciesHz.append(f)
            }
        case (_?, _?): throw PresetError(path: path + ".frequencies", "give frequency or frequencies, not both")
        case (nil, nil): throw PresetError(path: path + ".frequency", "missing required field (or frequencies)")
        }
        if let f = try o.optional("alignment") { design.alignment = try f.oneOf(CrossoverDesign.Alignment.self) }
        if let f = try o.optional("order") {
            let order = try f.number(in: 1...8, unit: "")
            let allowed = design.alignment == .linkwitzRiley ? CrossoverDesign.linkwitzRileyOrders.map(Double.init) : CrossoverDesign.butterworthOrders.map(Double.init)
            guard allowed.contains(order) else {
                throw PresetError(path: f.path, "\(JSONValue.number(order).brief) is not an order of \(design.alignment.rawValue) (allowed \(allowed.map { JSONValue.number($0).brief }.joined(separator: ", ")))")
            }
            design.order = Int(order)
        }
        return CrossoverSettings(design: design)
    }

    package static func encode(_ s: CrossoverSettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["alignment": .string(s.design.alignment.rawValue), "order": .number(Double(s.design.order))]
        if s.design.frequenciesHz.count == 1 { o["frequency"] = .number(s.design.frequenciesHz[0]) } else {
            o["frequencies"] = .array(s.design.frequenciesHz.map { .number($0) })
        }
        return o
    }

    package static func lower(_ s: CrossoverSettings, into node: inout NodeLowering) throws(PresetError) {
        for (i, f) in s.design.frequenciesHz.enumerated() {
            try node.checkFrequency(f, at: node.path + (s.design.frequenciesHz.count == 1 ? ".frequency" : ".frequencies[\(i)]"))
        }
        let design = s.design, rate = node.sampleRate, inputs = node.channels
        let outputs = inputs * design.bandCount
        guard outputs <= NodeLowering.maximumChannels else {
            throw PresetError(path: node.path, "\(inputs) channels × \(design.bandCount) bands = \(outputs) channels (at most \(NodeLowering.maximumChannels))")
        }
        node.channelsOut = outputs
        node.outputNames = bandNames(design.bandCount).flatMap { band in
            inputNames(node.channelNames, count: inputs).map { $0.isEmpty ? band : "\(band) \($0)" }
        }
        let detail = [inputs, design.bandCount, design.order, design.alignment == .linkwitzRiley ? 0 : 1]
        node.addKernel(KernelRecipe(shape: KernelShape("crossover", detail, carriesState: true), fadesInWhenNew: false) {
            CrossoverStep(filter: CrossoverFilter(design: design, sampleRate: rate, channelCount: inputs))
        }, width: outputs)
    }

    /// Band names, low to high.
    static func bandNames(_ count: Int) -> [String] {
        switch count {
        case 2: ["low", "high"]
        case 3: ["low", "mid", "high"]
        case 4: ["low", "low-mid", "high-mid", "high"]
        default: ["low", "low-mid", "mid", "high-mid", "high"]
        }
    }

    /// The input channels' names: as named before, else "" for mono, L and R, or 1, 2, 3 ….
    static func inputNames(_ names: [String]?, count: Int) -> [String] {
        if let names, names.count == count { return names }
        return count == 1 ? [""] : count == 2 ? ["L", "R"] : (1...count).map(String.init)
    }

    package static func response(of s: CrossoverSettings, sampleRate: Double) -> NodeResponse { .unknown }

    package static func summary(of s: CrossoverSettings) -> String {
        let name = s.design.alignment == .linkwitzRiley ? "LR\(s.design.order)" : "Butterworth \(s.design.order)"
        return "crossover \(name) at \(s.design.frequenciesHz.map { SummaryFormat.number($0) }.joined(separator: ", ")) Hz (\(s.design.bandCount) bands)"
    }
}

/// A `crossover` node's step.
struct CrossoverStep: RenderKernel, ~Copyable {
    let filter: CrossoverFilter

    static let operations = KernelOperations(
        process: { k, b in CrossoverStep.at(k).pointee.filter.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount) },
        continueState: { new, old, _ in CrossoverStep.at(new).pointee.filter.continueState(from: CrossoverStep.at(old).pointee.filter) },
        reset: { k in CrossoverStep.at(k).pointee.filter.reset() },
        clearNonFinite: { k in CrossoverStep.at(k).pointee.filter.clearNonFinite() })
}
