#include <fftw3.h>

/// `fftwf_version` is a C array global; Swift imports it awkwardly, so expose it as a function.
static inline const char *timbre_fftwf_version(void) { return fftwf_version; }
