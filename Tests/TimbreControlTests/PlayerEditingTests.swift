import Foundation
import Testing
import TimbreControl
import TimbreEngine

/// Live `set` on a player channel: AVAudioPlayer's names (`rate`, `loops`, and `volume`/`pan`
/// when the preset wrote them in the player object) edit the player object; the channel's own
/// `volume`/`pan` stay the channel's.
@Suite struct PlayerEditingTests {
    static func edit(_ json: String, _ address: String, _ value: Double) throws -> JSONValue {
        let doc = try PresetDecoder.parse(Data(json.utf8))
        let edited = try PresetDocumentEditor(document: doc, preset: try PresetDecoder.decode(doc)).setting(address, to: value)
        _ = try PresetDecoder.decode(edited)  // still a valid preset
        return edited
    }

    static func graph(_ channel: String) -> String { #"{"version": 1, "name": "p", "graph": {"channels": [\#(channel)]}}"# }

    @Test func aliasesReachThePlayerObject() throws {
        let inPlayer = Self.graph(#"{"id": "m", "player": {"file": "m.wav", "volume": 0.5, "pan": 0.2}}"#)
        let onChannel = Self.graph(#"{"id": "m", "player": {"file": "m.wav"}, "volume": 0.5}"#)
        let path = { (doc: JSONValue, keys: [String]) in doc.value(at: ([JSONValue.PathComponent.key("graph"), .key("channels"), .index(0)] + keys.map { .key($0) })[...]) }
        #expect(path(try Self.edit(inPlayer, "m.volume", 0.3), ["player", "volume"]) == .number(0.3))
        #expect(path(try Self.edit(inPlayer, "m.pan", -1), ["player", "pan"]) == .number(-1))
        #expect(path(try Self.edit(onChannel, "m.volume", 0.3), ["volume"]) == .number(0.3))
        #expect(path(try Self.edit(onChannel, "m.rate", 1.5), ["player", "rate"]) == .number(1.5))
        #expect(path(try Self.edit(onChannel, "m.loops", 3), ["player", "loops"]) == .number(3))
        #expect(throws: (any Error).self) { try Self.edit(onChannel, "m.rate", 3) }  // out of range: the decoder's check
    }
}
