import TimbreHost
import ArgumentParser
import Foundation
import TimbreControl
import TimbreEngine
import TimbreFile
import TimbreJack
import TimbrePlugins

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record JACK inputs, dry or through a preset, to a sound file that survives a crash.",
        usage: "timbre record -o <take.wav> [<options>]",
        discussion: """
        A JACK client with --channels input ports (or one per --inputs port, which it \
        connects). Without --preset the inputs are recorded as they arrive; with one, \
        its output (also on the client's output ports) — add --dry to record the \
        inputs all the same. Recording starts at once; with --pre-roll S (or \
        --armed) the client waits for `record`, and the take begins S seconds before \
        it. --duration stops after exactly that many seconds of frames.

        Commands on stdin (and OSC with --osc-port, /timbre/record s…):
          record | pause | resume | stop | marker [label] | discard | status | quit
        Pause and resume join the parts with 5 ms fades. Markers and every JACK xrun \
        become cue points (WAV, RF64) and entries in the sidecar <take>.json, with \
        overruns (frames the ring had no room for, written as silence at their place).

        The file is written under its own name (an existing file is never replaced); \
        once a second its header is brought up to date and the data flushed to the \
        disk, so a crash loses at most the last second or two; `timbre repair` fixes \
        what is left. SIGINT, SIGTERM, quit, the JACK server shutting down and a full \
        disk all close the file properly. A WAV take switches to RF64 past 4 GiB.

        Exit status: 0 the take was written, 1 usage, 2 JACK or write failure.
        """)

    @Option(name: .shortAndLong, help: "The take's file (.wav, .rf64, .w64, .caf, .flac, .aiff).") var output: String
    @Option(name: .long, help: "Record through this preset (file or shipped name).") var preset: String?
    @Flag(name: .long, help: "With --preset: record the inputs, not the preset's output.") var dry = false
    @Option(name: .long, help: "JACK ports to record, comma-separated (connected to our inputs in order).") var inputs: String?
    @Option(name: .long, help: "Input ports when --inputs is not given (1…64).") var channels: Int?
    @Option(name: .long, help: "Stop after this many seconds.") var duration: Double?
    @Option(name: .long, help: "Container (default from the extension).") var format: String?
    @Option(name: .long, help: "pcm16, pcm24, pcm32, float or double (default pcm24).") var encoding: String?
    @Option(name: .long, help: "Seconds before `record` to keep in the take (waits for `record`).") var preRoll: Double = 0
    @Flag(name: .long, help: "Wait for `record` before recording.") var armed = false
    @Option(name: .long, help: "Seconds the ring between the audio and disk threads holds (4…60).") var ring: Double = 4
    @Flag(name: .long, help: "Print a meter line about ten times a second.") var meters = false
    @Option(name: .long, help: "JACK client name.") var name: String = "timbre-record"
    @Option(name: .long, help: "Listen for OSC on 127.0.0.1:PORT (UDP).") var oscPort: Int?

    func run() throws {
        var o = RecordSession.Options(output: output)
        o.preset = preset; o.dry = dry
        o.inputs = inputs?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        o.channels = channels; o.durationSeconds = duration; o.format = format; o.encoding = encoding
        o.preRollSeconds = preRoll; o.armed = armed; o.ringSeconds = ring; o.meters = meters; o.clientName = name; o.oscPort = oscPort
        LiveSession.stopOnSignals()
        let session = try RecordSession(o, say: Console.say, reportError: Console.error)
        let status = session.run()
        if status != 0 { throw ExitCode(status) }
    }
}
