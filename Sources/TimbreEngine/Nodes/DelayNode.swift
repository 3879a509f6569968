import Foundation
import TimbreDSP

// `delay`: an echo (`EchoDelay`): time in ms, samples, metres or a note value at a tempo;
// feedback with a low-cut and a high-cut in the loop; mix; stereo ping-pong; time changes by
// crossfade or tape-style glide. AVAudioUnitDelay's parameters map one to one: delayTime →
// time (ms), feedback → feedback (%), lowPassCutoff → highCut (Hz), wetDryMix → mix (%).

/// The settings of a `delay` node.
public struct DelaySettings: NodeParameters {
    /// How the time is given.
    public enum Time: Sendable, Equatable {
        case milliseconds(Double)
        /// Frames at the session's rate (a fraction allowed).
        case samples(Double)
        /// A distance sound travels in air at 343 m/s (20 °C): a speaker's or a microphone's.
        case metres(Double)
        /// A note value (`"1/4"`, dotted `"1/8d"`, triplet `"1/8t"`) at `tempo` beats (quarter notes) per minute.
        case note(String, tempo: Double)
    }

    public var time: Time = .milliseconds(500)
    /// −100…100 %: the share of the delayed signal fed back (negative: inverted).
    public var feedbackPercent: Double = 0
    /// 0…100 %: the wet share (dry 100 − mix).
    public var mixPercent: Double = 50
    /// Corners of the loop's second-order Butterworth low-cut and high-cut (nil: off).
    public var lowCutHz: Double?
    public var highCutHz: Double?
    /// Stereo: the input's mid into the left line, the feedback crossed, echoes alternating sides.
    public var pingPong = false
    public var change: EchoDelay.TimeChange = .crossfade

    public init(time: Time = .milliseconds(500), feedbackPercent: Double = 0, mixPercent: Double = 50) {
        self.time = time; self.feedbackPercent = feedbackPercent; self.mixPercent = mixPercent
    }

    /// The time in milliseconds.
    public var milliseconds: Double {
        switch time {
        case .milliseconds(let ms): ms
        case .samples: .nan
        case .metres(let m): m / DelayNode.speedOfSound * 1000
        case .note(let value, let tempo): (DelayNode.noteFraction(value) ?? 0) * 4 * 60_000 / tempo
        }
    }

    /// The delay in frames at `sampleRate`, to a millionth of a frame (so 10 ms at 48 kHz is
    /// exactly 480 frames, read without interpolation, not 479.99999999).
    public func frames(sampleRate: Double) -> Double {
        if case .samples(let n) = time { return n }
        return (milliseconds / 1000 * sampleRate * 1e6).rounded() / 1e6
    }

    /// The kernel's live values at `sampleRate`.
    public func values(sampleRate: Double) -> EchoDelay.Values {
        func section(_ type: FilterType, _ hz: Double?) -> BiquadCoefficients {
            guard let hz, hz < ParameterRanges.nyquistFraction * sampleRate else { return .identity }
            return FilterDesign(type: type, frequencyHz: hz, q: 1 / 2.0.squareRoot()).sections(sampleRate: sampleRate).first ?? .identity
        }
        return EchoDelay.Values(delayFrames: frames(sampleRate: sampleRate), feedback: feedbackPercent / 100, mix: mixPercent / 100,
                                lowCut: section(.highPass, lowCutHz), highCut: section(.lowPass, highCutHz))
    }
}

extension NodeKind {
    /// An echo.
    public static func delay(_ settings: DelaySettings) -> NodeKind { NodeKind(settings) }
}

package enum DelayNode: NodeDefinition {
    package static let typeNames = ["delay"]
    package static func typeName(of _: DelaySettings) -> String { "delay" }

    /// m/s, dry air at 20 °C.
    package static let speedOfSound = 343.0
    /// The longest delay: 5 s (the ring each channel holds at the session's rate).
    package static let maximumMilliseconds = 5_000.0

    package enum Range {
        package static let time: ClosedRange<Double> = 0...maximumMilliseconds
        package static let samples: ClosedRange<Double> = 0...960_000
        package static let metres: ClosedRange<Double> = 0...1_700
        package static let tempo: ClosedRange<Double> = 20...400
        package static let feedback: ClosedRange<Double> = -100...100
        package static let mix: ClosedRange<Double> = 0...100
    }

    package static let parameterSpecs = [
        ParameterSpec("time", unit: "ms", range: Range.time, default: 500, movesLive: true, controlRange: 1...2_000, in: ["delayNode"]),
        ParameterSpec("samples", range: Range.samples, movesLive: true, in: ["delayNode"]),
        ParameterSpec("metres", unit: "m", range: Range.metres, movesLive: true, in: ["delayNode"]),
        ParameterSpec("tempo", unit: "bpm", range: Range.tempo, default: 120, movesLive: true, in: ["delayNode"]),
        ParameterSpec("feedback", unit: "%", range: Range.feedback, default: 0, movesLive: true, in: ["delayNode"]),
        ParameterSpec("mix", unit: "%", range: Range.mix, default: 50, movesLive: true, in: ["delayNode"]),
        ParameterSpec("lowCut", unit: "Hz", range: ParameterRanges.frequencyHz, scale: .logarithmic, movesLive: true, in: ["delayNode"]),
        ParameterSpec("highCut", unit: "Hz", range: ParameterRanges.frequencyHz, scale: .logarithmic, movesLive: true, in: ["delayNode"]),
    ]

    /// The note values `note` takes: 1/1 … 1/64, dotted (`d`) or triplet (`t`).
    package static let noteValues: [String] = ["1", "2", "4", "8", "16", "32", "64"].flatMap { d in ["", "d", "t"].map { "1/\(d)\($0)" } }

    /// A note value as a fraction of a whole note (1/4 → 0.25, 1/8d → 0.1875, 1/8t → 1/12).
    package static func noteFraction(_ value: String) -> Double? {
        guard noteValues.contains(value) else { return nil }
        let kind = value.last!, digits = value.dropFirst(2).filter(\.isNumber)
        let base = 1 / Double(Int(digits)!)
        return kind == "d" ? base * 1.5 : kind == "t" ? base * 2 / 3 : base
    }

    package static var schemaEntry: NodeSchemaEntry? {
        NodeSchemaEntry(
            name: "delayNode",
            description: "An echo: the input delayed by time (ms), samples, metres (343 m/s) or a note value at a tempo (bpm), fed back at feedback % (negative: inverted) through an optional low-cut and high-cut in the loop, mixed at mix % wet. pingPong (stereo) alternates the echoes between the sides. A time change crossfades (default) or glides like a tape head (change). Whole-sample times are exact; between samples a windowed-sinc read. AVAudioUnitDelay: delayTime → time, feedback → feedback, lowPassCutoff → highCut, wetDryMix → mix.",
            otherKeys: [("note", .object(["enum": .array(noteValues.map { .string($0) })])),
                        ("pingPong", .object(["type": .string("boolean")])),
                        ("change", .object(["enum": .array(EchoDelay.TimeChange.allCases.map { .string($0.rawValue) })]))])
    }

    package static func decode(type _: String, _ o: inout ObjectReader, path: String) throws(PresetError) -> DelaySettings {
        var s = DelaySettings()
        var given: [String] = []
        var time = DelaySettings.Time.milliseconds(500)
        if let f = try o.optional("time") { time = .milliseconds(try f.number(in: Range.time, unit: "ms")); given.append("time") }
        if let f = try o.optional("samples") { time = .samples(try f.number(in: Range.samples, unit: "")); given.append("samples") }
        if let f = try o.optional("metres") { time = .metres(try f.number(in: Range.metres, unit: "m")); given.append("metres") }
        let tempoField = try o.optional("tempo")
        if let f = try o.optional("note") {
            let value = try f.string()
            guard let fraction = noteFraction(value) else {
                throw PresetError(path: f.path, "\"\(value)\" is not a note value (allowed 1/1 … 1/64, dotted as 1/8d, triplet as 1/8t)")
            }
            let tempo = try tempoField?.number(in: Range.tempo, unit: "bpm") ?? 120
            let ms = fraction * 4 * 60_000 / tempo
            if ms > maximumMilliseconds {
                throw PresetError(path: f.path, "\(value) at \(SummaryFormat.number(tempo)) bpm is \(Int(ms.rounded())) ms, longer than the \(Int(maximumMilliseconds)) ms a delay holds")
            }
            time = .note(value, tempo: tempo)
            given.append("note")
        } else if let t = tempoField {
            throw PresetError(path: t.path, "a tempo needs a note value (\"note\": \"1/8\")")
        }
        if given.count > 1 { throw PresetError(path: path, "give one of time, samples, metres and note (given: \(given.joined(separator: ", ")))") }
        s.time = time
        if let f = try o.optional("feedback") { s.feedbackPercent = try f.number(in: Range.feedback, unit: "%") }
        if let f = try o.optional("mix") { s.mixPercent = try f.number(in: Range.mix, unit: "%") }
        if let f = try o.optional("lowCut") { s.lowCutHz = try f.number(in: ParameterRanges.frequencyHz, unit: "Hz") }
        if let f = try o.optional("highCut") { s.highCutHz = try f.number(in: ParameterRanges.frequencyHz, unit: "Hz") }
        if let f = try o.optional("pingPong") { s.pingPong = try f.bool() }
        if let f = try o.optional("change") { s.change = try f.oneOf(EchoDelay.TimeChange.self) }
        return s
    }

    package static func encode(_ s: DelaySettings) -> [String: JSONValue] {
        var o: [String: JSONValue] = ["feedback": .number(s.feedbackPercent), "mix": .number(s.mixPercent)]
        switch s.time {
        case .milliseconds(let ms): o["time"] = .number(ms)
        case .samples(let n): o["samples"] = .number(n)
        case .metres(let m): o["metres"] = .number(m)
        case .note(let value, let tempo): o["note"] = .string(value); o["tempo"] = .number(tempo)
        }
        if let hz = s.lowCutHz { o["lowCut"] = .number(hz) }
        if let hz = s.highCutHz { o["highCut"] = .number(hz) }
        if s.pingPong { o["pingPong"] = .bool(true) }
        if s.change != .crossfade { o["change"] = .string(s.change.rawValue) }
        return o
    }

    package static func lower(_ s: DelaySettings, into node: inout NodeLowering) throws(PresetError) {
        let (rate, channels) = (node.sampleRate, node.channels)
        if s.pingPong && channels != 2 { throw PresetError(path: node.path + ".pingPong", "ping-pong needs a stereo chain (this one has \(channels) channels)") }
        let frames = s.frames(sampleRate: rate), maximum = Int((maximumMilliseconds / 1000 * rate).rounded(.up))
        if frames > Double(maximum) {
            throw PresetError(path: node.path + ".samples", String(format: "%.0f samples is longer than the %.0f ms a delay holds (%d samples at %g Hz)", frames, maximumMilliseconds, maximum, rate))
        }
        let values = s.values(sampleRate: rate), change = s.change, pingPong = s.pingPong
        let motion = node.valuesMotion(DelayStep.motionValues(values))
        node.addKernel(KernelRecipe(shape: KernelShape("delay", [channels, pingPong ? 1 : 0, change == .glide ? 1 : 0], carriesState: true)) {
            var step = DelayStep(delay: EchoDelay(values: values, sampleRate: rate, channelCount: channels, maximumDelayFrames: maximum, change: change, pingPong: pingPong))
            step.motion = motion?.makeFollower()
            return step
        })
    }

    /// Time (in any of its forms, so a `set` of `time` on a node given in notes moves it too),
    /// feedback, mix and the cut corners move; switching a cut on or off, ping-pong and the
    /// change mode are structure.
    package static func liveValues(from old: DelaySettings, to new: DelaySettings, sampleRate: Double) -> [Double]? {
        guard (old.lowCutHz == nil) == (new.lowCutHz == nil), (old.highCutHz == nil) == (new.highCutHz == nil),
              old.pingPong == new.pingPong, old.change == new.change,
              new.frames(sampleRate: sampleRate) <= maximumMilliseconds / 1000 * sampleRate else { return nil }
        return DelayStep.motionValues(new.values(sampleRate: sampleRate))
    }

    /// The small-signal response without feedback is a comb; none is drawn (echoes are not a
    /// curve a user reads): passed as unchanged.
    package static func response(of s: DelaySettings, sampleRate: Double) -> NodeResponse { .unchanged }

    package static func summary(of s: DelaySettings) -> String {
        var text: String
        switch s.time {
        case .milliseconds(let ms): text = "delay \(SummaryFormat.number(ms)) ms"
        case .samples(let n): text = "delay \(SummaryFormat.number(n)) samples"
        case .metres(let m): text = "delay \(SummaryFormat.number(m)) m (\(SummaryFormat.number((s.milliseconds * 100).rounded() / 100)) ms)"
        case .note(let value, let tempo): text = "delay \(value) at \(SummaryFormat.number(tempo)) bpm (\(SummaryFormat.number((s.milliseconds * 100).rounded() / 100)) ms)"
        }
        text += ", feedback \(SummaryFormat.number(s.feedbackPercent)) %, mix \(SummaryFormat.number(s.mixPercent)) %"
        if let hz = s.lowCutHz { text += ", low cut \(SummaryFormat.number(hz)) Hz" }
        if let hz = s.highCutHz { text += ", high cut \(SummaryFormat.number(hz)) Hz" }
        if s.pingPong { text += ", ping-pong" }
        if s.change == .glide { text += ", glide" }
        return text
    }
}

/// A `delay` node's step: the echo, its values moved in place in a live plan.
struct DelayStep: RenderKernel, ~Copyable {
    var delay: EchoDelay
    var motion: ValuesMotion.Follower? = nil

    /// The values a motion carries: delay frames, feedback, mix, and both loop sections.
    static func motionValues(_ v: EchoDelay.Values) -> [Double] {
        [v.delayFrames, v.feedback, v.mix, v.lowCut.b0, v.lowCut.b1, v.lowCut.b2, v.lowCut.a1, v.lowCut.a2,
         v.highCut.b0, v.highCut.b1, v.highCut.b2, v.highCut.a1, v.highCut.a2]
    }

    /// Takes new values from the motion, if some were written (audio thread).
    mutating func follow() {
        guard let r = motion?.next() else { return }
        delay.retune(EchoDelay.Values(delayFrames: r[0], feedback: r[1], mix: r[2],
                                      lowCut: BiquadCoefficients(b0: r[3], b1: r[4], b2: r[5], a1: r[6], a2: r[7]),
                                      highCut: BiquadCoefficients(b0: r[8], b1: r[9], b2: r[10], a1: r[11], a2: r[12])))
    }

    static let operations = KernelOperations(
        process: { k, b in
            DelayStep.at(k).pointee.follow()
            DelayStep.at(k).pointee.delay.process(b.block.pointee.channels, frameCount: b.block.pointee.frameCount)
        },
        continueState: { new, old, _ in DelayStep.at(new).pointee.delay.continueState(from: DelayStep.at(old).pointee.delay) },
        reset: { k in DelayStep.at(k).pointee.delay.reset() },
        clearNonFinite: { k in DelayStep.at(k).pointee.delay.clearNonFinite() })
    deinit { motion?.deallocate() }
}
