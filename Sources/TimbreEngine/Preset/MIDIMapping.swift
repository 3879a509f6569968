import Foundation

/// One entry of a preset's `midi` section: what a MIDI message does in `timbre live`.
///
/// ```json
/// "midi": [
///   {"cc": 7, "target": "master.volume"},
///   {"cc": 16, "bits": 14, "channel": 2, "target": "eq.bands[2].frequency", "min": 100, "max": 8000, "curve": "log"},
///   {"cc": 64, "target": "hp.bypass"},
///   {"note": 60, "command": "play backing", "release": "pause backing"},
///   {"program": 3, "command": "load show-3.json"}
/// ]
/// ```
/// A control change sets a parameter: its value 0…127 (or 0…16383 with `bits` 14, the
/// controller's MSB at `cc` and LSB at `cc` + 32) runs from `min` to `max` along `curve`; a
/// switch (`bypass`, `mute`, `solo`) is on from 64 up. A note-on or a program change runs a
/// live command (`set`, `bypass`, `play`, `pause`, `stop`, `seek`, `load`); a note-off runs
/// `release` if given. `channel` is 1…16; without it any channel matches.
public struct MIDIMapping: Sendable, Equatable {
    public enum Trigger: Sendable, Equatable {
        case controlChange(Int, fine: Bool)
        case note(Int)
        case program(Int)
    }

    /// How a controller's 0…1 position becomes a value between `min` and `max`.
    public enum Curve: String, Sendable, CaseIterable {
        /// Evenly.
        case linear
        /// Evenly in ratio (frequencies, Q): `min · (max / min)^x`; both must be > 0.
        case log
        /// `min` and `max` are decibels and the parameter takes the linear gain
        /// 10^(dB/20); the controller at 0 gives 0 (a fader's off). For `volume`.
        case db
    }

    public var trigger: Trigger
    /// 1…16, or nil for any channel.
    public var channel: Int?
    /// For a control change: the parameter (`<node>.<parameter>`, `master.volume`).
    public var target: String?
    public var min: Double?
    public var max: Double?
    public var curve: Curve
    /// For a note or program change: the command it runs, and (notes) on release.
    public var command: String?
    public var release: String?

    public init(trigger: Trigger, channel: Int? = nil, target: String? = nil, min: Double? = nil, max: Double? = nil,
                curve: Curve = .linear, command: String? = nil, release: String? = nil) {
        self.trigger = trigger; self.channel = channel; self.target = target; self.min = min; self.max = max
        self.curve = curve; self.command = command; self.release = release
    }

    /// Commands a mapping may run: edits and transport, never `save`, `quit` or `insert`.
    public static let commandVerbs: Set<String> = ["set", "bypass", "play", "pause", "stop", "seek", "load"]

    /// The value for a controller position `x` in 0…1.
    public func value(at x: Double, range fallback: ClosedRange<Double>) -> Double {
        let lo = min ?? fallback.lowerBound, hi = max ?? fallback.upperBound
        switch curve {
        case .linear: return lo + x * (hi - lo)
        case .log: return lo * Foundation.pow(hi / lo, x)
        case .db: return x == 0 ? 0 : Foundation.pow(10, (lo + x * (hi - lo)) / 20)
        }
    }

    /// The mapping as preset JSON.
    public var json: JSONValue {
        var o: [String: JSONValue] = [:]
        switch trigger {
        case .controlChange(let cc, let fine): o["cc"] = .number(Double(cc)); if fine { o["bits"] = .number(14) }
        case .note(let n): o["note"] = .number(Double(n))
        case .program(let p): o["program"] = .number(Double(p))
        }
        if let channel { o["channel"] = .number(Double(channel)) }
        if let target { o["target"] = .string(target) }
        if let min { o["min"] = .number(min) }
        if let max { o["max"] = .number(max) }
        if curve != .linear { o["curve"] = .string(curve.rawValue) }
        if let command { o["command"] = .string(command) }
        if let release { o["release"] = .string(release) }
        return .object(o)
    }
}

extension PresetDecoder {
    /// The `midi` section: an array of ``MIDIMapping`` objects.
    static func decodeMIDI(_ field: Field) throws(PresetError) -> [MIDIMapping] {
        var out: [MIDIMapping] = []
        for (i, item) in try field.array().enumerated() {
            let path = "\(field.path)[\(i)]"
            var o = try ObjectReader(item, path: path)
            let byte = 0.0...127.0
            func whole(_ f: Field, in range: ClosedRange<Double>) throws(PresetError) -> Int {
                let d = try f.number(in: range, unit: "")
                guard d == d.rounded() else { throw PresetError(path: f.path, "\(JSONValue.number(d).brief) is not a whole number") }
                return Int(d)
            }
            let cc = try o.optional("cc"), note = try o.optional("note"), program = try o.optional("program")
            let trigger: MIDIMapping.Trigger
            switch (cc, note, program) {
            case (let c?, nil, nil):
                var fine = false
                if let bits = try o.optional("bits") {
                    let b = try whole(bits, in: 7...14)
                    guard b == 7 || b == 14 else { throw PresetError(path: bits.path, "\(b) is not allowed (allowed 7 or 14)") }
                    fine = b == 14
                }
                trigger = .controlChange(try whole(c, in: fine ? 0...31 : byte), fine: fine)
            case (nil, let n?, nil): trigger = .note(try whole(n, in: byte))
            case (nil, nil, let p?): trigger = .program(try whole(p, in: byte))
            default: throw PresetError(path: path, "give one of \"cc\", \"note\" or \"program\"")
            }
            var m = MIDIMapping(trigger: trigger)
            if let c = try o.optional("channel") { m.channel = try whole(c, in: 1...16) }
            if case .controlChange = trigger {
                let t = try o.required("target")
                let target = try t.string()
                guard let dot = target.firstIndex(of: "."), dot != target.startIndex, target.index(after: dot) != target.endIndex else {
                    throw PresetError(path: t.path, "\"\(target)\" is not <node>.<parameter>")
                }
                m.target = target
                if let f = try o.optional("min") { m.min = try f.number() }
                if let f = try o.optional("max") { m.max = try f.number() }
                if let f = try o.optional("curve") { m.curve = try f.oneOf(MIDIMapping.Curve.self) }
                if m.curve == .log, (m.min ?? 1) <= 0 || (m.max ?? 1) <= 0 {
                    throw PresetError(path: path + ".curve", "a log curve needs min and max above 0")
                }
            } else {
                let c = try o.required("command")
                m.command = try checkCommand(c)
                if let r = try o.optional("release") {
                    guard case .note = trigger else { throw PresetError(path: r.path, "only a note has a release") }
                    m.release = try checkCommand(r)
                }
            }
            try o.finish()
            out.append(m)
        }
        return out
    }

    static func checkCommand(_ f: Field) throws(PresetError) -> String {
        let text = try f.string()
        let verb = text.split(separator: " ").first.map(String.init) ?? ""
        guard MIDIMapping.commandVerbs.contains(verb) else {
            throw PresetError(path: f.path, "\"\(text)\": a MIDI mapping runs \(MIDIMapping.commandVerbs.sorted().joined(separator: ", "))")
        }
        return text
    }
}
