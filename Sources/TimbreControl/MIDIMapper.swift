import Foundation
import TimbreEngine

/// Turns MIDI messages into live commands by a preset's `midi` mappings (TimbreEngine's
/// `MIDIMapping`), and learns new mappings (`learn <path>`).
///
/// Controller moves are coalesced: each target keeps only its newest value and is set at
/// most once per ``interval`` (a controller sending hundreds of messages a second costs a
/// few edits a second, never a queue); notes and program changes run in order at once.
/// Runs on the control thread; the audio thread only queues the raw bytes.
public final class MIDIMapper {
    public private(set) var mappings: [MIDIMapping]
    /// The shortest time between two edits of one target, in seconds.
    public var interval: Double = 0.02

    /// What a message led to.
    public enum Action: Equatable, Sendable {
        /// A live command to run now (a note's or a program change's).
        case command(String)
        /// `learn` bound a controller: the new mapping.
        case learned(MIDIMapping)
    }

    /// A target waiting for the next controller that moves.
    public struct Learning: Equatable, Sendable {
        public var target: String, min: Double, max: Double, curve: MIDIMapping.Curve
    }
    public private(set) var learning: Learning?

    /// Counts for `status`: messages read, controller values coalesced away, edits made.
    public private(set) var received = 0, coalesced = 0, edits = 0

    /// Controller positions (channel 0…15 × controller 0…127): 14-bit pairs need both bytes.
    private var controllers = [UInt8](repeating: 0, count: 16 * 128)
    /// Values waiting for their target's interval to pass, in arrival order of targets.
    private var pending: [(target: String, value: Double)] = []
    private var lastEdit: [String: Double] = [:]
    /// The default range and curve of a parameter path (for mappings without min/max).
    let range: (String) -> (ClosedRange<Double>, MIDIMapping.Curve)?

    public init(mappings: [MIDIMapping], range: @escaping (String) -> (ClosedRange<Double>, MIDIMapping.Curve)?) {
        self.mappings = mappings; self.range = range
    }

    /// The preset's mappings after a `load` (pending values of the old ones are dropped).
    public func replace(_ mappings: [MIDIMapping]) {
        self.mappings = mappings
        pending.removeAll()
    }

    /// Waits for the next controller that moves and binds it to `target`.
    public func learn(_ target: String, min: Double, max: Double, curve: MIDIMapping.Curve) {
        learning = Learning(target: target, min: min, max: max, curve: curve)
    }

    /// Reads one message (1–3 bytes, status first). Returns commands to run now and a learned
    /// mapping; controller values wait in ``due(now:)``.
    public func receive(_ message: [UInt8]) -> [Action] {
        guard let status = message.first, status >= 0x80, status < 0xF0 else { return [] }
        received += 1
        let channel = Int(status & 0x0F) + 1
        let data1 = message.count > 1 ? Int(message[1] & 0x7F) : 0
        let data2 = message.count > 2 ? Int(message[2] & 0x7F) : 0
        var out: [Action] = []
        switch status & 0xF0 {
        case 0xB0 where message.count == 3:
            controllers[(channel - 1) * 128 + data1] = UInt8(data2)
            if let l = learning, data1 < 120 {  // 120…127 are channel-mode messages
                let m = MIDIMapping(trigger: .controlChange(data1, fine: false), channel: channel, target: l.target,
                                    min: l.min, max: l.max, curve: l.curve)
                mappings.removeAll { $0.target == l.target }
                mappings.append(m)
                learning = nil
                out.append(.learned(m))
            }
            for m in mappings where m.channel == nil || m.channel == channel {
                guard case .controlChange(let cc, let fine) = m.trigger, let target = m.target else { continue }
                let x: Double
                if fine {
                    guard data1 == cc || data1 == cc + 32 else { continue }
                    let msb = Int(controllers[(channel - 1) * 128 + cc]), lsb = Int(controllers[(channel - 1) * 128 + cc + 32])
                    x = Double(msb << 7 | lsb) / 16383
                } else {
                    guard data1 == cc else { continue }
                    x = Double(data2) / 127
                }
                queue(target, value(of: m, at: x))
            }
        case 0x90 where message.count == 3 && data2 > 0:
            for m in mappings where m.trigger == .note(data1) && (m.channel == nil || m.channel == channel) {
                if let c = m.command { out.append(.command(c)) }
            }
        case 0x80 where message.count == 3, 0x90 where message.count == 3:  // note-off (or note-on at velocity 0)
            for m in mappings where m.trigger == .note(data1) && (m.channel == nil || m.channel == channel) {
                if let r = m.release { out.append(.command(r)) }
            }
        case 0xC0 where message.count == 2:
            for m in mappings where m.trigger == .program(data1) && (m.channel == nil || m.channel == channel) {
                if let c = m.command { out.append(.command(c)) }
            }
        default:
            break
        }
        return out
    }

    /// The `set` commands whose target's interval has passed: the newest value of each.
    public func due(now: Double) -> [ControlCommand] {
        var out: [ControlCommand] = []
        pending.removeAll { item in
            guard now - (lastEdit[item.target] ?? -.infinity) >= interval else { return false }
            lastEdit[item.target] = now
            edits += 1
            out.append(.set(address: item.target, value: item.value))
            return true
        }
        return out
    }

    private func queue(_ target: String, _ value: Double) {
        if let k = pending.firstIndex(where: { $0.target == target }) { pending[k].value = value; coalesced += 1 }
        else { pending.append((target, value)) }
    }

    /// The parameter value of mapping `m` at controller position `x` (0…1); a switch is
    /// on from the middle up.
    func value(of m: MIDIMapping, at x: Double) -> Double {
        let name = m.target.map(Self.parameterName) ?? ""
        if ParameterRanges.switchParameters.contains(name) { return x >= 0.5 ? 1 : 0 }
        let fallback = m.target.flatMap(range)?.0 ?? 0...1
        // Decimal places a live `set` keeps, so the value reads back as set.
        return (m.value(at: x, range: fallback) * 1e6).rounded() / 1e6
    }

    /// The range and curve `learn <path>` uses when none is given: the node parameter's own
    /// from the catalog (`ParameterSpec.knobRange`; a logarithmic scale learns on a log
    /// curve), the graph's own below, a switch's 0…1; nil for anything else.
    public static func defaultRange(_ path: String, in preset: Preset) -> (ClosedRange<Double>, MIDIMapping.Curve)? {
        if let spec = NodeCatalog.parameterSpec(forPath: path, in: preset) {
            return (spec.knobRange, spec.scale == .logarithmic ? .log : .linear)
        }
        // The graph's own: channel, group and master volume and pan, a sine source's frequency,
        // a player's rate.
        let graph: ParameterSpec?
        switch parameterName(path) {
        case "volume": graph = GraphSources.Bus.channelVolume
        case "pan": graph = GraphSources.Bus.channelPan
        case "frequency": graph = GraphSources.Sine.frequency
        case "level": graph = GraphSources.Sine.level
        case "rate": graph = GraphSources.Player.rate
        case let name where ParameterRanges.switchParameters.contains(name): return (0...1, .linear)
        default: graph = nil
        }
        return graph.map { ($0.knobRange, $0.scale == .logarithmic ? .log : .linear) }
    }

    /// `bands[2].gain` → `gain`, `master.volume` → `volume`.
    static func parameterName(_ path: String) -> String {
        String(path.split(separator: ".").last ?? "").split(separator: "[").first.map(String.init) ?? ""
    }

    /// The mappings as JSON for `status`, with the counts.
    public var statusJSON: JSONValue {
        var o: [String: JSONValue] = [
            "mappings": .array(mappings.map(\.json)),
            "received": .number(Double(received)), "coalesced": .number(Double(coalesced)), "edits": .number(Double(edits)),
        ]
        if let learning { o["learning"] = .string(learning.target) }
        return .object(o)
    }
}
