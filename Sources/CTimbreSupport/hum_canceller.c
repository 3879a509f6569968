// The hum remover's canceller (see TimbreDSP's HumRemover for the design): per channel, one
// two-weight LMS canceller per harmonic of the mains with internal sine and cosine references
// (Widrow et al., "Adaptive noise cancelling: principles and applications", Proc. IEEE 63(12),
// 1975: a notch at each reference frequency, 3 dB wide `step` radians per frame), the
// fundamental kept on the mains by the weights' rotation (a frequency-locked loop), and the
// mains chosen between 50 and 60 Hz by which family's weights hold more power; the step
// scaled down while the residual stands more than 9 dB over its floor (a variable step
// size: adaptation held during speech, as echo cancellers hold it during double talk).
#include "CTimbreSupport.h"
#include <math.h>

#define CHUNK TIMBRE_HUM_CHUNK

static void track(TimbreHumState *s, int family) {
    // The rotation of each harmonic's weights since the last update, as a frequency error of
    // the fundamental, averaged with the weights' power.
    const int K = s->harmonics;
    double sum = 0, weight = 0, all = 0;
    for (int c = 0; c < s->channels; c++) {
        double *w = s->weights + ((size_t)(c * 2 + family) * K) * 2, *p = s->previous + ((size_t)(c * 2 + family) * K) * 2;
        for (int k = 0; k < K; k++) {
            // The hum a·cos θ + b·sin θ is A·cos(θ + φ) with A·e^{jφ} = a − j·b.
            double re = w[2 * k] * p[2 * k] + w[2 * k + 1] * p[2 * k + 1];
            double im = -w[2 * k + 1] * p[2 * k] + w[2 * k] * p[2 * k + 1];
            double m = sqrt(re * re + im * im);
            // Only a harmonic whose size held (within 20 %) is a hum turning; weights that
            // speech drives swell and shrink, and their turns are noise.
            double now = w[2 * k] * w[2 * k] + w[2 * k + 1] * w[2 * k + 1], before = p[2 * k] * p[2 * k] + p[2 * k + 1] * p[2 * k + 1];
            all += m;
            if (m > 0 && fabs(sqrt(now) - sqrt(before)) < 0.2 * sqrt(now)) {
                double turn = atan2(im, re) / (2 * M_PI * (k + 1));
                sum += m * turn; weight += m;
            }
            p[2 * k] = w[2 * k]; p[2 * k + 1] = w[2 * k + 1];
        }
    }
    s->steady[family] += weight; s->moving[family] += all;
    // Most of the weights' size must be steady hum, or nothing is corrected.
    if (weight <= 1e-14 || weight < 0.5 * all) return;
    double error = sum / weight * s->rate / s->trackEvery;  // Hz
    double f = s->fundamental[family] + s->trackGain * error;
    // The phase carried to this frame at the old frequency, from here on at the new one.
    double at = s->phase[family] + (double)(s->position - s->origin[family]) * (s->fundamental[family] / s->rate);
    s->phase[family] = at - floor(at);
    s->origin[family] = s->position;
    double low = s->nominal[family] - s->most, high = s->nominal[family] + s->most;
    s->fundamental[family] = f < low ? low : (f > high ? high : f);
}

static void decide(TimbreHumState *s) {
    const int K = s->harmonics;
    double power[2] = {0, 0};
    for (int c = 0; c < s->channels; c++)
        for (int f = 0; f < 2; f++) {
            double *w = s->weights + ((size_t)(c * 2 + f) * K) * 2;
            for (int k = 0; k < 2 * K; k++) power[f] += w[k] * w[k];
        }
    int keep = power[1] > power[0] ? 1 : 0;
    if (!(s->steady[keep] >= 0.3 * s->moving[keep]) || power[keep] <= 0) {
        // What the weights held was not a steady hum (speech, music, noise drive them too, but
        // their size swings): no mains to remove. The weights are cleared.
        for (size_t k = 0; k < (size_t)s->channels * 2 * K * 2; k++) { s->weights[k] = 0; s->previous[k] = 0; }
        s->families = 0;
        s->decideAt = -1;
        return;
    }
    if (keep == 1) {
        // The kept family moves to slot 0.
        for (int c = 0; c < s->channels; c++) {
            double *w0 = s->weights + ((size_t)(c * 2) * K) * 2, *w1 = w0 + 2 * K;
            double *p0 = s->previous + ((size_t)(c * 2) * K) * 2, *p1 = p0 + 2 * K;
            for (int k = 0; k < 2 * K; k++) { w0[k] = w1[k]; p0[k] = p1[k]; }
        }
        s->nominal[0] = s->nominal[1]; s->fundamental[0] = s->fundamental[1]; s->phase[0] = s->phase[1]; s->origin[0] = s->origin[1];
    }
    s->families = 1;
    s->decideAt = -1;
}

void timbre_hum_process(TimbreHumState *s, float *const *channels, int frames) {
    // No hum was found: nothing is done again (the position still counts the stream).
    if (s->families == 0) { s->position += frames; return; }
    const int K = s->harmonics;
    // references: [family][frame][harmonic][cos, sin], 2 × CHUNK × K pairs.
    double *refs = s->references;
    int done = 0;
    while (done < frames) {
        // Chunks end at multiples of CHUNK frames of the stream, so updates fall on the same
        // frames whatever the block size.
        // The references are made for the whole chunk from its first frame's phase (a
        // function of the position), so a chunk split between blocks gets the same values.
        int offset = (int)(s->position % CHUNK), n = CHUNK - offset;
        if (n > frames - done) n = frames - done;
        for (int f = 0; f < s->families; f++) {
            double step = s->fundamental[f] / s->rate, cr = cos(2 * M_PI * step), sr = sin(2 * M_PI * step);
            double start = s->phase[f] + (double)(s->position - offset - s->origin[f]) * step;
            start -= floor(start);
            double zr = cos(2 * M_PI * start), zi = sin(2 * M_PI * start);
            for (int i = 0; i < offset + n; i++) {
                double hr = zr, hi = zi;
                double *r = refs + (((size_t)f * CHUNK + i) * K) * 2;
                for (int k = 0; k < K; k++) {  // z^(k+1) by repeated multiplication
                    r[2 * k] = hr; r[2 * k + 1] = hi;
                    double t = hr * zr - hi * zi; hi = hr * zi + hi * zr; hr = t;
                }
                double t = zr * cr - zi * sr; zi = zr * sr + zi * cr; zr = t;
            }
        }
        for (int c = 0; c < s->channels; c++) {
            float *x = channels[c] + done;
            for (int i = 0; i < n; i++) {
                double h = 0;
                for (int f = 0; f < s->families; f++) {
                    const double *w = s->weights + ((size_t)(c * 2 + f) * K) * 2, *r = refs + (((size_t)f * CHUNK + offset + i) * K) * 2;
                    for (int k = 0; k < 2 * K; k++) h += w[k] * r[k];
                }
                double e = (double)x[i] - h;
                // The step slows where the residual stands over its floor (speech, whose
                // harmonics would otherwise pull the weights and be notched): the weights then
                // hold the hum they learnt in the pauses and subtract it.
                double *level = s->levels + 2 * c;
                level[0] += (1 - s->levelSmoothing) * (e * e - level[0]);
                // The floor follows the short-term power down at once and up at most
                // floorRise per frame; over the first warm-up frames it is that power. Below
                // -140 dB (digital silence) it is kept within 30 dB of that power, or after
                // silence it would climb from nothing for seconds, holding the weights.
                double floor = s->position + i < s->warmUp ? level[0] : level[1] * s->floorRise;
                floor = level[0] < floor ? level[0] : floor;
                level[1] = floor < 1e-14 && floor < 1e-3 * level[0] ? 1e-3 * level[0] : floor;
                // While the mains is being found the step stays whole: the decision reads how
                // speech makes the weights swell and shrink.
                double scale = s->families == 1 && 8 * level[1] < level[0] ? 8 * level[1] / level[0] : 1;
                double g = s->step * scale * e;
                for (int f = 0; f < s->families; f++) {
                    double *w = s->weights + ((size_t)(c * 2 + f) * K) * 2;
                    const double *r = refs + (((size_t)f * CHUNK + offset + i) * K) * 2;
                    for (int k = 0; k < 2 * K; k++) w[k] += g * r[k];
                }
                x[i] = (float)e;
            }
        }
        s->position += n;
        done += n;
        if (s->position % s->trackEvery == 0)
            for (int f = 0; f < s->families; f++) track(s, f);
        if (s->decideAt >= 0 && s->position >= s->decideAt) decide(s);
    }
}
