import CJack
import Foundation

/// A thin owner of a `jack_client_t`: open, ports, activation, connections, queries.
/// Callbacks are installed by its users (``JackHost`` and test clients) with C function
/// pointers and a context pointer, never with retained Swift objects.
package final class JackClient: @unchecked Sendable {
    package let client: OpaquePointer
    package let name: String
    package private(set) var inputPorts: [OpaquePointer] = []
    package private(set) var outputPorts: [OpaquePointer] = []
    private var active = false
    private var closed = false

    /// Opens a client on the default server (`$JACK_DEFAULT_SERVER`); never starts one.
    /// libjack's own console chatter is silenced (our errors say what failed) unless
    /// `TIMBRE_JACK_VERBOSE` is set.
    package init(name: String) throws(JackError) {
        if ProcessInfo.processInfo.environment["TIMBRE_JACK_VERBOSE"] == nil {
            jack_set_error_function { _ in }
            jack_set_info_function { _ in }
        }
        var status = jack_status_t(rawValue: 0)
        guard let c = timbre_jack_client_open(name, &status) else {
            var why = "cannot connect to the JACK server"
            if status.rawValue & JackServerFailed.rawValue != 0 { why += " (is jackd running? JACK_DEFAULT_SERVER=\(ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"] ?? "default"))" }
            if status.rawValue & JackNameNotUnique.rawValue != 0 { why = "a JACK client named \(name) already exists" }
            throw JackError(why + String(format: " [status 0x%x]", status.rawValue))
        }
        client = c
        self.name = String(cString: jack_get_client_name(c))
    }

    deinit { close() }

    /// Registers `count` audio ports named `prefix_1…`.
    package func registerPorts(prefix: String, count: Int, input: Bool) throws(JackError) {
        guard count > 0 else { return }  // none: a player-only host without inputs
        for k in 1...count {
            guard let p = timbre_jack_register_audio_port(client, "\(prefix)_\(k)", input ? 1 : 0) else {
                throw JackError("cannot register port \(prefix)_\(k)")
            }
            if input { inputPorts.append(p) } else { outputPorts.append(p) }
        }
    }

    /// Registers a MIDI input port.
    package func registerMIDIInput(name: String) throws(JackError) -> OpaquePointer {
        guard let p = timbre_jack_register_midi_port(client, name, 1) else { throw JackError("cannot register MIDI port \(name)") }
        return p
    }

    /// Registers a MIDI output port (test clients that play MIDI).
    package func registerMIDIOutput(name: String) throws(JackError) -> OpaquePointer {
        guard let p = timbre_jack_register_midi_port(client, name, 0) else { throw JackError("cannot register MIDI port \(name)") }
        return p
    }

    package func activate() throws(JackError) {
        guard jack_activate(client) == 0 else { throw JackError("cannot activate the JACK client") }
        active = true
    }

    /// Connects two ports by full name (`client:port`).
    package func connect(_ source: String, _ destination: String) throws(JackError) {
        let rc = jack_connect(client, source, destination)
        if rc != 0 && rc != EEXIST { throw JackError("cannot connect \(source) → \(destination) (error \(rc))") }
    }

    package func disconnect(_ source: String, _ destination: String) {
        _ = jack_disconnect(client, source, destination)
    }

    package func fullName(of port: OpaquePointer) -> String { String(cString: jack_port_name(port)) }
    package var sampleRate: Int { Int(jack_get_sample_rate(client)) }
    package var bufferSize: Int { Int(jack_get_buffer_size(client)) }
    /// DSP load of the whole graph in percent, as JACK reports it.
    package var cpuLoad: Double { Double(jack_cpu_load(client)) }

    /// Names of the ports connected to `port`.
    package func connections(of port: OpaquePointer) -> [String] {
        guard let list = jack_port_get_connections(port) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var out: [String] = []
        var i = 0
        while let p = list[i] { out.append(String(cString: p)); i += 1 }
        return out
    }

    /// Name of a port by id (for connect notifications).
    package func portName(id: jack_port_id_t) -> String {
        guard let p = jack_port_by_id(client, id) else { return "port#\(id)" }
        return String(cString: jack_port_name(p))
    }

    /// Deactivates and closes (idempotent).
    package func close() {
        if closed { return }
        closed = true
        if active { jack_deactivate(client) }
        jack_client_close(client)
    }
}
