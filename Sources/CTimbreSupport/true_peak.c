// The inner loop of TruePeakMeter (TimbreDSP): per input sample, every interpolated phase of
// a 16-tap polyphase FIR (2× or 4× oversampling) at once — the phases are the lanes of one
// 4-lane vector, the taps stored lag-major — and a running per-lane peak of |value|. SSE on
// x86-64 (baseline, no dispatch), plain loops elsewhere. No allocation, no locks.
#include "CTimbreSupport.h"
#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Writes sample v twice into the doubled history, advances the write position, raises the
// sample peak, and returns the window: the last 16 samples, oldest first.
static inline const float *push(float *history, size_t *at, float v, float *peak) {
    history[*at] = v; history[*at + 16] = v;
    *at = *at + 1 == 16 ? 0 : *at + 1;
    *peak = fmaxf(*peak, fabsf(v));
    return history + *at;
}

float timbre_true_peak_block(const float *taps, float *history, size_t *cursor, const float *x, size_t frames, float peak) {
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
