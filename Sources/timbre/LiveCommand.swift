import TimbreHost
import ArgumentParser
import Atomics
import Foundation
import TimbreEngine
import TimbrePlugins
import TimbreControl
import TimbreFile
import TimbreJack
import TimbreWeb

struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Run a preset live as a JACK client; change it while it plays.",
        usage: "timbre live --preset <preset> [<options>]",
        discussion: """
        Commands on stdin, on a Unix-domain socket (--control-socket: only this \
        user can connect; replies go to the client), and over OSC (--osc-port, \
        loopback only, any local user can send) at the address shown:
          set <node>.<param> <value>     /timbre/set s f
              e.g. set eq.bands[3].gain 4, set trim.gain -6
          bypass <node> on|off           /timbre/bypass s i
          load <preset.json>             /timbre/load s
              replace the whole preset (from --presets-dir)
          save [--positions] [preset.json]
                                         /timbre/save [T|F] [s]
              write the running preset (and MIDI mappings), by default over the
              --preset file; --positions keeps where each player is
          insert <position> <node JSON>  /timbre/insert i s
              e.g. insert 0 {"type": "gain", "id": "pad", "gain": -6}
          remove <node>                  /timbre/remove s
          play|pause|stop <player>       /timbre/play s, /timbre/pause s,
                                         /timbre/stop s
              a player channel; stop pauses and rewinds
          seek <player> <seconds>        /timbre/seek s f
              sample-exact, 5 ms fades; set <player>.rate 1.5 and set <player>.loops 2
              change a playing player
          learn <node>.<param> [min max [linear|log|db]]
                                         /timbre/learn s [f f [s]]
              with --midi: bind the next controller that moves (the preset's midi
              section maps controllers, notes and program changes)
          status                         /timbre/status
              one line of JSON: preset, rate, buffer, xruns, DSP load, NaN blocks,
              meters, players
          meters                         /timbre/meters
              as JSON: the output (master: peaks, RMS, loudness) and every meter,
              loudness and dynamics node (OSC replies go to the sender)
          record start <file> [master|inputs|<channel>]
                                         /timbre/record s "start" s s
              record the output (master), the dry inputs, or a channel's or group's bus
              of a graph; several takes may run
          record stop|pause|resume|marker [label]|discard|status
                                         /timbre/record s …
          quit

        Players print looped: <id>, finished: <id> and underrun lines; an OSC \
        client that sends /timbre/subscribe receives them as /timbre/event \
        s:kind s:id.

        Filter, EQ, gain, pan, volume, mute, solo, compressor, limiter and gate values \
        (timbre presets parameters lists them) move inside the \
        running kernels; other changes crossfade over 15 ms to a new plan, so nothing \
        clicks. \
        An invalid command, datagram or preset is reported (at most 10 errors a \
        second) and the running graph is kept. OSC bundles are accepted; their \
        messages apply in order. Numbers are decimal (no nan, inf or hex); \
        switches (bypass, mute, solo) take 0/1, on/off.

        The server is found through $JACK_DEFAULT_SERVER like every JACK client. \
        Exit status: 0 after quit/SIGINT/SIGTERM, 1 for a bad preset or usage, \
        2 when JACK fails or shuts down.
        """)

    @Option(name: .long, help: "Preset JSON file or shipped preset name.") var preset: String
    @Option(name: .long, help: "JACK client name.") var name: String = "timbre"
    @Option(name: .long, help: "Number of input ports (0 for a graph of players only; default: what the preset reads, at least 2).") var inputs: Int?
    @Option(name: .long, help: "Number of output ports (default: the preset's outputs, at least 2).") var outputs: Int?
    @Option(name: .long, help: "Ports to connect to our inputs, comma-separated, in order.") var connectInputs: String?
    @Option(name: .long, help: "Ports to connect our outputs to, comma-separated, in order.") var connectOutputs: String?
    @Option(name: .long, help: "Listen for OSC on 127.0.0.1:PORT (UDP; off unless given). Any process of any user on this machine can send to it: what it carries cannot load plugin files by path, nor presets outside --presets-dir.") var oscPort: Int?
    @Flag(name: .long, help: "Open a JACK MIDI input port midi_in: the preset's midi section maps controllers, notes and program changes to parameters and commands; `learn <node>.<param>` binds the next controller that moves.") var midi = false
    @Option(name: .long, help: "MIDI ports to connect to midi_in, comma-separated (with --midi).") var connectMidi: String?
    @Option(name: .long, help: "Serve the control page at [HOST:]PORT (HOST defaults to 127.0.0.1). Loopback: any local user's browser can open it. Any other address needs a token (--http-token, or one is generated and printed in the URL).") var http: String?
    @Option(name: .long, help: "The token the control page needs (required beyond loopback; generated when not given).") var httpToken: String?
    @Option(name: .long, help: "Listen for commands on a Unix-domain socket at PATH, created with mode 0600: only this user can connect. One command per line, as on stdin; replies (ok:, error:, status:, meters:) go back to the client.") var controlSocket: String?
    @Option(name: .long, help: "The folder `load` commands (stdin, OSC) read presets from (default: the current one).") var presetsDir: String = "."
    @Flag(name: .long, help: "Let `load` commands read presets from any path.") var allowAnyPath = false
    @Flag(name: .long, help: "Reload the preset file when it changes.") var watch = false
    @Flag(name: .long, help: "Print a meter line about ten times a second: the output (master) and every meter, loudness and dynamics node.") var meters = false

    func run() throws {
        var o = LiveSession.Options(preset: preset)
        o.clientName = name; o.inputs = inputs; o.outputs = outputs
        o.connectInputs = Self.list(connectInputs); o.connectOutputs = Self.list(connectOutputs)
        o.oscPort = oscPort; o.midi = midi; o.connectMIDI = Self.list(connectMidi)
        o.http = http; o.httpToken = httpToken; o.controlSocket = controlSocket
        o.presetsFolder = presetsDir; o.allowAnyPath = allowAnyPath; o.watch = watch; o.meters = meters
        o.playerReadDelay = Double(ProcessInfo.processInfo.environment["TIMBRE_TEST_READ_DELAY_MS"] ?? "").map { $0 / 1000 } ?? 0
        LiveSession.stopOnSignals()
        let session = try LiveSession(o, say: Console.say, reportError: Console.error, reportWarning: Console.warning)
        let status = session.run()
        if status != 0 { throw ExitCode(status) }
    }

    static func list(_ text: String?) -> [String] { text?.split(separator: ",").map(String.init) ?? [] }
}
