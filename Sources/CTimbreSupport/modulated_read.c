// One voice of a chorus or flanger over a chunk: each frame's delay worked out from the
// oscillator (drawn straight across 8-frame segments of the stream), its line read by
// four-point Lagrange interpolation (Laakso et al. 1996, §3.3; the weights as in the Swift
// `LagrangeRead`), added into the chunk's taps. Runtime CPU dispatch as in dot_product.c: an
// AVX2+FMA version (8 lanes, gathers) when the CPU has it, chosen once at load; a portable one
// otherwise. Each version gives the same value for a frame wherever a chunk starts (the
// lanes of a segment are the same arithmetic whether or not the chunk covers them all).
#include "CTimbreSupport.h"
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// The lane arithmetic, scalar: frame i's delay from its segment's oscillator values.
static inline float lagrange_tap(const float *ring, int32_t mask, int32_t position, float delay, float longest) {
    float d = delay < 2.0f ? 2.0f : (delay > longest ? longest : delay);
    int32_t whole = (int32_t)d;
    float p = 1.0f - (d - (float)whole);
    int32_t base = position - whole - 1;
    float ym = ring[(base - 1) & mask], y0 = ring[base & mask], y1 = ring[(base + 1) & mask], y2 = ring[(base + 2) & mask];
    float bc = p * (p - 1.0f), ad = (p + 1.0f) * (p - 2.0f);
    float wm = -bc * (p - 2.0f) * (1.0f / 6.0f), w0 = ad * (p - 1.0f) * 0.5f;
    float w1 = -ad * p * 0.5f, w2 = (p + 1.0f) * bc * (1.0f / 6.0f);
    return (wm * ym + w0 * y0) + (w1 * y1 + w2 * y2);
}

static void modulated_voice_portable(const float *ring, int64_t mask, int64_t t0, int n, const float *us,
                                     const float *centres, const float *depths, float longest, float *taps) {
    int64_t first = -(t0 & 7);
    int32_t m = (int32_t)mask, origin = (int32_t)(t0 & mask);
    for (int j = 0; first < n; j++, first += 8) {
        float u0 = us[j], du = (us[j + 1] - us[j]) * 0.125f;
        for (int k = 0; k < 8; k++) {
            int64_t i = first + k;
            if (i < 0 || i >= n) continue;
            float u = u0 + du * (float)k;
            float delay = centres[i] + depths[i] * (2.0f * u - 1.0f);
            taps[i] += lagrange_tap(ring, m, origin + (int32_t)i, delay, longest);
        }
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma")))
static void modulated_voice_avx2(const float *ring, int64_t mask, int64_t t0, int n, const float *us,
                                 const float *centres, const float *depths, float longest, float *taps) {
    int64_t first = -(t0 & 7);
    const __m256 lane = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i lanei = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f), half = _mm256_set1_ps(0.5f), sixth = _mm256_set1_ps(1.0f / 6.0f);
    const __m256 low = _mm256_set1_ps(2.0f), high = _mm256_set1_ps(longest);
    const __m256i m = _mm256_set1_epi32((int32_t)mask), onei = _mm256_set1_epi32(1);
    const int32_t origin = (int32_t)(t0 & mask);
    for (int j = 0; first < n; j++, first += 8) {
        // Lanes outside the chunk read (masked, in the ring) and are dropped below.
        float u0 = us[j], du = (us[j + 1] - us[j]) * 0.125f;
        __m256 u = _mm256_add_ps(_mm256_set1_ps(u0), _mm256_mul_ps(_mm256_set1_ps(du), lane));
        __m256 c = _mm256_loadu_ps(centres + first), dep = _mm256_loadu_ps(depths + first);
        __m256 delay = _mm256_add_ps(c, _mm256_mul_ps(dep, _mm256_sub_ps(_mm256_mul_ps(two, u), one)));
        delay = _mm256_min_ps(_mm256_max_ps(delay, low), high);
        __m256i whole = _mm256_cvttps_epi32(delay);
        __m256 p = _mm256_sub_ps(one, _mm256_sub_ps(delay, _mm256_cvtepi32_ps(whole)));
        __m256i base = _mm256_sub_epi32(_mm256_add_epi32(_mm256_set1_epi32(origin + (int32_t)first), lanei), _mm256_add_epi32(whole, onei));
        __m256 ym = _mm256_i32gather_ps(ring, _mm256_and_si256(_mm256_sub_epi32(base, onei), m), 4);
        __m256 y0 = _mm256_i32gather_ps(ring, _mm256_and_si256(base, m), 4);
        __m256 y1 = _mm256_i32gather_ps(ring, _mm256_and_si256(_mm256_add_epi32(base, onei), m), 4);
        __m256 y2 = _mm256_i32gather_ps(ring, _mm256_and_si256(_mm256_add_epi32(base, _mm256_add_epi32(onei, onei)), m), 4);
        __m256 bc = _mm256_mul_ps(p, _mm256_sub_ps(p, one)), ad = _mm256_mul_ps(_mm256_add_ps(p, one), _mm256_sub_ps(p, two));
        __m256 wm = _mm256_mul_ps(_mm256_mul_ps(bc, _mm256_sub_ps(two, p)), sixth);
        __m256 w0 = _mm256_mul_ps(_mm256_mul_ps(ad, _mm256_sub_ps(p, one)), half);
        __m256 w1 = _mm256_mul_ps(_mm256_mul_ps(ad, p), _mm256_set1_ps(-0.5f));
        __m256 w2 = _mm256_mul_ps(_mm256_mul_ps(_mm256_add_ps(p, one), bc), sixth);
        __m256 sum = _mm256_add_ps(_mm256_fmadd_ps(wm, ym, _mm256_mul_ps(w0, y0)), _mm256_fmadd_ps(w1, y1, _mm256_mul_ps(w2, y2)));
        if (first >= 0 && first + 8 <= n) {
            _mm256_storeu_ps(taps + first, _mm256_add_ps(_mm256_loadu_ps(taps + first), sum));
        } else {
            float lanes[8];
            _mm256_storeu_ps(lanes, sum);
            for (int k = 0; k < 8; k++) {
                int64_t i = first + k;
                if (i >= 0 && i < n) taps[i] += lanes[k];
            }
        }
    }
}
#endif

typedef void (*modulated_voice_fn)(const float *, int64_t, int64_t, int, const float *, const float *, const float *, float, float *);
static modulated_voice_fn modulated_voice_impl = modulated_voice_portable;

__attribute__((constructor))
static void choose_modulated_voice(void) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !timbre_avx2_disabled()) modulated_voice_impl = modulated_voice_avx2;
#endif
}

void timbre_modulated_voice(const float *ring, int64_t mask, int64_t t0, int n, const float *us,
                            const float *centres, const float *depths, float longest, float *taps) {
    modulated_voice_impl(ring, mask, t0, n, us, centres, depths, longest, taps);
}

void timbre_modulated_voice_portable(const float *ring, int64_t mask, int64_t t0, int n, const float *us,
                                     const float *centres, const float *depths, float longest, float *taps) {
    modulated_voice_portable(ring, mask, t0, n, us, centres, depths, longest, taps);
}
