import Foundation
import Testing
import TimbreDSP
import TimbreEngine
import TimbreTestSupport

/// The node catalog is the one place that knows each kind: every `type` it lists decodes,
/// encodes and decodes back to the same node; presets built in code go to JSON and back
/// unchanged; the plan's compile stages work as plain values.
@Suite struct NodeCatalogTests {
    /// One node of each type name with non-default settings where the kind has them.
    static let everyType: [String: String] = [
        "highpass": #"{"type": "highpass", "frequency": 95, "slope": 24}"#,
        "lowpass": #"{"type": "lowpass", "frequency": 9000, "q": 1.2, "design": "bilinear"}"#,
        "peak": #"{"type": "peak", "frequency": 3100, "gain": -4.5, "q": 2.5}"#,
        "lowshelf": #"{"type": "lowshelf", "frequency": 120, "gain": 3}"#,
        "highshelf": #"{"type": "highshelf", "frequency": 9000, "gain": -2, "q": 0.8}"#,
        "notch": #"{"type": "notch", "frequency": 60, "q": 10}"#,
        "bandpass": #"{"type": "bandpass", "frequency": 800}"#,
        "allpass": #"{"type": "allpass", "frequency": 1500, "q": 0.5}"#,
        "eq": #"{"type": "eq", "bands": [{"frequency": 100, "gain": 2}, {"frequency": 5000, "gain": -3, "q": 3, "shape": "highshelf"}]}"#,
        "gain": #"{"type": "gain", "gain": -7.5}"#,
        "pan": #"{"type": "pan", "pan": -0.4}"#,
        "pitch": #"{"type": "pitch", "semitones": 3, "cents": 25}"#,
        "meter": #"{"type": "meter"}"#,
        "loudness": #"{"type": "loudness"}"#,
        "spectrum": #"{"type": "spectrum", "fftSize": 2048, "window": "flattop", "averaging": 1}"#,
        "plugin": #"{"type": "plugin", "uri": "http://lv2plug.in/plugins/eg-amp", "controls": {"gain": -6}, "preset": "x"}"#,
        "compressor": #"{"type": "compressor", "threshold": -18, "ratio": "inf", "knee": 4, "attack": 5, "release": 80, "makeup": "auto", "detector": "rms", "window": 20, "link": 60, "lookahead": 3, "sidechain": {"highpass": 150}}"#,
        "deesser": #"{"type": "deesser", "threshold": -35, "sidechain": {"band": [5000, 9000]}}"#,
        "limiter": #"{"type": "limiter", "ceiling": -1.5, "release": 50, "lookahead": 5, "link": 80}"#,
        "gate": #"{"type": "gate", "threshold": -45, "range": 40, "attack": 2, "hold": 30, "release": 80, "hysteresis": 4, "link": 50}"#,
        "expander": #"{"type": "expander", "threshold": -35, "ratio": 3, "range": 25}"#,
        "fir": #"{"type": "fir", "coefficients": [[0.5, 0.25, -0.125], [1]], "gain": -3}"#,
        "convolver": #"{"type": "convolver", "file": "hall.wav", "normalize": "energy", "gain": -2, "predelay": 12, "mix": 35, "width": 130, "trim": -80}"#,
        "delay": #"{"type": "delay", "note": "1/8d", "tempo": 96, "feedback": 45, "mix": 30, "lowCut": 120, "highCut": 5000, "pingPong": true, "change": "glide"}"#,
        "tremolo": #"{"type": "tremolo", "rate": 4.5, "depth": 60, "shape": "triangle", "phase": 90}"#,
        "autopan": #"{"type": "autopan", "note": "1/4d", "tempo": 90, "depth": 80, "shape": "saw-up"}"#,
        "chorus": #"{"type": "chorus", "voices": 4, "rate": 1.1, "depth": 4, "centre": 18, "feedback": 10, "mix": 40, "shape": "triangle", "phase": 120}"#,
        "flanger": #"{"type": "flanger", "note": "1/1", "tempo": 80, "depth": 1.5, "centre": 2, "feedback": -60}"#,
        "phaser": #"{"type": "phaser", "stages": 8, "note": "1/2", "tempo": 100, "depth": 70, "centre": 1200, "feedback": -40, "mix": 45, "shape": "triangle", "phase": 45}"#,
        "distortion": #"{"type": "distortion", "drive": 24, "curve": "foldback", "oversampling": 4, "tone": 5000, "output": -6, "mix": 70}"#,
        "bitcrush": #"{"type": "bitcrush", "bits": 6.5, "rate": 8000, "dither": true, "mix": 90}"#,
        "ladder": #"{"type": "ladder", "mode": "bandpass", "slope": 12, "cutoff": 700, "resonance": 0.9, "drive": 3}"#,
        "reverb": #"{"type": "reverb", "room": "plate", "decay": 2.5, "lowMultiplier": 1.4, "highMultiplier": 0.4, "lowCrossover": 300, "highCrossover": 5000, "predelay": 20, "size": 0.8, "diffusion": 90, "early": -12, "width": 150, "modulation": 30, "freeze": true, "mix": 35}"#,
        "ringmod": #"{"type": "ringmod", "frequency": 300, "shape": "triangle", "mix": 80}"#,
        "dehum": #"{"type": "dehum", "mains": "60", "harmonics": 12, "width": 2}"#,
        "deplosive": #"{"type": "deplosive", "frequency": 250, "rise": 9, "release": 80}"#,
        "crossfeed": #"{"type": "crossfeed", "frequency": 650, "feed": 9.5}"#,
        "loudnessCompensation": #"{"type": "loudnessCompensation", "reference": 75, "volume": -12.5}"#,
        "crossover": #"{"type": "crossover", "frequencies": [200, 2500], "alignment": "butterworth", "order": 3}"#,
        "matrix": #"{"type": "matrix", "outputs": 3, "labels": ["L", "R", "C"], "routes": [{"from": 0, "to": 0}, {"from": 1, "to": 1, "invert": true}, {"from": 0, "to": 2, "gain": -3, "mute": true}]}"#,
        "drivers": #"{"type": "drivers", "outputs": [{"label": "woofer", "limit": -3}, {"label": "tweeter", "delayMm": 25.4, "gain": -4.5, "invert": true}], "speedOfSound": 345}"#,
        "denoise": #"{"type": "denoise", "reduction": 24, "sensitivity": -2, "lowCut": 40, "adaptive": false, "profile": {"frequencies": [0, 1000, 24000], "levels": [-60, -70, -90], "thresholds": [5.85, 7.5, 6]}}"#,
        "stereo": #"{"type": "stereo", "width": 150, "midGain": -2, "sideGain": 1.5, "balance": -0.25, "swap": true, "invertLeft": true, "invertRight": false, "mono": true}"#,
    ]

    static func decode(_ node: String, id: String = "n") throws -> Preset {
        let node = node.replacingOccurrences(of: "{\"type\"", with: "{\"id\": \"\(id)\", \"bypass\": true, \"type\"")
        return try PresetDecoder.decode(Data(#"{"version": 1, "name": "t", "chain": [\#(node)]}"#.utf8))
    }

    @Test func everyTypeNameHasAnExample() {
        #expect(Set(NodeCatalog.typeNames) == Set(Self.everyType.keys))
        #expect(NodeCatalog.typeNames.count == Set(NodeCatalog.typeNames).count, "no type name claimed by two kinds")
    }

    /// The real-time proofs (RealtimeSanitizer, allocation counts, ThreadSanitizer) render
    /// `EveryNodePresets`: a kind missing there would skip them, so every catalog type must appear.
    @Test func everyTypeIsInTheRealtimeProofsPresets() throws {
        func types(_ value: JSONValue) -> Set<String> {
            switch value {
            case .object(let o):
                var found: Set<String> = []
                if case .string(let t)? = o["type"], o["generator"] == nil { found.insert(t) }
                for v in o.values { found.formUnion(types(v)) }
                return found
            case .array(let a): return a.reduce(into: []) { $0.formUnion(types($1)) }
            default: return []
            }
        }
        var seen: Set<String> = []
        for text in [EveryNodePresets.chain, EveryNodePresets.graph, EveryNodePresets.plugins, try ResponseFileFixture(seconds: 0.01).preset] {
            seen.formUnion(types(try PresetDecoder.parse(Data(text.utf8))))
        }
        let missing = Set(NodeCatalog.typeNames).subtracting(seen)
        #expect(missing.isEmpty, "node types the real-time proofs never render: \(missing.sorted())")
    }

    @Test(arguments: NodeCatalog.typeNames)
    func encodesWhatItDecodes(type: String) throws {
        let preset = try Self.decode(Self.everyType[type]!)
        #expect(preset.allNodes[0].kind.typeName == type)
        let again = try PresetDecoder.decode(PresetEncoder.encode(preset))
        #expect(again == preset, "\(type): \(PresetEncoder.encode(preset).jsonText)")
        #expect(!preset.allNodes[0].summary.isEmpty && preset.allNodes[0].summary.hasSuffix("[bypassed]"))
    }

    @Test func shippedPresetsRoundTrip() throws {
        for url in ShippedPresetTests.files {
            let p = try PresetDecoder.decode(contentsOf: url)
            #expect(try PresetDecoder.decode(PresetEncoder.data(p)) == p, "\(url.lastPathComponent)")
        }
    }

    @Test func presetBuiltInCodeRoundTrips() throws {
        let p = Preset(name: "code", description: "built in code", form: .graph(GraphSpec(
            channels: [ChannelSpec(id: "voice", source: .inputs([0]), chain: [NodeSpec(id: "hp", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 90, slopeDBPerOctave: 12)))],
                                   volume: 0.8, pan: -0.2, mute: false, solo: true, group: "bus", path: ""),
                       ChannelSpec(id: "tone", source: .sine(frequencyHz: 440, levelDB: -30), chain: [], volume: 1, pan: 0, mute: true, solo: false, group: nil, path: "")],
            groups: [GroupSpec(id: "bus", chain: [NodeSpec(kind: .gain(linear: 0.5))], volume: 0.9, mute: false, path: "")],
            master: BusSpec(chain: [NodeSpec(id: "m", kind: .analysis(.meter))], volume: 1, path: ""))))
        let decoded = try PresetDecoder.decode(PresetEncoder.encode(p))
        // Paths are assigned by the decoder; everything else is what was built.
        guard case .graph(let g) = decoded.form, case .graph(let built) = p.form else { Issue.record("graph"); return }
        #expect(g.channels.map(\.id) == built.channels.map(\.id) && g.channels.map(\.source) == built.channels.map(\.source))
        #expect(g.channels.map(\.volume) == [0.8, 1] && g.channels.map(\.solo) == [true, false] && g.channels[1].mute)
        #expect(g.channels[0].chain.map(\.kind) == built.channels[0].chain.map(\.kind) && g.groups[0].chain[0].kind == .gain(linear: 0.5))
        #expect(decoded.description == "built in code" && g.master.chain[0].kind == .analysis(.meter))
    }

    /// A preset built in code goes live through the strict decoder: a value out of range is
    /// an error with its JSON path, as in a file.
    @Test func presetBuiltInCodeIsCheckedWhenItGoesLive() throws {
        let loud = Preset(name: "loud", form: .chain([NodeSpec(id: "hp", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 90))),
                                                      NodeSpec(id: "boost", kind: .gain(linear: 1000))]))  // +60 dB
        do {
            _ = try LiveEngine(preset: loud, sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 1)
            Issue.record("accepted +60 dB")
        } catch {
            #expect(error.description == "chain[1].gain: 60 is out of range (allowed -96…24 dB)")
        }
        let fine = try LiveEngine(preset: Preset(name: "ok", form: .chain([NodeSpec(id: "g", kind: .gain(linear: 0.5))])),
                                  sampleRate: 48000, inputChannelCount: 1, outputChannelCount: 1)
        #expect(fine.preset.allNodes[0].kind == .gain(linear: 0.5) && fine.preset.allNodes[0].path == "chain[0]")
    }

    @Test func unknownTypeListsTheCatalog() {
        #expect(throws: PresetError.self) { try Self.decode(#"{"type": "kazoo"}"#) }
        do { _ = try Self.decode(#"{"type": "kazoo"}"#) } catch let error as PresetError {
            #expect(error.description.contains("unknown node type \"kazoo\"") && NodeCatalog.typeNames.allSatisfy { error.description.contains($0) })
        } catch {
            Issue.record("\(error)")
        }
    }

    /// The compile stages are plain values: fusion and the state map can be checked without
    /// allocating a plan.
    @Test func stagesAreValues() throws {
        let p = try PresetDecoder.decode(Data(#"{"version": 1, "name": "s", "chain": [{"id": "a", "type": "peak", "gain": 3}, {"id": "b", "type": "lowshelf", "gain": 2}, {"id": "g", "type": "gain", "gain": -3}, {"id": "c", "type": "notch", "frequency": 50}]}"#.utf8))
        let format = RenderFormat(sampleRate: 48000, inputChannelCount: 2, maxBlockFrames: 64)
        let layout = try GraphLayout(preset: p, format: format, registry: nil)
        #expect(layout.steps.map(\.key) == ["a", "b", "g", "c"])
        let fused = CascadeFusion(layout.steps, previousMembers: nil)
        #expect(fused.steps.map(\.key) == ["a+b", "g", "c"] && !fused.hasUnfusedNewcomers)
        #expect(fused.steps[0].members.map(\.offset) == [0, 1])
        // Continuing a plan that had only `a` and `g`: `b` and `c` are new, so they stay alone and fade in.
        let previousMembers = ["a": CascadeMember(key: "a", offset: 0, sections: 1, channels: 2)]
        let live = CascadeFusion(layout.steps, previousMembers: previousMembers)
        #expect(live.steps.map(\.key) == ["a", "b", "g", "c"] && live.hasUnfusedNewcomers)
        let previous = StateTransferMap.Outline(keys: ["a", "g"], shapes: [KernelShape("biquads", [1, 2], carriesState: true), KernelShape("gain", carriesState: true)],
                                                members: [[previousMembers["a"]!], []])
        let map = StateTransferMap(live.steps, previous: previous)
        #expect(map.transfers == [StateTransfer(step: 0, source: 0, from: 0, to: 0, count: 1), StateTransfer(step: 2, source: 1, from: 0, to: 0, count: 0)])
        #expect(map.fadesIn == [false, true, false, true])
    }
}
