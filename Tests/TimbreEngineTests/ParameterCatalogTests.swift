import Foundation
import Testing
import TimbreControl
import TimbreEngine

/// The catalog's parameters as data (``ParameterSpec``) and what follows from them: the JSON
/// Schema's numbers (`make schema` writes them; this fails while the file differs), MIDI
/// `learn` ranges, and the live path each parameter takes.
@Suite struct ParameterCatalogTests {
    static let schemaURL = ShippedPresetTests.presetsDir.appendingPathComponent("timbre-preset.schema.json")

    /// Presets/timbre-preset.schema.json holds exactly the catalog's ranges and defaults.
    @Test func schemaFileIsTheCatalogs() throws {
        let data = try Data(contentsOf: Self.schemaURL)
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let refreshed = try PresetSchemaNumbers.refresh(file)
        // Compared as text (keys sorted, the same writer for both).
        #expect(try PresetSchemaNumbers.text(refreshed) == PresetSchemaNumbers.text(file), "Presets/timbre-preset.schema.json is stale: run `make schema`")
        // It can fail: a changed range in a copy is found.
        var defs = file["$defs"] as! [String: Any], gain = defs["gainNode"] as! [String: Any], props = gain["properties"] as! [String: Any]
        var g = props["gain"] as! [String: Any]
        g["maximum"] = 30; props["gain"] = g; gain["properties"] = props; defs["gainNode"] = gain
        var stale = file; stale["$defs"] = defs
        #expect(try PresetSchemaNumbers.text(try PresetSchemaNumbers.refresh(stale)) != PresetSchemaNumbers.text(stale))
    }

    /// A kind that declares its whole schema entry (as kinds added from now on do) needs no
    /// hand-written schema: `make schema` writes its `$defs` entry with its numbers and lists
    /// it among the nodes; an independent validator (Python `jsonschema`) then accepts a node
    /// of the kind and refuses one out of range or with an unknown key.
    @Test func aNewKindsSchemaEntryIsWrittenFromItsDefinition() throws {
        let data = try Data(contentsOf: Self.schemaURL)
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((file["$defs"] as? [String: Any])?["wobbleTestNode"] == nil)
        let refreshed = try PresetSchemaNumbers.refresh(file, definitions: NodeCatalog.definitions + [WobbleTestNode.self])
        let defs = try #require(refreshed["$defs"] as? [String: Any])
        let entry = try #require(defs["wobbleTestNode"] as? [String: Any])
        let rate = try #require((entry["properties"] as? [String: Any])?["rate"] as? [String: Any])
        let numbers = ["minimum", "maximum", "default"].map { (rate[$0] as? NSNumber)?.doubleValue }
        #expect(numbers == [0.1, 20, 5] && rate["description"] as? String == "Hz")
        let node = try #require(defs["node"] as? [String: Any])
        #expect(((node["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String] == NodeCatalog.typeNames + ["wobble-test"])
        #expect((node["oneOf"] as? [[String: Any]])?.contains { $0["$ref"] as? String == "#/$defs/wobbleTestNode" } == true)
        // Refreshing again changes nothing (the entry is the generator's own).
        #expect(try PresetSchemaNumbers.text(PresetSchemaNumbers.refresh(refreshed, definitions: NodeCatalog.definitions + [WobbleTestNode.self]))
                == PresetSchemaNumbers.text(refreshed))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wobble-schema-\(getpid()).json")
        try Data(PresetSchemaNumbers.text(refreshed).utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let verdicts = try ShippedPresetTests.runValidator([
            #"{"version": 1, "name": "w", "chain": [{"type": "wobble-test", "rate": 5, "shape": "square"}]}"#,
            #"{"version": 1, "name": "w", "chain": [{"type": "wobble-test", "rate": 50}]}"#,
            #"{"version": 1, "name": "w", "chain": [{"type": "wobble-test", "rate": 5, "shape": "saw"}]}"#,
            #"{"version": 1, "name": "w", "chain": [{"type": "wobble-test", "rate": 5, "depth": 1}]}"#,
            #"{"version": 1, "name": "w", "chain": [{"type": "wobble-test"}]}"#,
        ], schema: url)
        #expect(verdicts == [true, false, false, false, false])
    }

    /// Every numeric property of a node definition in the schema is some kind's spec (a key
    /// added to the schema by hand, or to a decoder without a spec, fails here), and every kind
    /// but `plugin` has specs.
    @Test func everyNumericNodeKeyHasASpec() throws {
        let data = try Data(contentsOf: Self.schemaURL)
        let defs = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["$defs"] as? [String: Any])
        var specified = Set<String>()
        for (_, specs) in NodeCatalog.parameterSpecs { for s in specs { for d in s.schemaDefinitions { specified.insert(d + "." + s.key) } } }
        func isNumeric(_ p: [String: Any]) -> Bool {
            if ["number", "integer"].contains(p["type"] as? String ?? "") { return true }
            if let ref = p["$ref"] as? String { return isNumeric(defs[String(ref.split(separator: "/").last!)] as? [String: Any] ?? [:]) }
            return (p["oneOf"] as? [[String: Any]] ?? []).contains { ["number", "integer"].contains($0["type"] as? String ?? "") }
        }
        var found: [String] = []
        for (name, def) in defs where name.hasSuffix("Node") {
            let props = (def as? [String: Any])?["properties"] as? [String: Any] ?? [:]
            for (key, p) in props {
                guard let p = p as? [String: Any] else { continue }
                if isNumeric(p) { found.append(name + "." + key) }
                let items = (p["items"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
                for (inner, q) in items { if let q = q as? [String: Any], isNumeric(q) { found.append(name + "." + key + "[]." + inner) } }
            }
        }
        let missing = found.filter { !specified.contains($0) }.sorted()
        #expect(missing.isEmpty && found.count >= 30, "numeric schema keys without a ParameterSpec: \(missing) (of \(found.count))")
        for definition in NodeCatalog.definitions where definition.typeNames != ["plugin"] {
            #expect(!definition.parameterSpecs.isEmpty, "\(definition.typeNames) declares no parameters")
        }
    }

    /// The graph's numbers (sources and buses) are catalog entries too: every numeric key under
    /// the schema's `graph` definition is a ``GraphSources`` spec, and the bus values the live
    /// engine moves are the ones marked `movesLive`.
    @Test func everyNumericGraphKeyHasASpec() throws {
        let data = try Data(contentsOf: Self.schemaURL)
        let defs = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["$defs"] as? [String: Any])
        var found: [String] = []
        func walk(_ o: [String: Any], _ key: String) {
            if ["number", "integer"].contains(o["type"] as? String ?? "") || (o["$ref"] as? String)?.hasSuffix("/frequency") == true { found.append(key) }
            for (name, p) in o["properties"] as? [String: Any] ?? [:] { if let p = p as? [String: Any] { walk(p, key.isEmpty ? name : key + "." + name) } }
            if let items = o["items"] as? [String: Any] { walk(items, key + "[]") }
        }
        walk(defs["graph"] as? [String: Any] ?? [:], "")
        let keys = Set(GraphSources.parameterSpecs.map(\.key))
        #expect(found.count >= 15 && Set(found) == keys, "schema's graph numbers \(found.sorted()) vs the catalog's \(keys.sorted())")
        #expect(GraphSources.parameterSpecs.filter(\.movesLive).map(\.key) == ["channels[].volume", "channels[].pan", "groups[].volume", "master.volume", "master.pan",
                                                                                  "channels[].sends[].level", "groups[].sends[].level", "auxes[].volume"])
    }

    /// `learn` without a range takes the spec's: a gain node's knob range, an EQ band's
    /// frequency on a log curve, a gate's threshold over its whole range; graph paths keep
    /// theirs.
    @Test func midiLearnRangesComeFromTheCatalog() throws {
        let preset = try PresetDecoder.decode(Data(#"""
        {"version": 1, "name": "t", "chain": [{"type": "gain", "id": "trim"}, {"type": "eq", "id": "eq"}, {"type": "gate", "id": "gate"},
          {"type": "compressor", "id": "comp"}, {"type": "peak", "id": "bell"}]}
        """#.utf8))
        func r(_ path: String) -> String { MIDIMapper.defaultRange(path, in: preset).map { "\($0.0) \($0.1)" } ?? "none" }
        #expect(r("trim.gain") == "-60.0...12.0 linear")
        #expect(r("eq.bands[3].frequency") == "20.0...20000.0 log" && r("eq.bands[0].q") == "0.1...20.0 log")
        #expect(r("gate.threshold") == "-100.0...0.0 linear" && r("comp.ratio") == "1.0...20.0 log")
        #expect(r("bell.gain") == "-20.0...20.0 linear" && r("trim.bypass") == "0.0...1.0 linear")
        #expect(r("trim.nonsense") == "none")
    }

    /// Each spec's `movesLive` is what a live engine does: a `set` of it is an in-kernel edit
    /// when true, a new plan when false (every spec of every kind with a live path here).
    @Test func movesLiveIsWhatTheLiveEngineDoes() throws {
        let nodes: [(String, String)] = [("gain", #"{"type": "gain", "id": "n"}"#), ("pan", #"{"type": "pan", "id": "n"}"#),
                                         ("pitch", #"{"type": "pitch", "id": "n"}"#), ("compressor", #"{"type": "compressor", "id": "n", "detector": "rms"}"#),
                                         ("limiter", #"{"type": "limiter", "id": "n"}"#), ("gate", #"{"type": "gate", "id": "n"}"#),
                                         ("peak", #"{"type": "peak", "id": "n"}"#), ("highpass", #"{"type": "highpass", "id": "n"}"#),
                                         ("eq", #"{"type": "eq", "id": "n"}"#),
                                         ("delay", #"{"type": "delay", "id": "n", "lowCut": 100, "highCut": 8000}"#)]
        var checked = 0
        for (type, json) in nodes {
            let definition = try #require(NodeCatalog.definition(forType: type))
            // A filter's specs by its schema definition: a high-pass has no gain.
            let schemaDefinition = ["highpass": "passNode", "peak": "bellNode"][type]
            for spec in definition.parameterSpecs where schemaDefinition.map(spec.schemaDefinitions.contains) ?? true {
                if type == "gain" && spec.key == "volume" { continue }  // gain and volume are one value
                if type == "highpass" && spec.key == "q" { continue }    // a q changes a slope into one section: structure
                if spec.key == "taps" { continue }  // a FIR eq's or filter's length (whole taps, with a phase): structure
                if type == "delay" && ["samples", "metres", "tempo"].contains(spec.key) { continue }  // the time's other forms: DelayNodeTests
                let engine = try LiveEngine(document: LiveEngineTests.document(json), sampleRate: 48_000, inputChannelCount: 1, outputChannelCount: 1)
                let key = spec.key.replacingOccurrences(of: "[]", with: "[2]")
                let value = spec.name == "fftSize" ? 8192 : spec.range.lowerBound + (spec.range.upperBound - spec.range.lowerBound) * 0.37
                let edited = try PresetDocumentEditor(document: engine.document, preset: engine.preset).setting("n." + key, to: value)
                let path = try engine.apply(document: edited)
                let inKernel: Bool
                if case .inKernel = path { inKernel = true } else { inKernel = false }
                #expect(inKernel == spec.movesLive, "\(type).\(spec.key): \(path), spec says movesLive \(spec.movesLive)")
                checked += 1
            }
        }
        #expect(checked >= 30)
    }
}

/// A kind that exists only in this test, declaring its whole schema entry.
enum WobbleTestNode: NodeDefinition {
    static let typeNames = ["wobble-test"]
    static func typeName(of _: GainSettings) -> String { "wobble-test" }
    static let parameterSpecs = [ParameterSpec("rate", unit: "Hz", range: 0.1...20, default: 5, scale: .logarithmic, in: ["wobbleTestNode"])]
    static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(name: "wobbleTestNode", description: "A test kind", otherKeys: [("shape", .object(["enum": .array([.string("sine"), .string("square")])]))],
                        required: ["rate"])
    }
    static func decode(type _: String, _ o: inout ObjectReader, path _: String) throws(PresetError) -> GainSettings { GainSettings(linear: 1) }
    static func encode(_ s: GainSettings) -> [String: JSONValue] { [:] }
    static func lower(_ s: GainSettings, into node: inout NodeLowering) throws(PresetError) {}
    static func summary(of s: GainSettings) -> String { "wobble" }
}

