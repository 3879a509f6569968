import Foundation
import TimbreEngine

/// A graph built in code: a voice on input 0 and music on input 1, summed on the master bus,
/// which carries a meter. Encoded to a preset file's JSON and decoded back, checked as a file is.
func showPreset() throws -> Preset {
    let voice = ChannelSpec(id: "voice", source: .inputs([0]), chain: [
        NodeSpec(id: "voice-hp", kind: .filter(FilterDesign(type: .highPass, frequencyHz: 90, slopeDBPerOctave: 12))),
    ], pan: -0.2)
    let music = ChannelSpec(id: "music", source: .inputs([1]), volume: 0.5, pan: 0.2)
    let graph = GraphSpec(channels: [voice, music], master: BusSpec(chain: [NodeSpec(id: "meter", kind: .analysis(.meter))]))
    let show = Preset(name: "show", form: .graph(graph))
    let json = PresetEncoder.data(show)             // what a preset file holds
    let decoded = try PresetDecoder.decode(json)    // errors name the JSON path, value and range
    precondition(PresetEncoder.encode(decoded) == PresetEncoder.encode(show))
    return decoded
}
