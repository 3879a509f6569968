import Foundation
import TimbreTestSignals

/// Random node objects drawn from the preset JSON Schema (`Presets/timbre-preset.schema.json`),
/// so that a property test covers every node kind the schema names with no list of its own:
/// a kind added to the catalog and the schema is drawn from the next run on.
///
/// Every value is in range. Edges are weighted: a number is its minimum, its maximum, 0 (when
/// allowed) or its default in about half the draws, and a `oneOf` with a constant ("inf",
/// "auto") takes the constant in a third of them. Optional keys are present about half the time.
public struct RandomPresets {
    let definitions: [String: Any]
    let nodeSchemas: [String: [String: Any]]
    /// Node `type` names this sampler draws (the schema's list less `excluded`).
    public let typeNames: [String]
    /// Files a node's `file` key may name, by node type (a fixture's folder holds them): a
    /// `convolver` always names one, a `fir` without inline coefficients a third of the time.
    public var files: [String: [String]] = [:]

    /// Reads the schema at `url`. `excluded`: types left out (plugins need a host; keys that
    /// name other channels need a graph).
    public init(schema url: URL, excluding excluded: Set<String> = ["plugin"]) throws {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        definitions = root["$defs"] as! [String: Any]
        let node = definitions["node"] as! [String: Any]
        let names = ((node["properties"] as! [String: Any])["type"] as! [String: Any])["enum"] as! [String]
        var schemas: [String: [String: Any]] = [:]
        for branch in node["oneOf"] as! [[String: Any]] {
            let schema = Self.resolve(branch, in: definitions)
            let typeSchema = (schema["properties"] as! [String: Any])["type"] as! [String: Any]
            for name in (typeSchema["enum"] as? [String]) ?? [typeSchema["const"] as! String] { schemas[name] = schema }
        }
        nodeSchemas = schemas
        typeNames = names.filter { !excluded.contains($0) }
    }

    static func resolve(_ schema: [String: Any], in definitions: [String: Any]) -> [String: Any] {
        guard let ref = schema["$ref"] as? String else { return schema }
        var resolved = resolve(definitions[String(ref.split(separator: "/").last!)] as! [String: Any], in: definitions)
        for (k, v) in schema where k != "$ref" { resolved[k] = v }
        return resolved
    }

    /// Keys that give the same thing in different forms: a node takes one of each group.
    static let alternatives: [Set<String>] = [["time", "samples", "metres", "note", "rate"]]

    /// A random node of `type` as a JSON object (`id` and `bypass` left out; keys that name
    /// other channels left out).
    public func node(type: String, using rng: inout SeededRandom) -> [String: Any] {
        let schema = nodeSchemas[type]!
        var object: [String: Any] = ["type": type]
        let properties = schema["properties"] as! [String: Any]
        let forbiddenTogether = ((schema["not"] as? [String: Any])?["required"] as? [String]) ?? []
        for key in properties.keys.sorted() where !["type", "id", "bypass", "key"].contains(key) {
            if key == "file" {
                guard let names = files[type], !names.isEmpty, object["coefficients"] == nil, type == "convolver" || rng.chance(0.33) else { continue }
                object[key] = names[Int(rng.next() % UInt64(names.count))]
                continue
            }
            guard rng.chance(0.55) else { continue }
            // A fir has one source: inline taps, a file, or a GraphicEQ line (always one).
            if key == "graphicEQ" {
                guard object["coefficients"] == nil, object["file"] == nil else { continue }
                object[key] = Self.graphicEQ(using: &rng)
                continue
            }
            // A named fixture file has the format its name says, and a sound file its own rate;
            // an eq's or filter's taps come with a phase.
            if key == "format" && object["file"] != nil { continue }
            if key == "sampleRate" && (object["file"] as? String)?.hasSuffix(".wav") == true { continue }
            if key == "taps" && properties["phase"] != nil && object["phase"] == nil { continue }
            if forbiddenTogether.contains(key), forbiddenTogether.contains(where: { object[$0] != nil }) { continue }
            // One form of a time (delay) or rate (tremolo, chorus); a tempo only with a note.
            if let group = Self.alternatives.first(where: { $0.contains(key) }), group.contains(where: { object[$0] != nil }) { continue }
            if key == "tempo" && object["note"] == nil { continue }
            if key == "coefficients" { object[key] = Self.taps(using: &rng); continue }
            object[key] = value(Self.resolve(properties[key] as! [String: Any], in: definitions), using: &rng)
        }
        // The RMS detector's window only with it (the decoder refuses a window on a peak detector).
        if object["window"] != nil, (object["detector"] as? String) != "rms" { object["detector"] = "rms" }
        // Routing nodes as a user writes them for a mono or stereo chain: one or two driver
        // outputs with one form of delay each; a matrix from its first input to one to four
        // outputs. (Other counts are refused by path, which the caller also checks.)
        if type == "drivers" {
            let items = (object["outputs"] as? [[String: Any]] ?? [[:]])
            object["outputs"] = (0..<(rng.chance(0.5) ? 1 : 2)).map { k -> [String: Any] in
                var item = items.isEmpty ? [:] : items[k % items.count]
                let delays = ["delay", "delaySamples", "delayMm"].filter { item[$0] != nil }
                for key in delays.dropFirst() { item[key] = nil }
                return item
            }
        }
        if type == "matrix" {
            let outputs = 1 + Int(rng.next() % 4)
            object["outputs"] = outputs
            object["labels"] = nil
            object["routes"] = (0..<Int(rng.next() % 4)).map { _ in
                ["from": 0, "to": Int(rng.next() % UInt64(outputs)), "gain": (rng.unit() * 40 - 30), "invert": rng.chance(0.3), "mute": rng.chance(0.1)] as [String: Any]
            }
        }
        return object
    }

    func value(_ schema: [String: Any], using rng: inout SeededRandom) -> Any {
        if let options = schema["oneOf"] as? [[String: Any]] {
            let constants = options.filter { $0["const"] != nil }
            if !constants.isEmpty, rng.chance(0.33) { return constants[Int(rng.next() % UInt64(constants.count))]["const"]! }
            let others = options.filter { $0["const"] == nil }
            return value(Self.resolve(others[Int(rng.next() % UInt64(others.count))], in: definitions), using: &rng)
        }
        if let c = schema["const"] { return c }
        if let choices = schema["enum"] as? [Any] { return choices[Int(rng.next() % UInt64(choices.count))] }
        switch schema["type"] as? String {
        case "number", "integer": return number(schema, using: &rng)
        case "boolean": return rng.chance(0.5)
        case "string": return "x"
        case "array":
            let items = Self.resolve(schema["items"] as? [String: Any] ?? [:], in: definitions)
            let lo = schema["minItems"] as? Int ?? 0, hi = schema["maxItems"] as? Int ?? 4
            let count = lo + Int(rng.next() % UInt64(hi - lo + 1))
            var array = (0..<count).map { _ in value(items, using: &rng) }
            // Ranges given as two numbers (a sidechain band) go low to high.
            if count == 2, let a = array[0] as? Double, let b = array[1] as? Double { array = [min(a, b), max(a, b)] }
            return array
        case "object":
            var object: [String: Any] = [:]
            let properties = schema["properties"] as? [String: Any] ?? [:]
            let keys = properties.keys.sorted()
            // A sidechain takes one filter of the three.
            if keys == ["band", "highpass", "lowpass"] {
                let key = keys[Int(rng.next() % 3)]
                object[key] = value(Self.resolve(properties[key] as! [String: Any], in: definitions), using: &rng)
                return object
            }
            for key in keys where rng.chance(0.55) {
                object[key] = value(Self.resolve(properties[key] as! [String: Any], in: definitions), using: &rng)
            }
            return object
        default: return 0
        }
    }

    /// A FIR's taps as a user gives them: a decaying response of 1…4,096 taps (log-uniform)
    /// whose worst-case gain (Σ|h|) is −20…+20 dB, or a single tap; one list, or one per
    /// channel of a stereo chain (two lists) — which a mono chain refuses by path.
    static func taps(using rng: inout SeededRandom) -> Any {
        func one(_ rng: inout SeededRandom) -> [Double] {
            let count = max(1, Int(pow(4096, rng.unit())))
            var h = (0..<count).map { k in (rng.unit() * 2 - 1) * exp(-4 * Double(k) / Double(count)) }
            let norm = h.reduce(0) { $0 + abs($1) }, gain = pow(10, (rng.unit() * 40 - 20) / 20)
            if norm > 0 { h = h.map { $0 * gain / norm } }
            return h
        }
        return rng.chance(0.25) ? [one(&rng), one(&rng)] : one(&rng)
    }

    /// A GraphicEQ line as AutoEQ writes it: 10…127 points from 20 Hz to about 20 kHz, gains
    /// within ±12 dB.
    static func graphicEQ(using rng: inout SeededRandom) -> String {
        let count = 10 + Int(rng.next() % 118)
        let points = (0..<count).map { k -> String in
            let hz = (20 * pow(1000.0, Double(k) / Double(count - 1))).rounded()
            return "\(Int(hz)) \(String(format: "%.1f", rng.unit() * 24 - 12))"
        }
        return "GraphicEQ: " + points.joined(separator: "; ")
    }

    /// The most a chain's FIR and convolver nodes can raise a peak: the product of their Σ|h|
    /// (1 without). `fileGains`: the Σ|h| a node naming that file can reach (its worst
    /// normalisation included).
    public static func firGain(_ nodes: [[String: Any]], fileGains: [String: Double] = [:]) -> Double {
        nodes.filter { $0["type"] as? String == "fir" || $0["type"] as? String == "convolver" }.reduce(1) { gain, node in
            let scale = pow(10, ((node["gain"] as? Double) ?? 0) / 20)
            if let file = node["file"] as? String { return gain * scale * (fileGains[file] ?? 1) }
            // A designed curve (gains within ±12 dB, so |H| ≤ 4): Σ|h| is not bounded by |H|,
            // so a generous 40 — beside the test's 10⁴ margin it only keeps the bound finite.
            if node["graphicEQ"] != nil { return gain * scale * 40 }
            let lists = (node["coefficients"] as? [[Double]]) ?? [(node["coefficients"] as? [Double]) ?? []]
            return gain * scale * (lists.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 1)
        }
    }

    func number(_ schema: [String: Any], using rng: inout SeededRandom) -> Double {
        let lo = (schema["minimum"] as? Double) ?? -100, hi = (schema["maximum"] as? Double) ?? 100
        let isInteger = schema["type"] as? String == "integer"
        let u = rng.unit()
        var x: Double
        switch rng.next() % 10 {
        case 0, 1: x = lo
        case 2, 3: x = hi
        case 4 where lo <= 0 && hi >= 0: x = 0
        case 5: x = (schema["default"] as? Double) ?? lo + u * (hi - lo)
        default:
            // Log-uniform across wide positive ranges (frequencies, times), uniform otherwise.
            x = lo > 0 && hi / lo > 100 ? lo * pow(hi / lo, u) : lo + u * (hi - lo)
        }
        if isInteger { x = x.rounded() }
        return min(hi, max(lo, x))
    }
}

extension SeededRandom {
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }
}
