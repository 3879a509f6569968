import Foundation
import Testing
import TimbreControl
import TimbreEngine
import TimbreTestSupport

/// What a network sender (OSC, the web page) hears when a `load` fails: the file and the JSON
/// path, never a value read from the file — a sender must not read a file through the errors.
/// Stdin and the control socket, which only the user reaches, keep the full message.
@Suite struct RemoteRepliesTests {
    static let secret = "s3cr3t-value-from-the-file"

    /// A preset file whose node `type`, a plugin path and a gain hold values a sender must not read back.
    @Test(arguments: [
        (#"{"version": 1, "name": "x", "chain": [{"type": "SECRET"}]}"#, "chain[0].type"),
        (#"{"version": 1, "name": "x", "chain": [{"type": "gain", "gain": "SECRET"}]}"#, "chain[0].gain"),
        (#"{"version": 1, "name": "x", "chain": [{"type": "plugin", "ladspa": "/SECRET/amp.so:amp"}]}"#, "chain[0].ladspa"),
    ])
    func loadErrorsNameThePathNotTheValue(json: String, path: String) throws {
        let text = json.replacingOccurrences(of: "SECRET", with: Self.secret)
        let engine = try LiveEngine(document: PresetDecoder.parse(Data(#"{"version": 1, "name": "a", "chain": [{"type": "gain", "id": "g"}]}"#.utf8)),
                                    sampleRate: 48000, inputChannelCount: 2, outputChannelCount: 2, maxBlockFrames: 256)
        // The loader reads the "file" as the CLI's does: parsed, then decoded by the engine.
        let interpreter = ControlInterpreter(engine: engine, loadDocument: { name in (try PresetDecoder.parse(Data(text.utf8)), name) })
        let datagram = OSCMessage(address: "/timbre/load", arguments: [.string("secret.json")]).encoded()
        let results = interpreter.handle(.packet(datagram))
        try #require(results.count == 1)
        guard case .failure(let error) = results[0] else { Issue.record("loaded \(text)"); return }
        #expect(error.message.contains(Self.secret), "the user's own message keeps the value: \(error.message)")
        #expect(!error.remoteMessage.contains(Self.secret), "\(error.remoteMessage)")
        #expect(error.remoteMessage.contains("secret.json") && error.remoteMessage.contains(path), "\(error.remoteMessage)")
        #expect(engine.preset.name == "a")
    }
}
