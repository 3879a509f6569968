import Foundation
import TimbreDSP

/// Strict decoder for preset JSON version 1.
///
/// Every problem is a ``PresetError`` naming the JSON path, the value and what is allowed:
/// unknown keys, wrong types, values out of range, missing required fields, wrong versions.
public enum PresetDecoder {
    /// Decodes and validates preset JSON.
    public static func decode(_ data: Data) throws(PresetError) -> Preset {
        try decode(parse(data))
    }

    /// Parses JSON text into a document (syntax only).
    public static func parse(_ data: Data) throws(PresetError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PresetError(path: "", "invalid JSON: \(describeSyntaxError(data))")
        }
    }

    /// Reads and decodes a preset file; errors are prefixed with the file name by callers.
    public static func decode(contentsOf url: URL) throws -> Preset {
        let data = try Data(contentsOf: url)
        return try decode(data)
    }

    /// JSONDecoder hides where the syntax error is; JSONSerialization says "around character N".
    /// Turn that into `line L, column C`.
    static func describeSyntaxError(_ data: Data) -> String {
        if data.isEmpty { return "the file is empty" }
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "not a JSON document"
        } catch {
            let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
            guard let range = text.range(of: "character "), let offset = Int(text[range.upperBound...].prefix { $0.isNumber }) else {
                return text
            }
            let before = data.prefix(offset)
            let line = before.filter { $0 == 0x0A }.count + 1
            let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
            let what = text[..<range.lowerBound].replacingOccurrences(of: " around ", with: "").trimmingCharacters(in: .whitespaces)
            return "\(what) at line \(line), column \(column)"
        }
    }

    public static func decode(_ root: JSONValue) throws(PresetError) -> Preset {
        var top = try ObjectReader(root, path: "")
        let version = try top.required("version").number()
        guard version == Double(Preset.formatVersion) else {
            throw PresetError(path: "version", "unsupported version \(JSONValue.number(version).brief) (this Timbre reads version \(Preset.formatVersion))")
        }
        let name = try top.required("name").string()
        let description = try top.optional("description")?.string()
        let chainField = try top.optional("chain")
        let graphField = try top.optional("graph")
        let form: Preset.Form
        switch (chainField, graphField) {
        case (let c?, nil): form = .chain(try decodeChain(c))
        case (nil, let g?): form = .graph(try decodeGraph(g))
        case (nil, nil): throw PresetError(path: "chain", "missing required field (or give \"graph\")")
        case (_?, _?): throw PresetError(path: "", "give either \"chain\" or \"graph\", not both")
        }
        let midi = try top.optional("midi").map { (f: Field) throws(PresetError) in try decodeMIDI(f) } ?? []
        try top.finish()
        var preset = Preset(name: name, description: description, form: form)
        preset.midi = midi
        return preset
    }

    static func decodeChain(_ field: Field) throws(PresetError) -> [NodeSpec] {
        var chain: [NodeSpec] = []
        for (i, item) in try field.array().enumerated() {
            chain.append(try decodeNode(item, path: "\(field.path)[\(i)]"))
        }
        return chain
    }

    static func decodeGraph(_ field: Field) throws(PresetError) -> GraphSpec {
        var g = try ObjectReader(field.value, path: field.path)
        var channels: [ChannelSpec] = []
        var ids = Set<String>()
        func uniqueID(_ f: Field) throws(PresetError) -> String {
            let id = try f.string()
            guard !id.isEmpty, ids.insert(id).inserted else { throw PresetError(path: f.path, "id \"\(id)\" is empty or used twice") }
            return id
        }
        let channelsField = try g.required("channels")
        let channelItems = try channelsField.array()
        guard !channelItems.isEmpty else { throw PresetError(path: channelsField.path, "a graph needs at least one channel") }
        for (i, item) in channelItems.enumerated() {
            let path = "\(channelsField.path)[\(i)]"
            var c = try ObjectReader(item, path: path)
            let id = try uniqueID(try c.required("id"))
            let inputField = try c.optional("input"), generatorField = try c.optional("generator")
            var source: ChannelSource
            var playerLevels: (volume: Field?, pan: Field?) = (nil, nil)
            if let playerField = try c.optional("player") {
                guard inputField == nil && generatorField == nil else {
                    throw PresetError(path: path, "give one of \"input\", \"generator\" and \"player\"")
                }
                let (spec, levels) = try decodePlayer(playerField)
                source = .player(spec); playerLevels = levels
            } else {
            switch (inputField, generatorField) {
            case (let f?, nil):
                let list = try f.array()
                guard (1...NodeLowering.maximumChannels).contains(list.count) else {
                    throw PresetError(path: f.path, "give 1 (mono), 2 (stereo) or up to \(NodeLowering.maximumChannels) input indices")
                }
                var indices: [Int] = []
                for (k, v) in list.enumerated() {
                    let d = try Field(value: v, path: "\(f.path)[\(k)]").number(in: GraphSources.input.range, unit: "")
                    guard d == d.rounded() else { throw PresetError(path: "\(f.path)[\(k)]", "\(d) is not a whole number") }
                    indices.append(Int(d))
                }
                source = .inputs(indices)
            case (nil, let f?):
                var gen = try ObjectReader(f.value, path: f.path)
                let type = try gen.required("type")
                guard try type.string() == "sine" else { throw PresetError(path: type.path, "unknown generator (allowed \"sine\")") }
                let freq = try gen.optional("frequency")?.number(in: GraphSources.Sine.frequency.range, unit: "Hz") ?? GraphSources.Sine.frequency.defaultValue!
                let level = try gen.optional("level")?.number(in: GraphSources.Sine.level.range, unit: "dBFS") ?? GraphSources.Sine.level.defaultValue!
                try gen.finish()
                source = .sine(frequencyHz: freq, levelDB: level)
            case (nil, nil): source = .inputs([i])
            case (_?, _?): throw PresetError(path: path, "give either \"input\" or \"generator\", not both")
            }
            }
            let chain = try c.optional("chain").map { (f: Field) throws(PresetError) in try decodeChain(f) } ?? []
            // A player's `volume` and `pan` (AVAudioPlayer's) are its channel's.
            let volumeField = try c.optional("volume"), panField = try c.optional("pan")
            if volumeField != nil && playerLevels.volume != nil { throw PresetError(path: path, "give \"volume\" on the channel or in its player, not both") }
            if panField != nil && playerLevels.pan != nil { throw PresetError(path: path, "give \"pan\" on the channel or in its player, not both") }
            let volume = try (volumeField ?? playerLevels.volume)?.number(in: ParameterRanges.volume, unit: "") ?? 1
            let pan = try (panField ?? playerLevels.pan)?.number(in: ParameterRanges.pan, unit: "") ?? 0
            let mute = try c.optional("mute")?.bool() ?? false
            let solo = try c.optional("solo")?.bool() ?? false
            let group = try c.optional("group")?.string()
            let sends = try c.optional("sends").map { (f: Field) throws(PresetError) in try decodeSends(f) } ?? []
            let width = try declaredChannels(&c)
            try c.finish()
            var spec = ChannelSpec(id: id, source: source, chain: chain, volume: volume, pan: pan, mute: mute, solo: solo, group: group, sends: sends, path: path)
            spec.channelCount = width
            channels.append(spec)
        }
        var groups: [GroupSpec] = []
        if let groupsField = try g.optional("groups") {
            for (i, item) in try groupsField.array().enumerated() {
                let path = "\(groupsField.path)[\(i)]"
                var o = try ObjectReader(item, path: path)
                let id = try uniqueID(try o.required("id"))
                let chain = try o.optional("chain").map { (f: Field) throws(PresetError) in try decodeChain(f) } ?? []
                let volume = try o.optional("volume")?.number(in: ParameterRanges.volume, unit: "") ?? 1
                let mute = try o.optional("mute")?.bool() ?? false
                let sends = try o.optional("sends").map { (f: Field) throws(PresetError) in try decodeSends(f) } ?? []
                let width = try busChannels(&o)
                try o.finish()
                groups.append(GroupSpec(id: id, chain: chain, volume: volume, mute: mute, sends: sends, channelCount: width, path: path))
            }
        }
        var auxes: [AuxSpec] = []
        if let auxField = try g.optional("auxes") {
            for (i, item) in try auxField.array().enumerated() {
                let path = "\(auxField.path)[\(i)]"
                var o = try ObjectReader(item, path: path)
                let id = try uniqueID(try o.required("id"))
                let chain = try o.optional("chain").map { (f: Field) throws(PresetError) in try decodeChain(f) } ?? []
                let volume = try o.optional("volume")?.number(in: ParameterRanges.volume, unit: "") ?? 1
                let mute = try o.optional("mute")?.bool() ?? false
                let destination = try o.optional("to")?.oneOf(AuxSpec.Destination.self) ?? .master
                let width = try busChannels(&o)
                try o.finish()
                auxes.append(AuxSpec(id: id, chain: chain, volume: volume, mute: mute, destination: destination, channelCount: width, path: path))
            }
        }
        for sends in channels.map(\.sends) + groups.map(\.sends) {
            var seen = Set<String>()
            for send in sends {
                guard auxes.contains(where: { $0.id == send.aux }) else {
                    throw PresetError(path: send.path + ".aux", "no aux bus with id \"\(send.aux)\" (auxes: \(auxes.isEmpty ? "none" : auxes.map(\.id).joined(separator: ", ")))")
                }
                guard seen.insert(send.aux).inserted else { throw PresetError(path: send.path + ".aux", "a second send to \"\(send.aux)\"") }
            }
        }
        for (i, c) in channels.enumerated() {
            if let grp = c.group, !groups.contains(where: { $0.id == grp }) {
                throw PresetError(path: "\(channelsField.path)[\(i)].group", "no group with id \"\(grp)\" (groups: \(groups.map(\.id).joined(separator: ", ")))")
            }
        }
        var master = BusSpec(chain: [], volume: 1, path: "\(field.path).master")
        if let m = try g.optional("master") {
            var o = try ObjectReader(m.value, path: m.path)
            master.chain = try o.optional("chain").map { (f: Field) throws(PresetError) in try decodeChain(f) } ?? []
            master.volume = try o.optional("volume")?.number(in: ParameterRanges.volume, unit: "") ?? 1
            master.pan = try o.optional("pan")?.number(in: ParameterRanges.pan, unit: "") ?? 0
            master.channelCount = try busChannels(&o)
            if let f = try o.optional("id") {
                let id = try f.string()
                let taken = channels.map(\.id) + groups.map(\.id) + auxes.map(\.id)
                guard !id.isEmpty, !id.contains("."), !taken.contains(id) else {
                    throw PresetError(path: f.path, "\"\(id)\" cannot name the master bus (empty, with a dot, or a channel's or group's id)")
                }
                master.id = id
            }
            try o.finish()
        }
        try g.finish()
        return GraphSpec(channels: channels, groups: groups, auxes: auxes, master: master)
    }

    /// A group's, aux's or the master's `channels`: a whole number 2…64, 2 when absent.
    static func busChannels(_ o: inout ObjectReader) throws(PresetError) -> Int { try declaredChannels(&o) ?? 2 }

    /// An object's `channels` (2…64: every path into a bus is at least stereo; a mono output
    /// comes from a master chain's `matrix`), nil when absent.
    static func declaredChannels(_ o: inout ObjectReader) throws(PresetError) -> Int? {
        guard let f = try o.optional("channels") else { return nil }
        let d = try f.number(in: GraphSources.Bus.widthRange, unit: "")
        guard d == d.rounded() else { throw PresetError(path: f.path, "\(d) is not a whole number of channels") }
        return Int(d)
    }

    /// A channel's or group's `sends`: `[{"aux": id, "level": 0…1, "pre": bool}]`.
    static func decodeSends(_ field: Field) throws(PresetError) -> [SendSpec] {
        var sends: [SendSpec] = []
        for (i, item) in try field.array().enumerated() {
            let path = "\(field.path)[\(i)]"
            var o = try ObjectReader(item, path: path)
            let aux = try o.required("aux").string()
            let level = try o.optional("level")?.number(in: ParameterRanges.volume, unit: "") ?? 1
            let pre = try o.optional("pre")?.bool() ?? false
            try o.finish()
            sends.append(SendSpec(aux: aux, level: level, preFader: pre, path: path))
        }
        return sends
    }

    /// The player object, and its `volume` and `pan` fields if given (they set the channel's).
    static func decodePlayer(_ field: Field) throws(PresetError) -> (PlayerSpec, (volume: Field?, pan: Field?)) {
        var o = try ObjectReader(field.value, path: field.path)
        let fileField = try o.required("file")
        let file = try fileField.string()
        guard !file.isEmpty else { throw PresetError(path: fileField.path, "the file name is empty") }
        var p = PlayerSpec(file: file)
        p.rate = try o.optional("rate")?.number(in: ParameterRanges.playerRate, unit: "") ?? 1
        if let m = try o.optional("rateMode") { p.rateMode = try m.oneOf(RateMode.self) }
        if let l = try o.optional("loops") {
            let n = try l.number(in: ParameterRanges.playerLoops, unit: "")
            guard n == n.rounded() else { throw PresetError(path: l.path, "\(JSONValue.number(n).brief) is not a whole number") }
            p.loops = Int(n)
        }
        p.start = try o.optional("start")?.number(in: GraphSources.Player.start.range, unit: "s") ?? 0
        p.end = try o.optional("end")?.number(in: GraphSources.Player.end.range, unit: "s")
        if let end = p.end, end <= p.start {
            throw PresetError(path: field.path + ".end", "\(JSONValue.number(end).brief) s is not after start \(JSONValue.number(p.start).brief) s")
        }
        p.offset = try o.optional("offset")?.number(in: GraphSources.Player.offset.range, unit: "s") ?? 0
        if let end = p.end, p.offset >= end - p.start {
            throw PresetError(path: field.path + ".offset", "\(JSONValue.number(p.offset).brief) s is past the region (\(JSONValue.number(end - p.start).brief) s long)")
        }
        p.autoplay = try o.optional("autoplay")?.bool() ?? true
        let levels = (try o.optional("volume"), try o.optional("pan"))
        try o.finish()
        return (p, levels)
    }

    static func decodeNode(_ value: JSONValue, path: String) throws(PresetError) -> NodeSpec {
        var o = try ObjectReader(value, path: path)
        let typeField = try o.required("type")
        let typeName = try typeField.string()
        let id = try o.optional("id")?.string()
        let bypass = try o.optional("bypass")?.bool() ?? false
        guard let definition = NodeCatalog.definition(forType: typeName) else {
            throw PresetError(path: typeField.path, "unknown node type \"\(typeName)\" (allowed: \(NodeCatalog.typeNames.joined(separator: ", ")))")
        }
        let parameters = try definition.decodeAny(type: typeName, &o, path: path)
        try o.finish()
        return NodeSpec(id: id, bypass: bypass, kind: NodeKind(parameters), path: path)
    }
}

/// A JSON value with its path, with typed accessors that throw path-bearing errors.
package struct Field {
    let value: JSONValue
    let path: String

    func number() throws(PresetError) -> Double {
        guard case .number(let d) = value else { throw PresetError(path: path, "expected a number, found \(value.typeName) \(value.brief)") }
        return d
    }
    func number(in range: ClosedRange<Double>, unit: String) throws(PresetError) -> Double {
        let d = try number()
        guard range.contains(d) else {
            let u = unit.isEmpty ? "" : " \(unit)"
            throw PresetError(path: path, "\(JSONValue.number(d).brief) is out of range (allowed \(fmt(range.lowerBound))…\(fmt(range.upperBound))\(u))")
        }
        return d
    }
    func string() throws(PresetError) -> String {
        guard case .string(let s) = value else { throw PresetError(path: path, "expected a string, found \(value.typeName) \(value.brief)") }
        return s
    }
    func bool() throws(PresetError) -> Bool {
        guard case .bool(let b) = value else { throw PresetError(path: path, "expected true or false, found \(value.typeName) \(value.brief)") }
        return b
    }
    func array() throws(PresetError) -> [JSONValue] {
        guard case .array(let a) = value else { throw PresetError(path: path, "expected an array, found \(value.typeName) \(value.brief)") }
        return a
    }
    func oneOf<E: RawRepresentable & CaseIterable>(_: E.Type) throws(PresetError) -> E where E.RawValue == String {
        let s = try string()
        guard let e = E(rawValue: s) else {
            let allowed = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw PresetError(path: path, "\"\(s)\" is not allowed (allowed \(allowed))")
        }
        return e
    }
    private func fmt(_ d: Double) -> String { JSONValue.number(d).brief }
}

/// Reads an object's keys one by one; `finish()` rejects any key not read.
package struct ObjectReader {
    let path: String
    var remaining: [String: JSONValue]

    init(_ value: JSONValue, path: String) throws(PresetError) {
        guard case .object(let o) = value else {
            throw PresetError(path: path, "expected an object, found \(value.typeName) \(value.brief)")
        }
        self.path = path
        remaining = o
    }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func optional(_ key: String) throws(PresetError) -> Field? {
        guard let v = remaining.removeValue(forKey: key) else { return nil }
        return Field(value: v, path: child(key))
    }

    mutating func required(_ key: String) throws(PresetError) -> Field {
        guard let f = try optional(key) else { throw PresetError(path: child(key), "missing required field") }
        return f
    }

    func finish() throws(PresetError) {
        if let key = remaining.keys.sorted().first {
            throw PresetError(path: child(key), "unknown key \"\(key)\"")
        }
    }
}
