import Foundation

/// Writes a ``Preset`` as preset JSON (version 1) that ``PresetDecoder`` reads back to an
/// equal preset: for saving what was built in code or reached live, and for a ``LiveEngine``
/// given a preset built in code (its edits work on the document).
public enum PresetEncoder {
    /// The preset as a JSON document.
    public static func encode(_ preset: Preset) -> JSONValue {
        var o: [String: JSONValue] = ["version": .number(Double(Preset.formatVersion)), "name": .string(preset.name)]
        if let d = preset.description { o["description"] = .string(d) }
        if !preset.midi.isEmpty { o["midi"] = .array(preset.midi.map(\.json)) }
        switch preset.form {
        case .chain(let chain): o["chain"] = encode(chain)
        case .graph(let g): o["graph"] = encode(g)
        }
        return .object(o)
    }

    /// The preset as JSON text (keys sorted).
    public static func data(_ preset: Preset) -> Data { Data(encode(preset).jsonText.utf8) }

    package static func encode(_ chain: [NodeSpec]) -> JSONValue {
        .array(chain.map { node in
            var o = node.kind.definition.encode(any: node.kind.parameters)
            o["type"] = .string(node.kind.typeName)
            if let id = node.id { o["id"] = .string(id) }
            if node.bypass { o["bypass"] = .bool(true) }
            return .object(o)
        })
    }

    static func encode(_ g: GraphSpec) -> JSONValue {
        let channels: [JSONValue] = g.channels.map { c in
            var o: [String: JSONValue] = ["id": .string(c.id), "volume": .number(c.volume), "pan": .number(c.pan)]
            switch c.source {
            case .inputs(let i): o["input"] = .array(i.map { .number(Double($0)) })
            case .sine(let f, let level): o["generator"] = .object(["type": .string("sine"), "frequency": .number(f), "level": .number(level)])
            case .player(let p):
                var player: [String: JSONValue] = ["file": .string(p.file), "rate": .number(p.rate), "rateMode": .string(p.rateMode.rawValue),
                                                   "loops": .number(Double(p.loops)), "start": .number(p.start), "offset": .number(p.offset),
                                                   "autoplay": .bool(p.autoplay)]
                if let end = p.end { player["end"] = .number(end) }
                o["player"] = .object(player)
            }
            if !c.chain.isEmpty { o["chain"] = encode(c.chain) }
            if c.mute { o["mute"] = .bool(true) }
            if c.solo { o["solo"] = .bool(true) }
            if let group = c.group { o["group"] = .string(group) }
            if !c.sends.isEmpty { o["sends"] = encode(c.sends) }
            if let w = c.channelCount { o["channels"] = .number(Double(w)) }
            return .object(o)
        }
        var graph: [String: JSONValue] = ["channels": .array(channels)]
        if !g.groups.isEmpty {
            graph["groups"] = .array(g.groups.map { gr in
                var o: [String: JSONValue] = ["id": .string(gr.id), "volume": .number(gr.volume)]
                if !gr.chain.isEmpty { o["chain"] = encode(gr.chain) }
                if gr.mute { o["mute"] = .bool(true) }
                if !gr.sends.isEmpty { o["sends"] = encode(gr.sends) }
                if gr.channelCount != 2 { o["channels"] = .number(Double(gr.channelCount)) }
                return .object(o)
            })
        }
        if !g.auxes.isEmpty {
            graph["auxes"] = .array(g.auxes.map { a in
                var o: [String: JSONValue] = ["id": .string(a.id), "volume": .number(a.volume), "to": .string(a.destination.rawValue)]
                if a.channelCount != 2 { o["channels"] = .number(Double(a.channelCount)) }
                if !a.chain.isEmpty { o["chain"] = encode(a.chain) }
                if a.mute { o["mute"] = .bool(true) }
                return .object(o)
            })
        }
        var master: [String: JSONValue] = ["volume": .number(g.master.volume)]
        if g.master.pan != 0 { master["pan"] = .number(g.master.pan) }
        if g.master.channelCount != 2 { master["channels"] = .number(Double(g.master.channelCount)) }
        if g.master.id != "master" { master["id"] = .string(g.master.id) }
        if !g.master.chain.isEmpty { master["chain"] = encode(g.master.chain) }
        graph["master"] = .object(master)
        return .object(graph)
    }

    static func encode(_ sends: [SendSpec]) -> JSONValue {
        .array(sends.map { s in
            var o: [String: JSONValue] = ["aux": .string(s.aux), "level": .number(s.level)]
            if s.preFader { o["pre"] = .bool(true) }
            return .object(o)
        })
    }
}
