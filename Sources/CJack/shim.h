#include <jack/jack.h>
#include <jack/types.h>

/// `jack_client_open` is variadic and Swift cannot call variadic C functions:
/// this fixed-arity wrapper opens a client without a server name.
static inline jack_client_t *timbre_jack_client_open(const char *name, jack_options_t options,
                                                     jack_status_t *status) {
    return jack_client_open(name, options, status);
}
