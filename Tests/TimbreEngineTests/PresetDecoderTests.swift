import Foundation
import Testing
import TimbreDSP
import TimbreEngine

/// Strict decoding: every kind of bad preset is an error naming the JSON path, the value and
/// what is allowed.
@Suite struct PresetDecoderTests {
    static func decode(_ json: String) throws(PresetError) -> Preset {
        try PresetDecoder.decode(Data(json.utf8))
    }

    static func chain(_ nodes: String) -> String {
        #"{"version": 1, "name": "t", "chain": [\#(nodes)]}"#
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var json: String
        var path: String
        var fragments: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "invalid JSON", json: #"{"version": 1, "name": "t", "chain": [}"#, path: "", fragments: ["invalid JSON"]),
        Case(name: "not an object", json: "[1, 2]", path: "", fragments: ["expected an object", "an array"]),
        Case(name: "wrong version", json: #"{"version": 2, "name": "t", "chain": []}"#, path: "version", fragments: ["unsupported version 2", "version 1"]),
        Case(name: "missing version", json: #"{"name": "t", "chain": []}"#, path: "version", fragments: ["missing required field"]),
        Case(name: "missing chain", json: #"{"version": 1, "name": "t"}"#, path: "chain", fragments: ["missing required field"]),
        Case(name: "unknown top-level key", json: #"{"version": 1, "name": "t", "chain": [], "colour": "red"}"#, path: "colour", fragments: ["unknown key \"colour\""]),
        Case(name: "name of wrong type", json: #"{"version": 1, "name": 5, "chain": []}"#, path: "name", fragments: ["expected a string", "a number 5"]),
        Case(name: "unknown node type", json: chain(#"{"type": "kazoo"}"#), path: "chain[0].type", fragments: ["unknown node type \"kazoo\"", "allowed: highpass"]),
        Case(name: "node missing type", json: chain(#"{"frequency": 100}"#), path: "chain[0].type", fragments: ["missing required field"]),
        Case(name: "unknown node key", json: chain(#"{"type": "peak", "frequncy": 100}"#), path: "chain[0].frequncy", fragments: ["unknown key"]),
        Case(name: "EQ gain 25 dB", json: chain(#"{"type": "gain"}, {"type": "eq", "bands": [{}, {}, {}, {"gain": 25}]}"#),
             path: "chain[1].bands[3].gain", fragments: ["25 is out of range", "-20…20 dB"]),
        Case(name: "frequency too high", json: chain(#"{"type": "peak", "frequency": 25000}"#), path: "chain[0].frequency", fragments: ["25000", "20…20000 Hz"]),
        Case(name: "frequency as string", json: chain(#"{"type": "lowpass", "frequency": "1k"}"#), path: "chain[0].frequency", fragments: ["expected a number", "\"1k\""]),
        Case(name: "q out of range", json: chain(#"{"type": "notch", "q": 0}"#), path: "chain[0].q", fragments: ["0.1…20"]),
        Case(name: "bad slope", json: chain(#"{"type": "highpass", "slope": 18}"#), path: "chain[0].slope", fragments: ["18", "12, 24, 36, 48"]),
        Case(name: "slope and q", json: chain(#"{"type": "highpass", "slope": 24, "q": 1}"#), path: "chain[0]", fragments: ["not both"]),
        Case(name: "bad design", json: chain(#"{"type": "peak", "design": "fancy"}"#), path: "chain[0].design", fragments: ["\"matched\", \"bilinear\""]),
        Case(name: "gain on a notch", json: chain(#"{"type": "notch", "gain": 3}"#), path: "chain[0].gain", fragments: ["unknown key"]),
        Case(name: "too many bands", json: chain(#"{"type": "eq", "bands": [{},{},{},{},{},{},{},{},{},{},{}]}"#), path: "chain[0].bands", fragments: ["11 bands", "at most 10"]),
        Case(name: "bad band shape", json: chain(#"{"type": "eq", "bands": [{"shape": "notch"}]}"#), path: "chain[0].bands[0].shape", fragments: ["\"peak\", \"lowshelf\", \"highshelf\""]),
        Case(name: "volume above 1", json: chain(#"{"type": "gain", "volume": 1.5}"#), path: "chain[0].volume", fragments: ["1.5", "0…1"]),
        Case(name: "gain and volume", json: chain(#"{"type": "gain", "gain": -3, "volume": 0.5}"#), path: "chain[0]", fragments: ["not both"]),
        Case(name: "pan out of range", json: chain(#"{"type": "pan", "pan": -2}"#), path: "chain[0].pan", fragments: ["-2", "-1…1"]),
        Case(name: "bypass not boolean", json: chain(#"{"type": "pan", "bypass": "yes"}"#), path: "chain[0].bypass", fragments: ["expected true or false"]),
        Case(name: "chain not an array", json: #"{"version": 1, "name": "t", "chain": {}}"#, path: "chain", fragments: ["expected an array"]),
    ]

    @Test(arguments: cases)
    func rejects(_ c: Case) {
        do {
            _ = try Self.decode(c.json)
            Issue.record("\(c.name): accepted")
        } catch {
            #expect(error.path == c.path, "\(c.name): \(error)")
            for f in c.fragments { #expect(error.description.contains(f), "\(c.name): \"\(error)\" lacks \"\(f)\"") }
            if !c.path.isEmpty { #expect(error.description.hasPrefix(c.path + ": ")) }
        }
    }

    @Test func defaults() throws {
        let p = try Self.decode(Self.chain(#"{"type": "highpass"}, {"type": "eq"}, {"type": "peak"}, {"type": "gain", "volume": 0.5}, {"type": "pan"}"#))
        guard let hp = p.allNodes[0].kind.settings(as: FilterSettings.self)?.design, let bands = p.allNodes[1].kind.settings(as: EQSettings.self)?.bands,
              let pk = p.allNodes[2].kind.settings(as: FilterSettings.self)?.design, let g = p.allNodes[3].kind.settings(as: GainSettings.self)?.linear, let pan = p.allNodes[4].kind.settings(as: PanSettings.self)?.pan else {
            Issue.record("wrong kinds"); return
        }
        #expect(hp.type == .highPass && hp.frequencyHz == 80 && hp.slopeDBPerOctave == 12 && hp.method == .matched)
        #expect(bands.map(\.frequencyHz) == [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000])
        #expect(bands.allSatisfy { $0.gainDB == 0 && $0.q == 1 && $0.shape == .peak })
        #expect(pk.frequencyHz == 1000 && pk.gainDB == 0 && abs(pk.q - 0.7071) < 1e-4)
        #expect(g == 0.5 && pan == 0)
        #expect(p.allNodes[1].path == "chain[1]")
    }

    @Test func singleSectionQ() throws {
        let p = try Self.decode(Self.chain(#"{"type": "highpass", "frequency": 120, "q": 2}"#))
        guard let d = p.allNodes[0].kind.settings(as: FilterSettings.self)?.design else { Issue.record("kind"); return }
        #expect(d.slopeDBPerOctave == nil && d.q == 2)
    }
}
