// Convolution inner loops (PartitionedConvolver), with runtime CPU dispatch as the biquad and
// dot-product kernels: an AVX2+FMA version when the CPU has it (chosen once, when the library
// loads), a portable one otherwise. Every result is summed in a fixed order, so the output
// does not depend on block sizes; the two versions differ only in rounding (FMA).
#include "CTimbreSupport.h"
#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// y[i] = Σ_k taps[k]·window[i + k]: eight partial sums (lane k mod 8), then a fixed reduction.
static void fir_block_portable(const float *restrict taps, const float *restrict window, size_t count, float *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const float *x = window + i;
        float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        size_t k = 0;
        for (; k + 8 <= count; k += 8) {
            for (int l = 0; l < 8; l++) s[l] += taps[k + l] * x[k + l];
        }
        for (; k < count; k++) s[k & 7] += taps[k] * x[k];
        y[i] = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
    }
}

// sum[k] += x[k]·g[k], complex, interleaved.
static void complex_mac_portable(float *restrict sum, const float *restrict x, const float *restrict g, size_t bins) {
    for (size_t k = 0; k < bins; k++) {
        float xr = x[2 * k], xi = x[2 * k + 1], gr = g[2 * k], gi = g[2 * k + 1];
        sum[2 * k] += xr * gr - xi * gi;
        sum[2 * k + 1] += xr * gi + xi * gr;
    }
}

#if defined(__x86_64__)
// The same sums, eight lanes at once: lane l holds the partial sum of taps k ≡ l (mod 8),
// reduced as the portable version reduces (0+4, 1+5, 2+6, 3+7, then pairs).
__attribute__((target("avx2,fma")))
static void fir_block_avx2(const float *restrict taps, const float *restrict window, size_t count, float *restrict y, size_t n) {
    const size_t whole = count & ~(size_t)7;
    for (size_t i = 0; i < n; i++) {
        const float *x = window + i;
        __m256 s = _mm256_setzero_ps();
        for (size_t k = 0; k < whole; k += 8) s = _mm256_fmadd_ps(_mm256_loadu_ps(taps + k), _mm256_loadu_ps(x + k), s);
        float l[8];
        _mm256_storeu_ps(l, s);
        for (size_t k = whole; k < count; k++) l[k & 7] += taps[k] * x[k];
        y[i] = ((l[0] + l[4]) + (l[1] + l[5])) + ((l[2] + l[6]) + (l[3] + l[7]));
    }
}

// Four complex products a vector: re = xr·gr − xi·gi, im = xi·gr + xr·gi, as
// fmaddsub(x, gr gr, swap(x)·(gi gi)).
__attribute__((target("avx2,fma")))
static void complex_mac_avx2(float *restrict sum, const float *restrict x, const float *restrict g, size_t bins) {
    size_t k = 0;
    for (; k + 4 <= bins; k += 4) {
        __m256 xv = _mm256_loadu_ps(x + 2 * k), gv = _mm256_loadu_ps(g + 2 * k);
        __m256 gr = _mm256_moveldup_ps(gv), gi = _mm256_movehdup_ps(gv);
        __m256 swapped = _mm256_permute_ps(xv, 0xB1);
        __m256 p = _mm256_fmaddsub_ps(xv, gr, _mm256_mul_ps(swapped, gi));
        _mm256_storeu_ps(sum + 2 * k, _mm256_add_ps(_mm256_loadu_ps(sum + 2 * k), p));
    }
    complex_mac_portable(sum + 2 * k, x + 2 * k, g + 2 * k, bins - k);
}
#endif

typedef void (*fir_block_fn)(const float *, const float *, size_t, float *, size_t);
typedef void (*complex_mac_fn)(float *, const float *, const float *, size_t);
static fir_block_fn fir_block_impl = fir_block_portable;
static complex_mac_fn complex_mac_impl = complex_mac_portable;

__attribute__((constructor))
static void choose_convolution_kernels(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !timbre_avx2_disabled()) {
        fir_block_impl = fir_block_avx2;
        complex_mac_impl = complex_mac_avx2;
    }
#endif
}

void timbre_fir_block(const float *taps, const float *window, size_t count, float *y, size_t n) { fir_block_impl(taps, window, count, y, n); }

void timbre_complex_mac(float *sum, const float *x, const float *g, size_t bins) { complex_mac_impl(sum, x, g, bins); }
