import Foundation
import Testing
import TimbreDSP
import TimbreEngine

/// The JSON Schema (`Presets/timbre-preset.schema.json`) and the decoder hold the same
/// knowledge: ranges, defaults, allowed values and which parameters are switches. The
/// decoder takes it from ``ParameterRanges``; this test reads the schema file and compares.
@Suite struct SchemaAgreementTests {
    nonisolated(unsafe) static let schema: [String: Any] = {
        let url = ShippedPresetTests.presetsDir.appendingPathComponent("timbre-preset.schema.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }()
    static var defs: [String: Any] { schema["$defs"] as? [String: Any] ?? [:] }

    static func object(_ path: String...) -> [String: Any] {
        var o: Any? = defs
        for key in path { o = (o as? [String: Any])?[key] }
        return o as? [String: Any] ?? [:]
    }

    static func range(_ o: [String: Any]) -> ClosedRange<Double>? {
        guard let lo = o["minimum"] as? Double, let hi = o["maximum"] as? Double else { return nil }
        return lo...hi
    }

    @Test func rangesAgree() {
        #expect(!Self.defs.isEmpty, "schema read")
        #expect(Self.range(Self.object("frequency")) == ParameterRanges.frequencyHz)
        #expect(Self.range(Self.object("gain")) == ParameterRanges.gainDB)
        #expect(Self.range(Self.object("q")) == ParameterRanges.q)
        #expect(Self.range(Self.object("gainNode", "properties", "gain")) == ParameterRanges.gainNodeDB)
        #expect(Self.range(Self.object("gainNode", "properties", "volume")) == ParameterRanges.volume)
        #expect(Self.range(Self.object("panNode", "properties", "pan")) == ParameterRanges.pan)
        #expect(Self.range(Self.object("pitchNode", "properties", "semitones")) == ParameterRanges.pitchSemitones)
        #expect(Self.range(Self.object("pitchNode", "properties", "cents")) == ParameterRanges.pitchCents)
        let player = Self.object("graph", "properties", "channels", "items", "properties", "player", "properties")
        #expect(Self.range(player["rate"] as? [String: Any] ?? [:]) == ParameterRanges.playerRate)
        #expect(Self.range(player["loops"] as? [String: Any] ?? [:]) == ParameterRanges.playerLoops)
        #expect((Self.object("passNode", "properties", "slope")["enum"] as? [Int]) == ParameterRanges.slopes)
        #expect(Self.object("eqNode", "properties", "bands")["maxItems"] as? Int == ParameterRanges.maxEQBands)
    }

    /// The schema's node types are the catalog's, in the same order.
    @Test func nodeTypesAreTheCatalogs() {
        #expect(Self.object("node", "properties", "type")["enum"] as? [String] == NodeCatalog.typeNames)
    }

    /// The dynamics nodes' ranges and defaults: schema, decoder ranges and settings defaults.
    @Test func dynamicsAgree() throws {
        let c = Self.object("compressorNode", "properties"), l = Self.object("limiterNode", "properties")
        func r(_ o: [String: Any], _ key: String) -> ClosedRange<Double>? {
            let p = o[key] as? [String: Any] ?? [:]
            return Self.range(p) ?? ((p["oneOf"] as? [[String: Any]])?.first).flatMap(Self.range)
        }
        #expect(r(c, "threshold") == CompressorNode.Range.threshold && r(c, "ratio") == CompressorNode.Range.ratio)
        #expect(r(c, "knee") == CompressorNode.Range.knee && r(c, "attack") == CompressorNode.Range.attack && r(c, "release") == CompressorNode.Range.release)
        #expect(r(c, "makeup") == CompressorNode.Range.makeup && r(c, "window") == CompressorNode.Range.window)
        #expect(r(c, "link") == CompressorNode.Range.link && r(c, "lookahead") == CompressorNode.Range.lookahead)
        #expect(r(l, "ceiling") == LimiterNode.Range.ceiling && r(l, "release") == LimiterNode.Range.release)
        #expect(r(l, "lookahead") == LimiterNode.Range.lookahead && r(l, "link") == LimiterNode.Range.link)
        let p = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "compressor"}, {"type": "limiter"}]}"#.utf8))
        guard let comp = p.allNodes[0].kind.settings(as: CompressorSettings.self), let lim = p.allNodes[1].kind.settings(as: LimiterSettings.self) else {
            Issue.record("kinds"); return
        }
        func d(_ o: [String: Any], _ key: String) -> Double? {
            let p = o[key] as? [String: Any] ?? [:]
            return p["default"] as? Double ?? ((p["oneOf"] as? [[String: Any]])?.first?["default"] as? Double)
        }
        #expect(d(c, "threshold") == comp.thresholdDB && d(c, "ratio") == comp.ratio && d(c, "knee") == comp.kneeDB)
        #expect(d(c, "attack") == comp.attackMs && d(c, "release") == comp.releaseMs && d(c, "makeup") == comp.makeupDB)
        #expect(d(c, "link") == comp.linkPercent && d(c, "lookahead") == comp.lookaheadMs)
        #expect(d(l, "ceiling") == lim.ceilingDB && d(l, "release") == lim.releaseMs && d(l, "lookahead") == lim.lookaheadMs && d(l, "link") == lim.linkPercent)
        // The limiter's detector: the schema's choices are the decoder's, the default true peak.
        #expect((l["detector"] as? [String: Any])?["enum"] as? [String] == ["true-peak", "sample-peak"] && !lim.samplePeak)
        for (word, sample) in [("true-peak", false), ("sample-peak", true)] {
            let q = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "limiter", "detector": "\#(word)"}]}"#.utf8))
            #expect(q.allNodes[0].kind.settings(as: LimiterSettings.self)?.samplePeak == sample)
        }
        #expect(throws: PresetError.self) {
            try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "limiter", "detector": "rms"}]}"#.utf8))
        }
    }

    /// The gate's ranges and defaults: schema, decoder ranges and settings defaults.
    @Test func gateAgrees() throws {
        let g = Self.object("gateNode", "properties")
        func r(_ key: String) -> ClosedRange<Double>? {
            let p = g[key] as? [String: Any] ?? [:]
            return Self.range(p) ?? ((p["oneOf"] as? [[String: Any]])?.first).flatMap(Self.range)
        }
        func d(_ key: String) -> Double? { (g[key] as? [String: Any])?["default"] as? Double }
        #expect(r("threshold") == GateNode.Range.threshold && r("ratio") == GateNode.Range.ratio && r("range") == GateNode.Range.range)
        #expect(r("attack") == GateNode.Range.attack && r("hold") == GateNode.Range.hold && r("release") == GateNode.Range.release)
        #expect(r("hysteresis") == GateNode.Range.hysteresis && r("link") == GateNode.Range.link)
        let p = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "gate"}]}"#.utf8))
        let gate = try #require(p.allNodes[0].kind.settings(as: GateSettings.self))
        #expect(d("threshold") == gate.thresholdDB && d("range") == gate.rangeDB && d("attack") == gate.attackMs && d("hold") == gate.holdMs)
        #expect(d("release") == gate.releaseMs && d("hysteresis") == gate.hysteresisDB && d("link") == gate.linkPercent && gate.ratio.isInfinite)
    }

    @Test func defaultsAgree() throws {
        #expect(Self.object("passNode", "properties", "slope")["default"] as? Int == ParameterRanges.defaultSlope)
        #expect(Self.object("bellNode", "properties", "frequency")["default"] as? Double == ParameterRanges.defaultCenterHz)
        #expect(abs((Self.object("bellNode", "properties", "q")["default"] as? Double ?? 0) - ParameterRanges.defaultQ) < 1e-4)
        #expect(Self.object("eqNode", "properties", "bands", "items", "properties", "q")["default"] as? Double == ParameterRanges.defaultEQQ)
        // And the decoder applies those defaults.
        let p = try PresetDecoder.decode(Data(#"{"version": 1, "name": "d", "chain": [{"type": "peak"}, {"type": "highpass"}, {"type": "eq", "bands": [{}]}]}"#.utf8))
        guard let bell = p.allNodes[0].kind.settings(as: FilterSettings.self)?.design, let hp = p.allNodes[1].kind.settings(as: FilterSettings.self)?.design, let bands = p.allNodes[2].kind.settings(as: EQSettings.self)?.bands else {
            Issue.record("kinds"); return
        }
        #expect(bell.frequencyHz == ParameterRanges.defaultCenterHz && bell.q == ParameterRanges.defaultQ && bell.gainDB == 0)
        #expect(hp.slopeDBPerOctave == ParameterRanges.defaultSlope && hp.frequencyHz == ParameterRanges.defaultHighPassHz)
        #expect(bands[0].q == ParameterRanges.defaultEQQ && bands[0].frequencyHz == EQBand.defaultCentersHz[0])
    }

    /// Every property the schema types as boolean is a switch, and every switch is a boolean.
    @Test func switchesAgree() {
        var booleans = Set<String>(), switchTypes: [String: String] = [:]
        func walk(_ any: Any) {
            if let o = any as? [String: Any] {
                if let props = o["properties"] as? [String: Any] {
                    for (name, v) in props {
                        if let t = (v as? [String: Any])?["type"] as? String {
                            if t == "boolean" { booleans.insert(name) }
                            if ParameterRanges.switchParameters.contains(name) { switchTypes[name] = t }
                        }
                    }
                }
                o.values.forEach(walk)
            } else if let a = any as? [Any] { a.forEach(walk) }
        }
        walk(Self.schema)
        #expect(booleans == ParameterRanges.switchParameters, "schema booleans \(booleans)")
        #expect(switchTypes.values.allSatisfy { $0 == "boolean" } && Set(switchTypes.keys) == ParameterRanges.switchParameters)
    }
}
