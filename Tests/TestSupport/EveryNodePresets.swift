import Foundation
import TimbreControl
import TimbreEngine

/// Presets holding every node type, and a stream of live edits over them, for the
/// real-time proofs (RealtimeSanitizer, allocation counts) and the concurrency tests.
public enum EveryNodePresets {
    /// Every effect kind (#38), as chain entries: delay with glide and cuts, stereo tools,
    /// tremolo, tempo-synced auto-pan, chorus, flanger, phaser, tube distortion, a dithered
    /// bit crusher, ladder, reverb, ring modulator, crossfeed.
    public static let effectNodes = """
      {"type": "delay", "id": "dly", "time": 12.3456, "feedback": 40, "mix": 30, "lowCut": 80, "highCut": 6000, "change": "glide"},
      {"type": "stereo", "id": "st", "width": 130, "midGain": -1, "balance": 0.1, "invertRight": true},
      {"type": "tremolo", "id": "trem", "rate": 6, "depth": 40, "shape": "square"}, {"type": "autopan", "id": "ap2", "note": "1/2", "tempo": 100},
      {"type": "chorus", "id": "cho"}, {"type": "flanger", "id": "fla", "feedback": -70, "depth": 2.4, "centre": 2.5},
      {"type": "phaser", "id": "pha", "stages": 6, "feedback": 60},
      {"type": "distortion", "id": "dist", "drive": 18, "curve": "tube", "tone": 6000, "mix": 80},
      {"type": "bitcrush", "id": "crush", "bits": 12, "rate": 22050, "dither": true, "mix": 20},
      {"type": "ladder", "id": "lad", "cutoff": 3000, "resonance": 1.05, "drive": 6},
      {"type": "reverb", "id": "verb", "room": "large-hall", "mix": 25},
      {"type": "ringmod", "id": "ring", "frequency": 30, "mix": 10},
      {"type": "crossfeed", "id": "xf", "frequency": 650, "feed": 9.5},
      {"type": "loudnessCompensation", "id": "lc", "reference": 83, "volume": -25},
      {"type": "matrix", "id": "mtx", "outputs": 2, "routes": [{"from": 0, "to": 0}, {"from": 1, "to": 1, "gain": -1}, {"from": 0, "to": 1, "gain": -20, "invert": true}]}
    """

    /// The voice clean-up kinds (#39), as chain entries: hum remover, denoiser, de-plosive.
    public static let voiceNodes = """
      {"type": "dehum", "id": "hum"}, {"type": "denoise", "id": "dn", "reduction": 24}, {"type": "deplosive", "id": "pop"}
    """

    /// A chain with every chain node type (analysis nodes included).
    public static let chain = """
    {"version": 1, "name": "every node", "chain": [
      {"type": "highpass", "id": "hp", "frequency": 30, "slope": 48}, {"type": "lowpass", "id": "lp", "frequency": 16000, "q": 0.8},
      {"type": "peak", "id": "pk", "frequency": 1000, "gain": 3}, {"type": "lowshelf", "id": "ls", "frequency": 100, "gain": 2},
      {"type": "highshelf", "id": "hs", "frequency": 8000, "gain": -2}, {"type": "notch", "id": "n", "frequency": 60},
      {"type": "bandpass", "id": "bp", "frequency": 500, "q": 0.3}, {"type": "allpass", "id": "ap", "frequency": 2000},
      {"type": "eq", "id": "eq", "bands": [{"gain": 2}, {"gain": -2}]}, {"type": "meter", "id": "m"}, {"type": "gain", "id": "g", "volume": 0.8},
      {"type": "pan", "id": "pan", "pan": 0.2}, {"type": "loudness", "id": "loud"}, {"type": "spectrum", "id": "spec", "fftSize": 1024},
      {"type": "pitch", "id": "pitch", "semitones": 3, "cents": 10},
      {"type": "compressor", "id": "comp", "threshold": -30, "ratio": 3, "detector": "rms", "window": 5, "lookahead": 1, "link": 50},
      {"type": "deesser", "id": "ds"}, {"type": "limiter", "id": "lim", "ceiling": -1},
      {"type": "gate", "id": "gate", "threshold": -60}, {"type": "expander", "id": "exp", "threshold": -50},
      {"type": "fir", "id": "fir", "coefficients": \(firTaps)},
    \(effectNodes),
    \(voiceNodes)
    ]}
    """

    /// A decaying 3,000-tap response: the `fir` node's head and five levels of FFT partitions
    /// (64 … 1,024) all run on the render path.
    static let firTaps: String = {
        let taps: [String] = (0..<3_000).map { (k: Int) -> String in
            let sign: Double = k % 2 == 0 ? 0.5 : -0.4
            return String(format: "%.6f", sign * exp(-Double(k) / 600))
        }
        return "[" + taps.joined(separator: ", ") + "]"
    }()

    /// A graph with every graph node: input copies, a sine generator, buses cleared and
    /// mixed, a group, channel and bus chains, pans and volumes, a pitch node (so the other
    /// paths get latency-compensating delays), and a master chain ending in a 3-way crossover
    /// and per-output alignment (six outputs), and aux buses fed by pre- and post-fader sends
    /// (a return into the master, a monitor mix on two outputs of its own).
    public static let graph = """
    {"version": 1, "name": "every graph node", "graph": {
      "channels": [
        {"id": "voice", "input": [0], "chain": [{"type": "highpass", "id": "vhp", "frequency": 80}, {"type": "eq", "id": "veq", "bands": [{"gain": 3}]}], "pan": -0.3, "group": "bus",
         "sends": [{"aux": "mon", "level": 0.8, "pre": true}, {"aux": "fx", "level": 0.3}]},
        {"id": "tone", "generator": {"type": "sine", "frequency": 440, "level": -30}, "chain": [{"type": "pitch", "id": "tpitch", "semitones": -5}], "volume": 0.5, "pan": 0.4},
        {"id": "wide", "input": [0, 0], "chain": [{"type": "peak", "id": "wpk", "frequency": 2000, "gain": -3}], "group": "bus"}
      ],
      "groups": [{"id": "bus", "chain": [{"type": "lowshelf", "id": "bls", "frequency": 120, "gain": 2}], "volume": 0.9, "sends": [{"aux": "mon", "level": 0.2}]}],
      "auxes": [{"id": "mon", "to": "outputs", "chain": [{"type": "limiter", "id": "monlim", "ceiling": -3}]},
                {"id": "fx", "chain": [{"type": "delay", "id": "fxdly", "time": 120, "feedback": 30}], "volume": 0.7}],
      "master": {"chain": [{"type": "highshelf", "id": "mhs", "frequency": 9000, "gain": 1}, {"type": "gain", "id": "mg", "gain": -1},
                           {"type": "compressor", "id": "mcomp", "threshold": -24, "makeup": "auto"},
                           {"type": "limiter", "id": "mlim", "ceiling": -2}, {"type": "loudness", "id": "mloud"}, {"type": "meter", "id": "mmeter"},
                           {"type": "loudnessCompensation", "id": "mlc", "followMaster": true},
                           {"type": "crossover", "id": "mxo", "frequencies": [300, 3000], "order": 8},
                           {"type": "drivers", "id": "mdrv", "outputs": [{"limit": -6}, {}, {"delay": 0.3, "gain": -2}, {"delaySamples": 5}, {"delayMm": 70, "invert": true}, {"mute": true}]}], "volume": 0.95}
    }}
    """

    /// Real Debian plugins (LV2 through lilv and LADSPA) on a mono input: eg-amp, a pan to
    /// stereo, x42 fil4 (atom ports, parameter smoothing), a built-in bell, x42 dpl (latency
    /// port), swh amp (LADSPA). Needs a host with `PluginHost.loader`.
    public static let plugins = #"{"version": 1, "name": "plugins", "chain": [{"type": "plugin", "id": "amp", "uri": "http://lv2plug.in/plugins/eg-amp", "controls": {"gain": -3}}, {"type": "pan", "id": "pan"}, {"type": "plugin", "id": "eq", "uri": "http://gareus.org/oss/lv2/fil4#stereo", "controls": {"gain1": 4}}, {"type": "peak", "id": "pk", "frequency": 2000, "gain": 2}, {"type": "plugin", "id": "lim", "uri": "http://gareus.org/oss/lv2/dpl#stereo"}, {"type": "plugin", "id": "lamp", "ladspa": "amp_1181.so:amp"}]}"#

    /// Step `k` of edits for ``plugins``: plugin controls by port symbol and a built-in bypass.
    public static func editPlugins(_ interpreter: ControlInterpreter, step k: Int) throws {
        let command: ControlCommand = switch k % 4 {
        case 0: .set(address: "amp.gain", value: Double(k % 13) - 9)
        case 1: .set(address: "eq.gain1", value: Double(k % 9) - 4)
        case 2: .set(address: "lamp.amps_gain_db", value: Double(k % 7) - 3)
        default: .bypass(node: "pk", on: k % 8 == 3)
        }
        _ = try interpreter.perform(command)
    }

    /// A small chain to alternate with, so whole-preset loads are exercised.
    public static let alternative = #"{"version": 1, "name": "other", "chain": [{"type": "eq", "id": "eq", "bands": [{"gain": 3}]}, {"type": "pan", "id": "pan"}]}"#

    /// Step `k` of an endless stream of edits valid for whichever of ``chain`` and ``graph``
    /// is loaded: parameters, switches, inserts and removes, and every 50th step a load.
    public static func edit(_ interpreter: ControlInterpreter, step k: Int) throws {
        let engine = interpreter.engine
        let isGraph = engine.preset.formName == "graph"
        let commands: [ControlCommand]
        if isGraph {
            switch k % 7 {
            case 0: commands = [.set(address: "veq.bands[0].gain", value: Double(k % 9) - 4)]
            case 1: commands = [.set(address: "tone.volume", value: Double(k % 10) / 10)]
            case 2: commands = [.set(address: "wide.mute", value: Double(k % 2))]
            case 3: commands = [.set(address: "voice.solo", value: Double(k % 2))]
            case 4: commands = [.set(address: "bus.volume", value: Double(k % 5) / 5), .bypass(node: "wpk", on: k % 4 == 0)]
            case 5: commands = [.set(address: "tpitch.semitones", value: Double(k % 13) - 6), .set(address: "mon.volume", value: Double(k % 4) / 4)]
            default: commands = [.set(address: "voice.pan", value: Double(k % 5) / 5 - 0.4), .set(address: "voice.sends[1].level", value: Double(k % 3) / 3),
                                 .set(address: "master.volume", value: Double(1 + k % 4) / 4)]
            }
        } else {
            switch k % 7 {
            case 0: commands = [.set(address: "eq.bands[\(k % 2)].gain", value: Double(k % 9) - 4)]
            case 1: commands = [.set(address: "g.volume", value: Double(k % 10) / 10)]
            case 2: commands = [.bypass(node: "pk", on: k % 4 == 2), .set(address: "comp.threshold", value: Double(-(k % 40))),
                                .set(address: "lim.ceiling", value: Double(-(k % 6)))]
            case 3: commands = [.insert(position: 0, node: .object(["type": .string("gain"), "id": .string("extra"), "gain": .number(-1)]))]
            case 4: commands = engine.preset.allIDs.contains("extra") ? [.remove(node: "extra")] : []
            case 5: commands = [.set(address: "pitch.semitones", value: Double(k % 25) - 12)]
            default: commands = [.set(address: "pan.pan", value: Double(k % 5) / 5 - 0.4), .set(address: "lc.volume", value: Double(-(k % 50)))]
            }
        }
        for c in commands { _ = try interpreter.perform(c) }
        if k % 50 == 49 {
            try engine.load(document: PresetDecoder.parse(Data(alternative.utf8)))
            try engine.load(document: PresetDecoder.parse(Data((isGraph ? graph : chain).utf8)))
        }
    }

    /// An interpreter over `engine` that loads documents from JSON text only (no files).
    public static func interpreter(_ engine: LiveEngine) -> ControlInterpreter {
        ControlInterpreter(engine: engine, loadDocument: { text in (try PresetDecoder.parse(Data(text.utf8)), "inline") })
    }
}

extension LiveEngine {
    /// Applies one control command through the real interpreter and editor (as `timbre live` does).
    public func apply(_ command: ControlCommand) throws(ControlError) {
        _ = try EveryNodePresets.interpreter(self).perform(command)
    }
}
