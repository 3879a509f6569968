#include <stdlib.h>
#include "CTimbreSupport.h"
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define TIMBRE_FTZ_DAZ 0x8040u /* FTZ (bit 15) | DAZ (bit 6) */
unsigned int timbre_enable_ftz_daz(void) {
    unsigned int old = _mm_getcsr();
    _mm_setcsr(old | TIMBRE_FTZ_DAZ);
    return old;
}
void timbre_restore_mxcsr(unsigned int mxcsr) { _mm_setcsr(mxcsr); }
int timbre_ftz_daz_enabled(void) { return (_mm_getcsr() & TIMBRE_FTZ_DAZ) == TIMBRE_FTZ_DAZ; }
void timbre_set_ftz_daz(int on) { unsigned int c = _mm_getcsr(); _mm_setcsr(on ? (c | TIMBRE_FTZ_DAZ) : (c & ~TIMBRE_FTZ_DAZ)); }
#else
unsigned int timbre_enable_ftz_daz(void) { return 0; }
void timbre_restore_mxcsr(unsigned int mxcsr) { (void)mxcsr; }
int timbre_ftz_daz_enabled(void) { return 0; }
void timbre_set_ftz_daz(int on) { (void)on; }
#endif

int timbre_avx512_disabled(void) {
    const char *v = getenv("TIMBRE_NO_AVX512");
    return v != NULL && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}

int timbre_avx2_disabled(void) {
    const char *v = getenv("TIMBRE_NO_AVX2");
    return v != NULL && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}
