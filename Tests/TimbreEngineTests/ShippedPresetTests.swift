import Foundation
import Testing
import TimbreEngine

/// Every preset in `Presets/` decodes, compiles at the common rates, and validates against
/// `Presets/timbre-preset.schema.json` with an independent validator (Python `jsonschema`,
/// Draft 2020-12); the schema also rejects what the decoder rejects.
@Suite struct ShippedPresetTests {
    static let presetsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets")
    static var files: [URL] {
        (try? FileManager.default.contentsOfDirectory(at: presetsDir, includingPropertiesForKeys: nil))?
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.contains("schema") }
            .sorted { $0.path < $1.path } ?? []
    }

    @Test func atLeastSixPresetsShip() {
        let names = Set(Self.files.map { $0.deletingPathExtension().lastPathComponent })
        #expect(names.isSuperset(of: ["flat", "rumble-cut", "vocal-presence", "bass-boost", "telephone", "podcast-voice", "taae-10band"]))
    }

    @Test func everyPresetDecodesAndCompiles() throws {
        for url in Self.files {
            let p = try PresetDecoder.decode(contentsOf: url)
            for rate in [44100.0, 48000, 96000] {
                _ = try RenderPlan(preset: p, format: RenderFormat(sampleRate: rate, inputChannelCount: max(2, p.inputChannelsUsed), maxBlockFrames: 256))
            }
        }
    }

    @Test func taaeLayout() throws {
        let p = try PresetDecoder.decode(contentsOf: Self.presetsDir.appendingPathComponent("taae-10band.json"))
        guard let bands = p.allNodes[0].kind.settings(as: EQSettings.self)?.bands else { Issue.record("not an eq"); return }
        #expect(bands.map(\.frequencyHz) == [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000])
        #expect(bands.allSatisfy { $0.q == 1 && $0.gainDB == 0 })
    }

    static func runValidator(_ documents: [String], schema: URL = presetsDir.appendingPathComponent("timbre-preset.schema.json")) throws -> [Bool] {
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        v = jsonschema.Draft202012Validator(schema)
        for doc in json.load(sys.stdin):
            print("valid" if v.is_valid(doc) else "invalid")
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, schema.path]
        let input = Pipe(), output = Pipe()
        p.standardInput = input; p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data(("[" + documents.joined(separator: ",") + "]").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.featureUnsupported) }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0 == "valid" }
    }

    @Test func schemaAcceptsShippedPresets() throws {
        let docs = try Self.files.map { try String(contentsOf: $0, encoding: .utf8) }
        try #require(docs.count >= 10, "the shipped presets were not found")
        let verdicts = try Self.runValidator(docs)
        try #require(verdicts.count == docs.count)
        for (url, ok) in zip(Self.files, verdicts) { #expect(ok, "\(url.lastPathComponent) fails the schema") }
    }

    @Test func schemaRejectsWhatTheDecoderRejects() throws {
        let bad = PresetDecoderTests.cases.filter { !$0.json.hasSuffix("[}") }.map(\.json)
        try #require(bad.count >= 10)
        let verdicts = try Self.runValidator(bad)
        // One verdict per document, or the loop below would check fewer than were sent.
        try #require(verdicts.count == bad.count)
        for (doc, ok) in zip(bad, verdicts) { #expect(!ok, "schema accepts \(doc)") }
    }
}
