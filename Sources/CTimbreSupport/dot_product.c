// Double-precision dot products for the resampler, with runtime CPU dispatch: an AVX2+FMA
// version when the CPU has it (chosen once, when the library loads), a portable one otherwise.
// Both keep 8 partial sums; results differ only in rounding (FMA, reduction order).
#include "CTimbreSupport.h"
#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Portable: 8 independent partial sums (lane k of i ≡ k mod 8), then a fixed reduction.
static void dot2_portable(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1) {
    double s[8] = {0}, t[8] = {0};
    for (size_t i = 0; i < n; i += 8) {
        for (int k = 0; k < 8; k++) { s[k] += c[i + k] * x0[i + k]; t[k] += c[i + k] * x1[i + k]; }
    }
    *y0 = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
    *y1 = ((t[0] + t[4]) + (t[1] + t[5])) + ((t[2] + t[6]) + (t[3] + t[7]));
}

static double dot_portable(const double *c, const double *x, size_t n) {
    double s[8] = {0};
    for (size_t i = 0; i < n; i += 8) {
        for (int k = 0; k < 8; k++) s[k] += c[i + k] * x[i + k];
    }
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma")))
static inline double reduce(__m256d a, __m256d b) {
    __m256d s = _mm256_add_pd(a, b);  // lanes k and k+4
    __m128d lo = _mm256_castpd256_pd128(s), hi = _mm256_extractf128_pd(s, 1);
    __m128d q = _mm_add_pd(lo, hi);    // (0+4)+(2+6), (1+5)+(3+7)
    return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
}

// Two channels share every coefficient load; two accumulators per channel per 4 lanes hide
// the FMA latency.
__attribute__((target("avx2,fma")))
static void dot2_avx2(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, t0 = s0, t1 = s0;
    for (size_t i = 0; i < n; i += 8) {
        __m256d c0 = _mm256_loadu_pd(c + i), c1 = _mm256_loadu_pd(c + i + 4);
        s0 = _mm256_fmadd_pd(c0, _mm256_loadu_pd(x0 + i), s0);
        s1 = _mm256_fmadd_pd(c1, _mm256_loadu_pd(x0 + i + 4), s1);
        t0 = _mm256_fmadd_pd(c0, _mm256_loadu_pd(x1 + i), t0);
        t1 = _mm256_fmadd_pd(c1, _mm256_loadu_pd(x1 + i + 4), t1);
    }
    *y0 = reduce(s0, s1);
    *y1 = reduce(t0, t1);
}

__attribute__((target("avx2,fma")))
static double dot_avx2(const double *c, const double *x, size_t n) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0;
    for (size_t i = 0; i < n; i += 8) {
        s0 = _mm256_fmadd_pd(_mm256_loadu_pd(c + i), _mm256_loadu_pd(x + i), s0);
        s1 = _mm256_fmadd_pd(_mm256_loadu_pd(c + i + 4), _mm256_loadu_pd(x + i + 4), s1);
    }
    return reduce(s0, s1);
}
#endif

static void (*dot2_impl)(const double *, const double *, const double *, size_t, double *, double *) = dot2_portable;
static double (*dot_impl)(const double *, const double *, size_t) = dot_portable;
static int has_avx2_fma = 0;

__attribute__((constructor))
static void choose_kernels(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !timbre_avx2_disabled()) {
        dot2_impl = dot2_avx2;
        dot_impl = dot_avx2;
        has_avx2_fma = 1;
    }
#endif
}

void timbre_dot2_f64(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1) {
    dot2_impl(c, x0, x1, n, y0, y1);
}

double timbre_dot_f64(const double *c, const double *x, size_t n) { return dot_impl(c, x, n); }

int timbre_cpu_has_avx2_fma(void) { return has_avx2_fma; }

void timbre_dot2_f64_portable(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1) {
    dot2_portable(c, x0, x1, n, y0, y1);
}
