#ifndef CREALTIME_SANITIZER_H
#define CREALTIME_SANITIZER_H

/// RealtimeSanitizer hooks. The symbols come from clang's `libclang_rt.rtsan` when the
/// binary is linked with it (`make rtsan`); otherwise they are absent and the calls are no-ops.
int timbre_rtsan_available(void);
void timbre_rtsan_realtime_enter(void);
void timbre_rtsan_realtime_exit(void);
/// Enters a realtime section and allocates in it on the 10th call: the self-test of a hook
/// path (RealtimeSanitizer must report it).
void timbre_rtsan_realtime_enter_then_allocate(void);

#endif
