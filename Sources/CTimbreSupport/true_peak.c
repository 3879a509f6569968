// The inner loop of TruePeakMeter (TimbreDSP). Per chunk of up to 256 input samples:
//
// 1. the interpolated phases: a 64-tap polyphase FIR gives the signal at p/L of a sample past
//    each input sample (L = 4 or 2; phase 0 is the sample itself), as plain loops over the
//    chunk (a FIR per phase, Lyons, "Understanding DSP", 3rd ed., §5.2) that the compiler
//    vectorises: 8 outputs per AVX2 FMA when the CPU has it, 4 per SSE operation otherwise;
// 2. the oversampled magnitudes in time order, and at each local maximum the vertex of the
//    parabola through it and its two neighbours: the peak between grid points (the grid
//    alone under-reads a sine near 0.45·fs by up to 0.55 dB at 4×; with the vertex the
//    error is under 0.05 dB; see TruePeakMeter).
//
// State per channel: the last 63 input samples (oldest first) and the last two magnitudes.
// No allocation (the chunk buffers live on the stack), no locks.
#include "CTimbreSupport.h"
#include <math.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { TP_CHUNK = 256, TP_TAPS = 64, TP_MAX_PHASES = 4 };

#if defined(__x86_64__)
// The AVX2+FMA forms of the two loops: eight outputs per vector.
__attribute__((target("avx2,fma")))
static inline void fir_avx2(const float *taps, int phases, const float *line, float (*value)[TP_CHUNK + 8], size_t n) {
    // Eight outputs of every phase at once: each window load serves all three phases (4×).
    // Three (or two) groups of eight side by side: nine independent sums, so the FMAs' latency
    // overlaps (one group's three chains of 64 wait on it). Every output still sums in tap order.
    if (phases == 4) {
        size_t i = 0;
        for (; i + 16 < n; i += 24) {
            __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps(), c0 = _mm256_setzero_ps();
            __m256 a1 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps(), c1 = _mm256_setzero_ps();
            __m256 a2 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps(), c2 = _mm256_setzero_ps();
            for (int k = 0; k < TP_TAPS; k++) {
                const __m256 ta = _mm256_broadcast_ss(taps + k), tb = _mm256_broadcast_ss(taps + TP_TAPS + k), tc = _mm256_broadcast_ss(taps + 2 * TP_TAPS + k);
                const __m256 w0 = _mm256_loadu_ps(line + i + k);
                a0 = _mm256_fmadd_ps(ta, w0, a0); b0 = _mm256_fmadd_ps(tb, w0, b0); c0 = _mm256_fmadd_ps(tc, w0, c0);
                const __m256 w1 = _mm256_loadu_ps(line + i + 8 + k);
                a1 = _mm256_fmadd_ps(ta, w1, a1); b1 = _mm256_fmadd_ps(tb, w1, b1); c1 = _mm256_fmadd_ps(tc, w1, c1);
                const __m256 w2 = _mm256_loadu_ps(line + i + 16 + k);
                a2 = _mm256_fmadd_ps(ta, w2, a2); b2 = _mm256_fmadd_ps(tb, w2, b2); c2 = _mm256_fmadd_ps(tc, w2, c2);
            }
            _mm256_storeu_ps(value[0] + i, a0); _mm256_storeu_ps(value[1] + i, b0); _mm256_storeu_ps(value[2] + i, c0);
            _mm256_storeu_ps(value[0] + i + 8, a1); _mm256_storeu_ps(value[1] + i + 8, b1); _mm256_storeu_ps(value[2] + i + 8, c1);
            _mm256_storeu_ps(value[0] + i + 16, a2); _mm256_storeu_ps(value[1] + i + 16, b2); _mm256_storeu_ps(value[2] + i + 16, c2);
        }
        for (; i + 8 < n; i += 16) {
            __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps(), c0 = _mm256_setzero_ps();
            __m256 a1 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps(), c1 = _mm256_setzero_ps();
            for (int k = 0; k < TP_TAPS; k++) {
                const __m256 w0 = _mm256_loadu_ps(line + i + k), w1 = _mm256_loadu_ps(line + i + 8 + k);
                const __m256 ta = _mm256_broadcast_ss(taps + k), tb = _mm256_broadcast_ss(taps + TP_TAPS + k), tc = _mm256_broadcast_ss(taps + 2 * TP_TAPS + k);
                a0 = _mm256_fmadd_ps(ta, w0, a0); a1 = _mm256_fmadd_ps(ta, w1, a1);
                b0 = _mm256_fmadd_ps(tb, w0, b0); b1 = _mm256_fmadd_ps(tb, w1, b1);
                c0 = _mm256_fmadd_ps(tc, w0, c0); c1 = _mm256_fmadd_ps(tc, w1, c1);
            }
            _mm256_storeu_ps(value[0] + i, a0); _mm256_storeu_ps(value[1] + i, b0); _mm256_storeu_ps(value[2] + i, c0);
            _mm256_storeu_ps(value[0] + i + 8, a1); _mm256_storeu_ps(value[1] + i + 8, b1); _mm256_storeu_ps(value[2] + i + 8, c1);
        }
        for (; i < n; i += 8) {
            __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps(), c = _mm256_setzero_ps();
            for (int k = 0; k < TP_TAPS; k++) {
                const __m256 w = _mm256_loadu_ps(line + i + k);
                a = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + k), w, a);
                b = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + TP_TAPS + k), w, b);
                c = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + 2 * TP_TAPS + k), w, c);
            }
            _mm256_storeu_ps(value[0] + i, a); _mm256_storeu_ps(value[1] + i, b); _mm256_storeu_ps(value[2] + i, c);
        }
    } else if (phases == 2) {
        for (size_t i = 0; i < n; i += 8) {
            __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
            for (int k = 0; k < TP_TAPS; k += 2) {
                a = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + k), _mm256_loadu_ps(line + i + k), a);
                b = _mm256_fmadd_ps(_mm256_broadcast_ss(taps + k + 1), _mm256_loadu_ps(line + i + k + 1), b);
            }
            _mm256_storeu_ps(value[0] + i, _mm256_add_ps(a, b));
        }
    }
}

__attribute__((target("avx2,fma")))
static inline void vertices8_avx2(const float *seq, size_t m, float *lanes) {
    __m256 best = _mm256_loadu_ps(lanes);
    const __m256 zero = _mm256_setzero_ps(), eighth = _mm256_set1_ps(0.125f);
    for (size_t j = 0; j < m; j += 8) {
        const __m256 y0 = _mm256_loadu_ps(seq + j), y1 = _mm256_loadu_ps(seq + j + 1), y2 = _mm256_loadu_ps(seq + j + 2);
        const __m256 bend = _mm256_sub_ps(_mm256_add_ps(y1, y1), _mm256_add_ps(y0, y2)), slope = _mm256_sub_ps(y0, y2);
        const __m256 top = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(y1, y0, _CMP_GE_OQ), _mm256_cmp_ps(y1, y2, _CMP_GE_OQ)),
                                         _mm256_cmp_ps(bend, zero, _CMP_GT_OQ));
        const __m256 vertex = _mm256_add_ps(y1, _mm256_div_ps(_mm256_mul_ps(_mm256_mul_ps(slope, slope), eighth), bend));
        best = _mm256_max_ps(best, _mm256_blendv_ps(y2, vertex, top));
    }
    _mm256_storeu_ps(lanes, best);
}

// frame_peaks (below) for 4 phases, eight frames at a time, from the four phases'
// magnitudes: frame i's points are |centre[i]|, |value0[i]|, |value1[i]|, |value2[i]|, and the
// neighbours of its first two are the last two points of frame i − 1 (`prev1`, `prev2` hold
// them at index i: the carried magnitudes at 0). Same arithmetic, same order, as the scalar
// form: (2·y1 − y0) − y2 (2·y1 exact), and the maximum as `best > v ? best : v` (vmaxps).
__attribute__((target("avx2,fma")))
static inline __m256 candidate8_avx2(__m256 y0, __m256 y1, __m256 y2) {
    const __m256 bend = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(y1, y1), y0), y2), slope = _mm256_sub_ps(y0, y2);
    const __m256 top = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(y1, y0, _CMP_GE_OQ), _mm256_cmp_ps(y1, y2, _CMP_GE_OQ)),
                                     _mm256_cmp_ps(bend, _mm256_setzero_ps(), _CMP_GT_OQ));
    const __m256 vertex = _mm256_add_ps(y1, _mm256_div_ps(_mm256_mul_ps(_mm256_mul_ps(slope, slope), _mm256_set1_ps(0.125f)), bend));
    return _mm256_blendv_ps(y2, vertex, top);
}

__attribute__((target("avx2,fma")))
static inline void frame_peaks4_avx2(const float *a, const float *b, const float *prev1, const float *prev2, size_t n, float *out) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 c0 = _mm256_loadu_ps(a + i), c1 = _mm256_loadu_ps(b + i), c2 = _mm256_loadu_ps(prev1 + i + 1), c3 = _mm256_loadu_ps(prev2 + i + 1);
        const __m256 p2 = _mm256_loadu_ps(prev1 + i), p3 = _mm256_loadu_ps(prev2 + i);
        __m256 best = _mm256_max_ps(_mm256_setzero_ps(), candidate8_avx2(p2, p3, c0));
        best = _mm256_max_ps(best, candidate8_avx2(p3, c0, c1));
        best = _mm256_max_ps(best, candidate8_avx2(c0, c1, c2));
        best = _mm256_max_ps(best, candidate8_avx2(c1, c2, c3));
        _mm256_storeu_ps(out + i, best);
    }
    for (; i < n; i++) {
        const float y[6] = { prev1[i], prev2[i], a[i], b[i], prev1[i + 1], prev2[i + 1] };
        float best = 0;
        for (int p = 0; p < 4; p++) {
            const float y0 = y[p], y1 = y[p + 1], y2 = y[p + 2];
            const float bend = 2 * y1 - y0 - y2, slope = y0 - y2;
            const float v = (y1 >= y0 && y1 >= y2 && bend > 0) ? y1 + slope * slope * 0.125f / bend : y2;
            best = best > v ? best : v;
        }
        out[i] = best;
    }
}
#endif

static inline void fir8_plain(const float *t, const float *line, float *out, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        float acc[8] = {0};
        for (int k = 0; k < TP_TAPS; k++) {
            const float c = t[k];
            for (int j = 0; j < 8; j++) acc[j] += c * line[i + k + j];
        }
        for (int j = 0; j < 8; j++) out[i + j] = acc[j];
    }
}

// The limiter's allowance for what 4× with 64 taps cannot see (TruePeakLimiter): content
// between about 0.42·fs and Nyquist, which every finite interpolator attenuates, so the
// reconstruction under-reads peaks there (0.17 dB on an aliased square, 0.3 dB on white noise
// by a 16× FFT reconstruction). `high`: a 56-tap antisymmetric (type IV) Kaiser-windowed
// high-pass, centred on each frame's interval and scaled by the allowance factor; its
// magnitude, held over the interval and three either side, is added to the frame's peak.
// Frame i's intervals i − 3 … i + 3 read line[i + 1 … i + 62]: only the samples the chunk
// loop holds, so no state and no dependence on the block size.
enum { TP_HIGH_TAPS = 56, TP_HIGH_HOLD = 3 };
#if defined(__x86_64__)
// The band-pass's outputs band[0 … m) (m rounded up to 8), 24 at a time in three independent
// sums (one chain of 56 fused multiply-adds would wait on each one's latency).
__attribute__((target("avx2,fma")))
static inline void high_band_avx2(const float *high, const float *line, size_t m, float *band) {
    size_t j = 0;
    for (; j + 16 < m; j += 24) {
        __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps(), c = _mm256_setzero_ps();
        for (int k = 0; k < TP_HIGH_TAPS; k++) {
            const __m256 t = _mm256_broadcast_ss(high + k);
            a = _mm256_fmadd_ps(t, _mm256_loadu_ps(line + j + 1 + k), a);
            b = _mm256_fmadd_ps(t, _mm256_loadu_ps(line + j + 9 + k), b);
            c = _mm256_fmadd_ps(t, _mm256_loadu_ps(line + j + 17 + k), c);
        }
        _mm256_storeu_ps(band + j, a); _mm256_storeu_ps(band + j + 8, b); _mm256_storeu_ps(band + j + 16, c);
    }
    for (; j < m; j += 8) {
        __m256 a = _mm256_setzero_ps();
        for (int k = 0; k < TP_HIGH_TAPS; k++) a = _mm256_fmadd_ps(_mm256_broadcast_ss(high + k), _mm256_loadu_ps(line + j + 1 + k), a);
        _mm256_storeu_ps(band + j, a);
    }
}
#endif

static inline __attribute__((always_inline)) void add_high_band(const float *high, const float *line, size_t n, float *out, int avx) {
    float band[TP_CHUNK + 2 * TP_HIGH_HOLD + 24];
    const size_t m = n + 2 * TP_HIGH_HOLD;
#if defined(__x86_64__)
    if (avx) {
        high_band_avx2(high, line, m, band);
        for (size_t j = 0; j < m; j++) band[j] = band[j] < 0 ? -band[j] : band[j];
    } else
#endif
    for (size_t j = 0; j < m; j += 8) {
        float acc[8] = {0};
        for (int k = 0; k < TP_HIGH_TAPS; k++) {
            const float c = high[k];
            for (int l = 0; l < 8; l++) acc[l] += c * line[j + 1 + k + l];
        }
        for (int l = 0; l < 8; l++) band[j + l] = fabsf(acc[l]);
    }
    // (Comparisons, not fmaxf, so the loop vectorises: the values are finite magnitudes.)
    for (size_t i = 0; i < n; i++) {
        float held = band[i];
        for (int s = 1; s <= 2 * TP_HIGH_HOLD; s++) held = held > band[i + s] ? held : band[i + s];
        out[i] += held;
    }
}

static inline void vertices8_plain(const float *seq, size_t m, float *lanes) {
    for (size_t j = 0; j < m; j += 8)
        for (int l = 0; l < 8; l++) {
            const float y0 = seq[j + l], y1 = seq[j + l + 1], y2 = seq[j + l + 2];
            const float bend = 2 * y1 - y0 - y2, slope = y0 - y2;
            const float v = (y1 >= y0 && y1 >= y2 && bend > 0) ? y1 + slope * slope * 0.125f / bend : y2;
            lanes[l] = lanes[l] > v ? lanes[l] : v;
        }
}

// Each point's candidate (the point, or the vertex when the point before it is a local
// maximum), and their maximum over each frame's `phases` points. (The AVX2 path takes
// frame_peaks4_avx2, the same arithmetic eight frames at a time.)
static inline __attribute__((always_inline)) void frame_peaks(const float *seq, int phases, size_t n, float *out) {
    for (size_t i = 0; i < n; i++) {
        float best = 0;
        for (int p = 0; p < phases; p++) {
            const size_t j = (size_t)phases * i + (size_t)p;
            const float y0 = seq[j], y1 = seq[j + 1], y2 = seq[j + 2];
            const float bend = 2 * y1 - y0 - y2, slope = y0 - y2;
            const float v = (y1 >= y0 && y1 >= y2 && bend > 0) ? y1 + slope * slope * 0.125f / bend : y2;
            best = best > v ? best : v;
        }
        out[i] = best;
    }
}

// The chunk loop; `avx` chooses the two loops' forms (a constant at each call site).
// Phase p's value (1 ≤ p < phases) at input position i of `line` (a 64-tap dot product), with
// the same roundings as the FIR loops: fused multiply-adds in tap order on the AVX2 path,
// separate ones otherwise — so a chunk left out changes no later value by a bit.
static inline __attribute__((always_inline)) float phase_value(const float *taps, int p, const float *line, size_t i, int avx) {
    float acc = 0;
    for (int k = 0; k < TP_TAPS; k++) {
        const float t = taps[(p - 1) * TP_TAPS + k], v = line[i + k];
        if (avx) acc = fmaf(t, v, acc); else { const float product = t * v; acc = acc + product; }
    }
    return acc;
}

// The chunk loop; `avx` chooses the two loops' forms (a constant at each call site). With
// `out`, 4 phases and `quiet` > 0: a chunk whose samples (with the 63 carried) all lie under `quiet` in
// magnitude is not reconstructed — every value there is bounded by `bound` — and its frames get
// `bound` (only the two magnitudes carried to the next chunk are computed).
//
// Without `out` (the meter), `gain` > 0 (the taps' largest Σ|tap| × 9/8) lets a chunk whose
// samples are too small for any reconstructed value to reach the peak found so far go
// unreconstructed the same way: the maximum cannot change.
static inline __attribute__((always_inline))
float true_peak_body(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames, float peak,
                     float *out, float quiet, float bound, float gain, int avx) {
    // line: 63 carried samples, the chunk, 8 zeros (the last group of 8 outputs may read past
    // the chunk; those outputs are not used). value: the phases. seq: magnitudes in time
    // order after the two carried; top: each point's peak candidate.
    float line[TP_TAPS - 1 + TP_CHUNK + 8];
    float value[TP_MAX_PHASES - 1][TP_CHUNK + 8];
    float seq[2 + TP_MAX_PHASES * TP_CHUNK + 16];
    float lanes[8] = {0};
    memcpy(line, state, (TP_TAPS - 1) * sizeof(float));
    float before = state[TP_TAPS - 1], last = state[TP_TAPS];
    for (size_t start = 0; start < frames; start += TP_CHUNK) {
        const size_t n = frames - start < TP_CHUNK ? frames - start : TP_CHUNK;
        memcpy(line + TP_TAPS - 1, x + start, n * sizeof(float));
        memset(line + TP_TAPS - 1 + n, 0, 8 * sizeof(float));
        if (phases == 4 && (out ? quiet > 0 : gain > 0)) {
            float loudest = 0, reached = peak;
            for (size_t i = 0; i < TP_TAPS - 1 + n; i++) loudest = fmaxf(loudest, fabsf(line[i]));
            for (int l = 0; l < 8; l++) reached = fmaxf(reached, lanes[l]);
            // The chunk's first candidate is the vertex at the last point carried in (within
            // 9/8 of it), the rest lie within `gain` of its samples. (1.001: room for rounding.)
            // With `high`, the allowance adds at most the loudest sample times Σ|high|.
            float allowance = 0;
            if (high) for (int k = 0; k < TP_HIGH_TAPS; k++) allowance += fabsf(high[k]);
            const float carried = fmaxf(before, last) * 1.125f * 1.001f + loudest * allowance * 1.001f;
            if (out ? loudest < quiet && carried < bound : loudest * gain * 1.001f < reached && carried < reached) {
                if (out) for (size_t i = 0; i < n; i++) out[start + i] = bound;
                // The last two magnitudes in time order (phases 2 and 3 of the last frame), as
                // the full path leaves them.
                before = fabsf(phase_value(taps, 2, line, n - 1, avx));
                last = fabsf(phase_value(taps, 3, line, n - 1, avx));
                memmove(line, line + n, (TP_TAPS - 1) * sizeof(float));
                continue;
            }
        }
        // Phase p (1 ≤ p < L) between line[i + 31] and line[i + 32]; eight outputs at a time,
        // their sums kept in one vector across the 64 taps.
#if defined(__x86_64__)
        if (avx) fir_avx2(taps, phases, line, value, n); else
#endif
        for (int p = 1; p < phases; p++) fir8_plain(taps + (p - 1) * TP_TAPS, line, value[p - 1], n);
#if defined(__x86_64__)
        if (avx && out && phases == 4) {
            // Per frame, its four magnitudes side by side (phases 2 and 3 after the carried two).
            float mag0[TP_CHUNK], mag1[TP_CHUNK], prev1[TP_CHUNK + 1], prev2[TP_CHUNK + 1];
            const float *centre = line + TP_TAPS / 2 - 1;
            prev1[0] = before; prev2[0] = last;
            for (size_t i = 0; i < n; i++) {
                mag0[i] = fabsf(centre[i]); mag1[i] = fabsf(value[0][i]);
                prev1[i + 1] = fabsf(value[1][i]); prev2[i + 1] = fabsf(value[2][i]);
            }
            frame_peaks4_avx2(mag0, mag1, prev1, prev2, n, out + start);
            if (high) add_high_band(high, line, n, out + start, avx);
            before = prev1[n]; last = prev2[n];
            memmove(line, line + n, (TP_TAPS - 1) * sizeof(float));
            continue;
        }
#endif
        // Magnitudes in time order, after the two carried from the chunk before.
        seq[0] = before; seq[1] = last;
        const float *centre = line + TP_TAPS / 2 - 1;
        float *s = seq + 2;
        if (phases == 4) {
            for (size_t i = 0; i < n; i++) {
                s[4 * i] = fabsf(centre[i]); s[4 * i + 1] = fabsf(value[0][i]);
                s[4 * i + 2] = fabsf(value[1][i]); s[4 * i + 3] = fabsf(value[2][i]);
            }
        } else if (phases == 2) {
            for (size_t i = 0; i < n; i++) { s[2 * i] = fabsf(centre[i]); s[2 * i + 1] = fabsf(value[0][i]); }
        } else {
            for (size_t i = 0; i < n; i++) s[i] = fabsf(centre[i]);
        }
        const size_t m = (size_t)phases * n;
        // Every point, and where a point is a local maximum its parabola's vertex:
        // y1 + (y0 − y2)² / (8 (2·y1 − y0 − y2)); a running maximum in eight lanes. The points
        // past the chunk's last are zero (they can neither be a maximum nor hide one).
        for (size_t j = m + 2; j < m + 10; j++) seq[j] = 0;
        if (out) {
            // Per input frame: the largest candidate among its L points (a vertex counts for
            // the point after its maximum: within 1/L of a sample of where it lies).
            frame_peaks(seq, phases, n, out + start);
            if (high) add_high_band(high, line, n, out + start, avx);
        } else {
#if defined(__x86_64__)
            if (avx) vertices8_avx2(seq, m, lanes); else
#endif
            vertices8_plain(seq, m, lanes);
        }
        before = seq[m]; last = seq[m + 1];
        memmove(line, line + n, (TP_TAPS - 1) * sizeof(float));
    }
    memcpy(state, line, (TP_TAPS - 1) * sizeof(float));
    state[TP_TAPS - 1] = before; state[TP_TAPS] = last;
    for (int l = 0; l < 8; l++) peak = fmaxf(peak, lanes[l]);
    return peak;
}

static float true_peak_portable(const float *taps, int phases, float *state, const float *x, size_t frames, float peak, float gain) {
    return true_peak_body(taps, NULL, phases, state, x, frames, peak, NULL, 0, 0, gain, 0);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma")))
static float true_peak_avx2(const float *taps, int phases, float *state, const float *x, size_t frames, float peak, float gain) {
    return true_peak_body(taps, NULL, phases, state, x, frames, peak, NULL, 0, 0, gain, 1);
}
#endif

typedef float (*true_peak_fn)(const float *, int, float *, const float *, size_t, float, float);
static true_peak_fn true_peak_impl = true_peak_portable;

__attribute__((constructor))
static void choose_true_peak(void) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !timbre_avx2_disabled()) true_peak_impl = true_peak_avx2;
#endif
}

float timbre_true_peak_block(const float *taps, int phases, float *state, const float *x, size_t frames, float peak, float gain) {
    return true_peak_impl(taps, phases, state, x, frames, peak, gain);
}

float timbre_true_peak_block_portable(const float *taps, int phases, float *state, const float *x, size_t frames, float peak, float gain) {
    return true_peak_portable(taps, phases, state, x, frames, peak, gain);
}

int timbre_true_peak_uses_avx2(void) { return true_peak_impl != true_peak_portable; }

// The per-frame form (TruePeakLimiter's detector): out[i] is the largest value reconstructed
// in the interval of input frame i − 32 (see timbre_true_peak_frames in the header).
static void true_peak_frames_portable(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames,
                                      float *out, float quiet, float bound) {
    (void)true_peak_body(taps, high, phases, state, x, frames, 0, out, quiet, bound, 0, 0);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma")))
static void true_peak_frames_avx2(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames,
                                  float *out, float quiet, float bound) {
    (void)true_peak_body(taps, high, phases, state, x, frames, 0, out, quiet, bound, 0, 1);
}
#endif

void timbre_true_peak_frames(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames, float *out,
                             float quiet, float bound) {
#if defined(__x86_64__)
    if (true_peak_impl != true_peak_portable) { true_peak_frames_avx2(taps, high, phases, state, x, frames, out, quiet, bound); return; }
#endif
    true_peak_frames_portable(taps, high, phases, state, x, frames, out, quiet, bound);
}

void timbre_true_peak_frames_portable(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames,
                                      float *out, float quiet, float bound) {
    true_peak_frames_portable(taps, high, phases, state, x, frames, out, quiet, bound);
}
