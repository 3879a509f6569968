// The inner loop of TruePeakMeter (TimbreDSP): per input sample, every interpolated phase of
// a 16-tap polyphase FIR (2× or 4× oversampling) at once — the phases are the lanes of one
// 4-lane vector, the taps stored lag-major — and a running per-lane peak of |value|. SSE on
// x86-64 (baseline), plain loops elsewhere. No allocation, no locks.
//
// With AVX2+FMA (chosen once at load, like the biquad cascade; TIMBRE_NO_AVX2=1 keeps the SSE
// path) the loop turns around: eight consecutive output samples per vector, one phase at a
// time, each tap an FMA of a broadcast coefficient and an unaligned load of the input shifted
// by the tap's lag (a plain FIR, Lyons, "Understanding DSP", 3rd ed., §5.2), over a linear
// copy of the last 15 samples and a chunk of the block. 8 FMAs per sample instead of 32
// SSE operations.
#include "CTimbreSupport.h"
#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Writes sample v twice into the doubled history, advances the write position, raises the
// sample peak, and returns the window: the last 16 samples, oldest first.
static inline const float *push(float *history, size_t *at, float v, float *peak) {
    history[*at] = v; history[*at + 16] = v;
    *at = *at + 1 == 16 ? 0 : *at + 1;
    *peak = fmaxf(*peak, fabsf(v));
    return history + *at;
}

static float true_peak_portable(const float *taps, float *history, size_t *cursor, const float *x, size_t frames, float peak) {
    size_t at = *cursor;
#if defined(__SSE2__)
    const __m128 sign = _mm_set1_ps(-0.0f);
    __m128 peaks = _mm_setzero_ps();
    for (size_t i = 0; i < frames; i++) {
        const float *w = push(history, &at, x[i], &peak);
        __m128 a = _mm_mul_ps(_mm_loadu_ps(taps), _mm_set1_ps(w[0]));
        __m128 b = _mm_mul_ps(_mm_loadu_ps(taps + 4), _mm_set1_ps(w[1]));
        for (int k = 2; k < 16; k += 2) {
            a = _mm_add_ps(a, _mm_mul_ps(_mm_loadu_ps(taps + 4 * k), _mm_set1_ps(w[k])));
            b = _mm_add_ps(b, _mm_mul_ps(_mm_loadu_ps(taps + 4 * k + 4), _mm_set1_ps(w[k + 1])));
        }
        peaks = _mm_max_ps(peaks, _mm_andnot_ps(sign, _mm_add_ps(a, b)));
    }
    float lanes[4];
    _mm_storeu_ps(lanes, peaks);
    for (int p = 0; p < 4; p++) peak = fmaxf(peak, lanes[p]);
#else
    for (size_t i = 0; i < frames; i++) {
        const float *w = push(history, &at, x[i], &peak);
        for (int p = 0; p < 4; p++) {
            float a = 0, b = 0;
            for (int k = 0; k < 16; k += 2) { a += taps[4 * k + p] * w[k]; b += taps[4 * k + 4 + p] * w[k + 1]; }
            peak = fmaxf(peak, fabsf(a + b));
        }
    }
#endif
    *cursor = at;
    return peak;
}

#if defined(__x86_64__)
enum { CHUNK = 256, LAGS = 16 };

__attribute__((target("avx2,fma")))
static float true_peak_avx2(const float *taps, float *history, size_t *cursor, const float *x, size_t frames, float peak) {
    // line[j] = the sample 15 before x[j - 15 + 15]: the 15 samples before the chunk, the chunk, and
    // 8 zeros so the last vector may read past the chunk (its extra lanes are masked out).
    float line[LAGS - 1 + CHUNK + 8] __attribute__((aligned(32)));
    memcpy(line, history + *cursor + 1, (LAGS - 1) * sizeof(float));
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 peaks = _mm256_setzero_ps();
    __m256 samples = _mm256_setzero_ps();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    float oldest = 0;  // the 16th-latest sample once the loop is done
    for (size_t start = 0; start < frames; start += CHUNK) {
        const size_t n = frames - start < CHUNK ? frames - start : CHUNK;
        memcpy(line + LAGS - 1, x + start, n * sizeof(float));
        memset(line + LAGS - 1 + n, 0, 8 * sizeof(float));
        for (size_t i = 0; i < n; i += 8) {
            const __m256 valid = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)), lane));
            __m256 y[4], z[4];
            for (int p = 0; p < 4; p++) { y[p] = _mm256_setzero_ps(); z[p] = _mm256_setzero_ps(); }
            for (int k = 0; k < LAGS; k += 2) {
                const __m256 w0 = _mm256_loadu_ps(line + i + k), w1 = _mm256_loadu_ps(line + i + k + 1);
                for (int p = 0; p < 4; p++) {
                    y[p] = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + 4 * k + p), w0, y[p]);
                    z[p] = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + 4 * k + 4 + p), w1, z[p]);
                }
            }
            for (int p = 0; p < 4; p++)
                peaks = _mm256_max_ps(peaks, _mm256_and_ps(valid, _mm256_andnot_ps(sign, _mm256_add_ps(y[p], z[p]))));
            samples = _mm256_max_ps(samples, _mm256_andnot_ps(sign, _mm256_loadu_ps(line + LAGS - 1 + i)));
        }
        oldest = line[n - 1];
        memmove(line, line + n, (LAGS - 1) * sizeof(float));
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, _mm256_max_ps(peaks, samples));
    for (int p = 0; p < 8; p++) peak = fmaxf(peak, lanes[p]);
    // The ring again holds the last 16 samples, oldest first, from position 0.
    if (frames > 0) {
        float last[LAGS];
        last[0] = oldest;
        memcpy(last + 1, line, (LAGS - 1) * sizeof(float));
        memcpy(history, last, LAGS * sizeof(float));
        memcpy(history + LAGS, last, LAGS * sizeof(float));
        *cursor = 0;
    }
    return peak;
}
#endif

typedef float (*true_peak_fn)(const float *, float *, size_t *, const float *, size_t, float);
static true_peak_fn true_peak_impl = true_peak_portable;

__attribute__((constructor))
static void choose_true_peak(void) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !timbre_avx2_disabled()) true_peak_impl = true_peak_avx2;
#endif
}

float timbre_true_peak_block(const float *taps, float *history, size_t *cursor, const float *x, size_t frames, float peak) {
    return true_peak_impl(taps, history, cursor, x, frames, peak);
}

float timbre_true_peak_block_portable(const float *taps, float *history, size_t *cursor, const float *x, size_t frames, float peak) {
    return true_peak_portable(taps, history, cursor, x, frames, peak);
}

int timbre_true_peak_uses_avx2(void) { return true_peak_impl != true_peak_portable; }
