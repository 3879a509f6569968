// Biquad cascades for BiquadCascade (TimbreDSP): transposed direct form II in Double, a stereo
// pair of channels at a time, with runtime CPU dispatch (an AVX2+FMA wavefront when the CPU
// has it, chosen once at load time; a portable scalar loop otherwise).
//
// Per section k and frame n (x the section's input, y its output):
//     y = b0·x + s1;   s1 = b1·x − a1·y + s2;   s2 = b2·x − a2·y
//
// Layout (both paths): sections are padded to an even count 2V with identity sections
// (b0 = 1, the rest 0: y = x exactly). Vector v holds sections 2v and 2v+1 of both channels,
// lanes (L 2v, R 2v, L 2v+1, R 2v+1):
//     coefficients: V × 5 × 4 doubles (b0 b1 b2 a1 a2, each broadcast to its lanes)
//     state:        V × 2 × 4 doubles (s1 lanes, s2 lanes)
//
// The wavefront (the AVX2 path): at step t, section k works on frame t − k, so the sections of
// a cascade run in parallel instead of one after the other. Section k's input is what section
// k − 1 produced one step earlier: one 128-bit lane shift (vperm2f128) per vector. A block of
// n frames takes n + 2V − 1 steps: in the first and last 2V − 1 steps only the sections whose
// frame lies inside the block update their state (masked), so the cascade is drained at every
// block end — no latency, and each section sees exactly the same operations in the same order
// whatever the block size (output bit-identical across block sizes on a given path).
#include "CTimbreSupport.h"
#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// ---- portable path: frame by frame through the sections, the same state layout ----
// Each section's (L, R) state and coefficient pairs are adjacent, so a stereo pair runs as one
// 2-lane vector: SSE2, which every x86-64 CPU has (no dispatch needed), or plain Double
// elsewhere. Mono runs with a silent right lane.
#if defined(__SSE2__)
#include <emmintrin.h>
static void cascade_portable(const double *co, double *st, size_t sections, float *left, float *right, size_t frames) {
    for (size_t n = 0; n < frames; n++) {
        __m128d x = _mm_set_pd(right ? (double)right[n] : 0.0, (double)left[n]);
        for (size_t k = 0; k < sections; k++) {
            size_t lane = 20 * (k / 2) + (k % 2) * 2;
            double *s1p = st + 8 * (k / 2) + (k % 2) * 2, *s2p = s1p + 4;
            __m128d s1 = _mm_loadu_pd(s1p), s2 = _mm_loadu_pd(s2p);
            __m128d y = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(co + lane), x), s1);
            s1 = _mm_add_pd(_mm_sub_pd(_mm_mul_pd(_mm_loadu_pd(co + lane + 4), x), _mm_mul_pd(_mm_loadu_pd(co + lane + 12), y)), s2);
            s2 = _mm_sub_pd(_mm_mul_pd(_mm_loadu_pd(co + lane + 8), x), _mm_mul_pd(_mm_loadu_pd(co + lane + 16), y));
            _mm_storeu_pd(s1p, s1); _mm_storeu_pd(s2p, s2);
            x = y;
        }
        left[n] = (float)_mm_cvtsd_f64(x);
        if (right) right[n] = (float)_mm_cvtsd_f64(_mm_unpackhi_pd(x, x));
    }
}
#else
static void cascade_portable(const double *co, double *st, size_t sections, float *left, float *right, size_t frames) {
    for (size_t n = 0; n < frames; n++) {
        double x0 = left[n], x1 = right ? right[n] : 0.0;
        for (size_t k = 0; k < sections; k++) {
            const double *c = co + 20 * (k / 2) + (k % 2) * 2;
            double *s1 = st + 8 * (k / 2) + (k % 2) * 2, *s2 = s1 + 4;
            double y0 = c[0] * x0 + s1[0], y1 = c[1] * x1 + s1[1];
            s1[0] = c[4] * x0 - c[12] * y0 + s2[0]; s1[1] = c[5] * x1 - c[13] * y1 + s2[1];
            s2[0] = c[8] * x0 - c[16] * y0;         s2[1] = c[9] * x1 - c[17] * y1;
            x0 = y0; x1 = y1;
        }
        left[n] = (float)x0;
        if (right) right[n] = (float)x1;
    }
}
#endif

#if defined(__x86_64__)
#define TIMBRE_MAX_VECTORS 16

// One wavefront pass over a block; `V` is a compile-time constant in each instantiation so the
// compiler keeps the vectors in registers where it can. Register budget (16 ymm): s1 and y of
// every vector stay in registers, and the coefficients are memory operands; s2 stays in a
// register too for up to 3 vectors (`s2InMemory` 0), and goes through the state array for
// longer cascades (it is read once per step, off the critical path there; in registers they
// spill: measured here 10 sections 6.6 → 4.4 ns per stereo frame, 2 sections 2.6 → 3.8 ns).
__attribute__((target("avx2,fma"), always_inline))
static inline void cascade_avx2_body(const double *co, double *st, const size_t V, const int s2InMemory,
                                     float *left, float *right, size_t frames) {
    __m256d s1[TIMBRE_MAX_VECTORS], y[TIMBRE_MAX_VECTORS], s2r[TIMBRE_MAX_VECTORS];
    _Pragma("clang loop unroll(full)")
    for (size_t v = 0; v < V; v++) {
        s1[v] = _mm256_loadu_pd(st + 8 * v); y[v] = _mm256_setzero_pd();
        s2r[v] = s2InMemory ? _mm256_setzero_pd() : _mm256_loadu_pd(st + 8 * v + 4);
    }
#define B0(v) _mm256_loadu_pd(co + 20 * (v))
#define B1(v) _mm256_loadu_pd(co + 20 * (v) + 4)
#define B2(v) _mm256_loadu_pd(co + 20 * (v) + 8)
#define A1(v) _mm256_loadu_pd(co + 20 * (v) + 12)
#define A2(v) _mm256_loadu_pd(co + 20 * (v) + 16)
#define S2(v) (st + 8 * (v) + 4)
#define LOAD_S2(v) (s2InMemory ? _mm256_loadu_pd(S2(v)) : s2r[v])
#define STORE_S2(v, value) do { if (s2InMemory) _mm256_storeu_pd(S2(v), (value)); else s2r[v] = (value); } while (0)
    const size_t depth = 2 * V - 1;  // steps from a frame entering section 0 to leaving the last
// One section pair's step: x is (section 2v − 1's output, section 2v's output) of the previous
// step; `keep` the lanes whose sections update (0xF both, 0x3 the low one, 0xC the high one).
#define STEP(v, keep) do { \
        __m256d x = _mm256_permute2f128_pd(prev, y[v], 0x21);  /* (prev.hi, y.lo) */ \
        prev = y[v]; \
        __m256d out = _mm256_fmadd_pd(B0(v), x, s1[v]); \
        __m256d s2 = LOAD_S2(v); \
        __m256d n1 = _mm256_fnmadd_pd(A1(v), out, _mm256_fmadd_pd(B1(v), x, s2)); \
        __m256d n2 = _mm256_fnmadd_pd(A2(v), out, _mm256_mul_pd(B2(v), x)); \
        if ((keep) == 0xF) { s1[v] = n1; STORE_S2(v, n2); } \
        else { s1[v] = _mm256_blend_pd(s1[v], n1, (keep)); STORE_S2(v, _mm256_blend_pd(s2, n2, (keep))); } \
        y[v] = out; \
    } while (0)
#define INPUT(t) _mm256_set_pd(right ? (double)right[t] : 0.0, (double)left[t], right ? (double)right[t] : 0.0, (double)left[t])
#define OUTPUT(t) do { \
        __m128d last = _mm256_extractf128_pd(y[V - 1], 1);  /* the last section finished frame t */ \
        left[t] = (float)_mm_cvtsd_f64(last); \
        if (right) right[t] = (float)_mm_cvtsd_f64(_mm_unpackhi_pd(last, last)); \
    } while (0)
    if (V <= 8 && frames >= depth) {
        // Fill (steps 0 … depth − 1, section k active from step k), steady state, drain (step
        // frames + d: sections d + 1 … 2V − 1 still active). The fill and drain loops have a
        // constant trip count and unroll fully, so which sections update is known at compile
        // time: no branch or variable blend per vector (block 32, 11 sections: see
        // docs/BENCHMARKS.md). Same operations per section as the general loop below.
        _Pragma("clang loop unroll(full)")
        for (size_t t = 0; t < depth; t++) {
            __m256d prev = INPUT(t);
            _Pragma("clang loop unroll(full)")
            for (size_t v = 0; v < V; v++) {
                if (2 * v > t) break;  // this and later pairs have not started
                if (2 * v + 1 <= t) STEP(v, 0xF); else STEP(v, 0x3);
            }
        }
        for (size_t t = depth; t < frames; t++) {
            __m256d prev = INPUT(t);
            _Pragma("clang loop unroll(full)")
            for (size_t v = 0; v < V; v++) STEP(v, 0xF);
            OUTPUT(t - depth);
        }
        _Pragma("clang loop unroll(full)")
        for (size_t d = 0; d < depth; d++) {
            __m256d prev = _mm256_setzero_pd();
            _Pragma("clang loop unroll(full)")
            for (size_t v = 0; v < V; v++) {
                if (2 * v + 1 < d + 1) { prev = y[v]; continue; }  // both sections done
                if (2 * v >= d + 1) STEP(v, 0xF); else STEP(v, 0xC);
            }
            OUTPUT(frames + d - depth);
        }
    } else {
        // Any block length and cascade: the activity of each section worked out per step.
        const size_t steps = frames + depth;
        for (size_t t = 0; t < steps; t++) {
            __m256d prev = t < frames ? INPUT(t) : _mm256_setzero_pd();
            _Pragma("clang loop unroll(full)")
            for (size_t v = 0; v < V; v++) {
                size_t k0 = 2 * v, k1 = 2 * v + 1;
                int lo = t >= k0 && t - k0 < frames, hi = t >= k1 && t - k1 < frames;
                if (lo && hi) STEP(v, 0xF);
                else if (lo) STEP(v, 0x3);
                else if (hi) STEP(v, 0xC);
                else prev = y[v];
            }
            if (t >= depth) OUTPUT(t - depth);
        }
    }
#undef STEP
#undef INPUT
#undef OUTPUT
    _Pragma("clang loop unroll(full)")
    for (size_t v = 0; v < V; v++) {
        _mm256_storeu_pd(st + 8 * v, s1[v]);
        if (!s2InMemory) _mm256_storeu_pd(st + 8 * v + 4, s2r[v]);
    }
#undef B0
#undef B1
#undef B2
#undef A1
#undef A2
#undef S2
#undef LOAD_S2
#undef STORE_S2
}

// Several stereo pairs through one short cascade in the same wavefront loop ("lanes across
// channels"): with one or two vectors the loop is bound by the recurrence's latency (two
// dependent FMAs per step, 8 cycles) while the FMA units idle, so P independent pairs side by
// side fill them (4 pairs × 1 vector: ~4× the frames per cycle). Each pair sees exactly the
// operations of the single-pair loop above, in the same order: the output is bit-identical
// to running the pairs one after another. s1, y and s2 of every pair stay in registers.
__attribute__((target("avx2,fma"), always_inline))
static inline void cascade_pairs_body(const double *co, double *st, const size_t V, const size_t P,
                                      float *const *channels, size_t frames) {
    __m256d s1[4][2], y[4][2], s2[4][2];
    _Pragma("clang loop unroll(full)")
    for (size_t p = 0; p < P; p++) {
        _Pragma("clang loop unroll(full)")
        for (size_t v = 0; v < V; v++) {
            s1[p][v] = _mm256_loadu_pd(st + 8 * (p * V + v)); s2[p][v] = _mm256_loadu_pd(st + 8 * (p * V + v) + 4);
            y[p][v] = _mm256_setzero_pd();
        }
    }
    const size_t depth = 2 * V - 1;
    const size_t steps = frames + depth;
    for (size_t t = 0; t < steps; t++) {
        const int steady = t >= depth && t < frames;
        _Pragma("clang loop unroll(full)")
        for (size_t p = 0; p < P; p++) {
            const float *left = channels[2 * p], *right = channels[2 * p + 1];
            double inL = t < frames ? left[t] : 0, inR = t < frames ? right[t] : 0;
            __m256d prev = _mm256_set_pd(inR, inL, inR, inL);
            _Pragma("clang loop unroll(full)")
            for (size_t v = 0; v < V; v++) {
                const double *c = co + 20 * v;
                __m256d x = _mm256_permute2f128_pd(prev, y[p][v], 0x21);
                prev = y[p][v];
                __m256d out = _mm256_fmadd_pd(_mm256_loadu_pd(c), x, s1[p][v]);
                __m256d n1 = _mm256_fnmadd_pd(_mm256_loadu_pd(c + 12), out, _mm256_fmadd_pd(_mm256_loadu_pd(c + 4), x, s2[p][v]));
                __m256d n2 = _mm256_fnmadd_pd(_mm256_loadu_pd(c + 16), out, _mm256_mul_pd(_mm256_loadu_pd(c + 8), x));
                if (steady) {
                    s1[p][v] = n1; s2[p][v] = n2;
                } else {
                    size_t k0 = 2 * v, k1 = 2 * v + 1;
                    int lo = t >= k0 && t - k0 < frames, hi = t >= k1 && t - k1 < frames;
                    __m256d keep = _mm256_castsi256_pd(_mm256_set_epi64x(hi ? -1 : 0, hi ? -1 : 0, lo ? -1 : 0, lo ? -1 : 0));
                    s1[p][v] = _mm256_blendv_pd(s1[p][v], n1, keep);
                    s2[p][v] = _mm256_blendv_pd(s2[p][v], n2, keep);
                }
                y[p][v] = out;
            }
        }
        if (t >= depth) {
            _Pragma("clang loop unroll(full)")
            for (size_t p = 0; p < P; p++) {
                __m128d last = _mm256_extractf128_pd(y[p][V - 1], 1);
                channels[2 * p][t - depth] = (float)_mm_cvtsd_f64(last);
                channels[2 * p + 1][t - depth] = (float)_mm_cvtsd_f64(_mm_unpackhi_pd(last, last));
            }
        }
    }
    _Pragma("clang loop unroll(full)")
    for (size_t p = 0; p < P; p++) {
        _Pragma("clang loop unroll(full)")
        for (size_t v = 0; v < V; v++) {
            _mm256_storeu_pd(st + 8 * (p * V + v), s1[p][v]); _mm256_storeu_pd(st + 8 * (p * V + v) + 4, s2[p][v]);
        }
    }
}

// Instantiations with V a constant (the loops over vectors unroll fully, so s1, y and s2 can
// live in registers). Two families:
//  - avx2: AVX2+FMA, 16 ymm registers; s2 goes through memory beyond 3 vectors (see above).
//  - avx512vl: the same instructions, EVEX-encoded with AVX-512VL, whose 32 ymm registers hold
//    s2 as well for up to 8 vectors: fewer loads per step, which is what bounds a 10-band EQ
//    with 16 registers (measured here, stereo, block 1024, 12 sections: 6.7 → 5.5 ns per frame).
// Cascades longer than 16 vectors (32 sections) run as passes of 16 (each drains fully, and
// rounds to Float in between).
#define TIMBRE_CASCADE_FIXED(N) \
    __attribute__((target("avx2,fma"))) static void cascade_avx2_##N(const double *co, double *st, float *l, float *r, size_t f) { \
        cascade_avx2_body(co, st, N, (N) > 3, l, r, f); } \
    __attribute__((target("avx2,fma,avx512f,avx512vl"))) static void cascade_avx512vl_##N(const double *co, double *st, float *l, float *r, size_t f) { \
        cascade_avx2_body(co, st, N, (N) > 8, l, r, f); }
TIMBRE_CASCADE_FIXED(1) TIMBRE_CASCADE_FIXED(2) TIMBRE_CASCADE_FIXED(3) TIMBRE_CASCADE_FIXED(4)
TIMBRE_CASCADE_FIXED(5) TIMBRE_CASCADE_FIXED(6) TIMBRE_CASCADE_FIXED(7) TIMBRE_CASCADE_FIXED(8)
TIMBRE_CASCADE_FIXED(9) TIMBRE_CASCADE_FIXED(10) TIMBRE_CASCADE_FIXED(11) TIMBRE_CASCADE_FIXED(12)
TIMBRE_CASCADE_FIXED(13) TIMBRE_CASCADE_FIXED(14) TIMBRE_CASCADE_FIXED(15) TIMBRE_CASCADE_FIXED(16)

typedef void (*cascade_fixed_fn)(const double *, double *, float *, float *, size_t);
#define TIMBRE_CASCADE_TABLE(family) { NULL, \
    family##_1, family##_2, family##_3, family##_4, family##_5, family##_6, family##_7, family##_8, \
    family##_9, family##_10, family##_11, family##_12, family##_13, family##_14, family##_15, family##_16 }
static const cascade_fixed_fn cascade_avx2_fixed[TIMBRE_MAX_VECTORS + 1] = TIMBRE_CASCADE_TABLE(cascade_avx2);
static const cascade_fixed_fn cascade_avx512vl_fixed[TIMBRE_MAX_VECTORS + 1] = TIMBRE_CASCADE_TABLE(cascade_avx512vl);

static inline void cascade_in_passes(const cascade_fixed_fn *fixed, const double *co, double *st, size_t sections,
                                     float *left, float *right, size_t frames) {
    size_t vectors = (sections + 1) / 2;
    while (vectors > 0) {
        size_t run = vectors > TIMBRE_MAX_VECTORS ? TIMBRE_MAX_VECTORS : vectors;
        fixed[run](co, st, left, right, frames);
        co += 20 * run; st += 8 * run; vectors -= run;
    }
}

// Pairs side by side (see cascade_pairs_body): 1 vector × 2–4 pairs, 2 vectors × 2 pairs.
typedef void (*cascade_pairs_fn)(const double *, double *, float *const *, size_t);
#define TIMBRE_CASCADE_PAIRS(V, P) \
    __attribute__((target("avx2,fma"))) static void cascade_avx2_pairs_##V##_##P(const double *co, double *st, float *const *ch, size_t f) { \
        cascade_pairs_body(co, st, V, P, ch, f); } \
    __attribute__((target("avx2,fma,avx512f,avx512vl"))) static void cascade_avx512vl_pairs_##V##_##P(const double *co, double *st, float *const *ch, size_t f) { \
        cascade_pairs_body(co, st, V, P, ch, f); }
TIMBRE_CASCADE_PAIRS(1, 2) TIMBRE_CASCADE_PAIRS(1, 3) TIMBRE_CASCADE_PAIRS(1, 4) TIMBRE_CASCADE_PAIRS(2, 2)
// [vectors - 1][pairs]: the widest instantiation for a cascade of 1 or 2 vectors.
static const cascade_pairs_fn cascade_avx2_pairs[2][5] = {
    { NULL, NULL, cascade_avx2_pairs_1_2, cascade_avx2_pairs_1_3, cascade_avx2_pairs_1_4 },
    { NULL, NULL, cascade_avx2_pairs_2_2, NULL, NULL } };
static const cascade_pairs_fn cascade_avx512vl_pairs[2][5] = {
    { NULL, NULL, cascade_avx512vl_pairs_1_2, cascade_avx512vl_pairs_1_3, cascade_avx512vl_pairs_1_4 },
    { NULL, NULL, cascade_avx512vl_pairs_2_2, NULL, NULL } };

static void cascade_avx2(const double *co, double *st, size_t sections, float *left, float *right, size_t frames) {
    cascade_in_passes(cascade_avx2_fixed, co, st, sections, left, right, frames);
}

static void cascade_avx512vl(const double *co, double *st, size_t sections, float *left, float *right, size_t frames) {
    cascade_in_passes(cascade_avx512vl_fixed, co, st, sections, left, right, frames);
}
#endif

// Both take the real section count (the portable loop skips the identity pad; the wavefront
// runs whole vectors).
typedef void (*cascade_fn)(const double *, double *, size_t, float *, float *, size_t);
static cascade_fn cascade_impl = cascade_portable;

__attribute__((constructor))
static void choose_cascade_kernel(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !timbre_avx2_disabled()) {
        cascade_impl = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && !timbre_avx512_disabled()
            ? cascade_avx512vl : cascade_avx2;
    }
#endif
}

int timbre_cascade_kernel(void) {
#if defined(__x86_64__)
    if (cascade_impl == cascade_avx512vl) return 2;
    if (cascade_impl == cascade_avx2) return 1;
#endif
    return 0;
}

// Every channel: stereo pairs (state `vectors × 8` doubles each, one after another), then an
// odd last channel alone. On the wavefront kernels, cascades of one or two vectors run up to
// four pairs side by side.
static void cascade_channels(cascade_fn one, const cascade_pairs_fn (*pairs)[5], const double *co, double *st, size_t sections,
                             float *const *channels, size_t channelCount, size_t frames) {
    const size_t vectors = (sections + 1) / 2, stride = vectors * 8, pairCount = channelCount / 2;
    size_t p = 0;
    if (pairs != NULL && vectors <= 2) {
        const size_t widest = vectors == 1 ? 4 : 2;
        while (pairCount - p >= 2) {
            size_t take = pairCount - p < widest ? pairCount - p : widest;
            pairs[vectors - 1][take](co, st + p * stride, channels + 2 * p, frames);
            p += take;
        }
    }
    for (; p < pairCount; p++) one(co, st + p * stride, sections, channels[2 * p], channels[2 * p + 1], frames);
    if (channelCount % 2 == 1) one(co, st + pairCount * stride, sections, channels[channelCount - 1], NULL, frames);
}

void timbre_cascade_process_channels(const double *coefficients, double *state, size_t sections,
                                     float *const *channels, size_t channelCount, size_t frames) {
    if (sections == 0 || frames == 0) return;
#if defined(__x86_64__)
    const cascade_pairs_fn (*pairs)[5] = cascade_impl == cascade_avx512vl ? cascade_avx512vl_pairs
                                         : cascade_impl == cascade_avx2 ? cascade_avx2_pairs : NULL;
#else
    const cascade_pairs_fn (*pairs)[5] = NULL;
#endif
    cascade_channels(cascade_impl, pairs, coefficients, state, sections, channels, channelCount, frames);
}

int timbre_cascade_process_with(int kernel, const double *coefficients, double *state, size_t sections,
                                float *const *channels, size_t channelCount, size_t frames) {
    cascade_fn one = NULL;
    const cascade_pairs_fn (*pairs)[5] = NULL;
    if (kernel == 0) one = cascade_portable;
#if defined(__x86_64__)
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const int avx512vl = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    if (kernel == 1 && avx2) { one = cascade_avx2; pairs = cascade_avx2_pairs; }
    if (kernel == 2 && avx512vl) { one = cascade_avx512vl; pairs = cascade_avx512vl_pairs; }
#endif
    if (one == NULL) return 0;
    if (sections > 0 && frames > 0) cascade_channels(one, pairs, coefficients, state, sections, channels, channelCount, frames);
    return 1;
}
