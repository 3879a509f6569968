#ifndef CTIMBRE_SUPPORT_H
#define CTIMBRE_SUPPORT_H

/// Sets flush-to-zero and denormals-are-zero (MXCSR FTZ|DAZ) on the calling thread.
/// Returns the previous MXCSR value so a caller may restore it. No-op (returns 0) off x86.
unsigned int timbre_enable_ftz_daz(void);

/// Restores a MXCSR value returned by `timbre_enable_ftz_daz`.
void timbre_restore_mxcsr(unsigned int mxcsr);

/// 1 when FTZ and DAZ are both set on the calling thread.
int timbre_ftz_daz_enabled(void);

#include <stddef.h>

/// Σ c[i]·x[i] for i < n (n a multiple of 8), in Double: AVX2+FMA when the CPU has it.
double timbre_dot_f64(const double *c, const double *x, size_t n);

/// Two dot products sharing the coefficients `c`: *y0 = c·x0, *y1 = c·x1 (n a multiple of 8).
void timbre_dot2_f64(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1);

/// 1 when the AVX2+FMA kernels were chosen at load time.
int timbre_cpu_has_avx2_fma(void);

/// The portable `timbre_dot2_f64`, always (tests compare the dispatched kernel with it).
void timbre_dot2_f64_portable(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1);

#endif
