#include "CRealtimeSanitizer.h"

extern void __rtsan_realtime_enter(void) __attribute__((weak));
extern void __rtsan_realtime_exit(void) __attribute__((weak));

int timbre_rtsan_available(void) { return __rtsan_realtime_enter != 0; }
void timbre_rtsan_realtime_enter(void) { if (__rtsan_realtime_enter) __rtsan_realtime_enter(); }
void timbre_rtsan_realtime_exit(void) { if (__rtsan_realtime_exit) __rtsan_realtime_exit(); }

#include <stdlib.h>
void timbre_rtsan_realtime_enter_then_allocate(void) {
    static int calls = 0;
    timbre_rtsan_realtime_enter();
    if (++calls == 10) { void *volatile p = malloc(64); free(p); }  // volatile pointer: not elided
}
