#include <jack/jack.h>
#include <jack/thread.h>
#include <jack/types.h>

/// `jack_client_open` is variadic and Swift cannot call variadic C functions:
/// fixed-arity wrapper; never starts a server (JackNoStartServer), uses $JACK_DEFAULT_SERVER.
static inline jack_client_t *timbre_jack_client_open(const char *name, jack_status_t *status) {
    return jack_client_open(name, JackNoStartServer, status);
}

/// Registers a mono audio port (`JACK_DEFAULT_AUDIO_TYPE` is a macro string).
static inline jack_port_t *timbre_jack_register_audio_port(jack_client_t *client, const char *name, int is_input) {
    return jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE,
                              is_input ? JackPortIsInput : JackPortIsOutput, 0);
}

#include <jack/midiport.h>

/// Registers a MIDI input port (`JACK_DEFAULT_MIDI_TYPE` is a macro string).
static inline jack_port_t *timbre_jack_register_midi_port(jack_client_t *client, const char *name, int is_input) {
    return jack_port_register(client, name, JACK_DEFAULT_MIDI_TYPE,
                              is_input ? JackPortIsInput : JackPortIsOutput, 0);
}
