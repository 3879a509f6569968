#ifndef CTIMBRE_SUPPORT_H
#define CTIMBRE_SUPPORT_H

/// Sets flush-to-zero and denormals-are-zero (MXCSR FTZ|DAZ) on the calling thread.
/// Returns the previous MXCSR value so a caller may restore it. No-op (returns 0) off x86.
unsigned int timbre_enable_ftz_daz(void);

/// Restores a MXCSR value returned by `timbre_enable_ftz_daz`.
void timbre_restore_mxcsr(unsigned int mxcsr);

/// 1 when FTZ and DAZ are both set on the calling thread.
int timbre_ftz_daz_enabled(void);

#endif
