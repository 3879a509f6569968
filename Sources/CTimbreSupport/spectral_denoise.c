// The spectral denoiser's per-bin rule (see TimbreDSP's SpectralDenoiser for the design):
// noise power tracked by minimum statistics (R. Martin, "Noise power spectral density
// estimation based on optimal smoothing and minimum statistics", IEEE TSAP 9(5), 2001, with a
// fixed smoothing constant and bias); gains by the MMSE log-spectral amplitude estimator with the
// decision-directed a-priori SNR of Ephraim & Malah, IEEE TASSP 33(2), 1985.
#include "CTimbreSupport.h"
#include <math.h>

// exp(E1(v)/2) at log10 v = -6 + k/100, k = 0…1200 (v from 1e-6 to 1e6).
#define TABLE_LOW (-6.0)
#define TABLE_STEP 0.01

static double exponential_integral(double x) {
    // E1(x): the power series for x <= 1 (A&S 5.1.11), the continued fraction otherwise
    // (A&S 5.1.22, evaluated by modified Lentz).
    if (x <= 1.0) {
        double sum = 0, term = 1;
        for (int k = 1; k < 60; k++) {
            term *= -x / k;
            sum += term / k;
            if (fabs(term / k) < 1e-17) break;
        }
        return -0.5772156649015329 - log(x) - sum;
    }
    double b = x + 1, c = 1e300, d = 1 / b, h = d;
    for (int i = 1; i < 200; i++) {
        double a = -(double)i * i;
        b += 2;
        d = 1 / (a * d + b);
        c = b + a / c;
        double delta = c * d;
        h *= delta;
        if (fabs(delta - 1) < 1e-16) break;
    }
    return h * exp(-x);
}

void timbre_denoise_fill_table(float *table) {
    for (int k = 0; k < TIMBRE_DENOISE_TABLE_SIZE; k++) {
        double v = pow(10.0, TABLE_LOW + k * TABLE_STEP);
        table[k] = (float)exp(0.5 * exponential_integral(v));
    }
}

// exp(E1(v)/2), interpolated in log10 v; below the table E1 ~ -gamma - ln v.
static inline float lsa_factor(float v, const float *table) {
    if (!(v > 1e-6f)) return 0.74930f / sqrtf(fmaxf(v, 1e-30f));  // exp(-gamma/2)/sqrt(v)
    float position = (log10f(v) - (float)TABLE_LOW) * (float)(1.0 / TABLE_STEP);
    if (position >= (float)(TIMBRE_DENOISE_TABLE_SIZE - 1)) return 1.0f;
    int k = (int)position;
    float f = position - (float)k;
    return table[k] + f * (table[k + 1] - table[k]);
}

void timbre_denoise_frame(const float *power, float *noise, float *clean, float *smoothed, float *minima, int *subwindowFill,
                          float *gain, int bins, const float *table, const TimbreDenoiseRule *rule, const float *noiseScales, int track) {
    const float tiny = 1e-20f;
    const int U = TIMBRE_DENOISE_SUBWINDOWS;
    float *running = minima + (size_t)U * bins;
    if (track) {
        // The smoothed power's minimum over U sub-windows (the last D seconds), times the bias.
        const float a = rule->powerSmoothing;
        int fill = *subwindowFill + 1;
        for (int k = 0; k < bins; k++) {
            // Martin's optimal smoothing: less smoothing where the smoothed power stands far
            // from the noise (speech coming or going), so it falls back to the noise within
            // a few frames after speech and the minimum is found in short pauses.
            float r = smoothed[k] / fmaxf(noise[k], tiny) - 1;
            float alpha = fmaxf(a / (1 + r * r), rule->leastSmoothing);
            float s = alpha * smoothed[k] + (1 - alpha) * power[k];
            smoothed[k] = s;
            float m = fminf(running[k], s);
            running[k] = m;
            for (int u = 0; u < U; u++) m = fminf(m, minima[(size_t)u * bins + k]);
            noise[k] = fmaxf(rule->minimumBias * m, tiny);
        }
        if (fill >= rule->subwindowFrames) {
            // The oldest sub-window out, the running one in, a new one started.
            for (int u = 0; u + 1 < U; u++)
                for (int k = 0; k < bins; k++) minima[(size_t)u * bins + k] = minima[(size_t)(u + 1) * bins + k];
            for (int k = 0; k < bins; k++) { minima[(size_t)(U - 1) * bins + k] = running[k]; running[k] = smoothed[k]; }
            fill = 0;
        }
        *subwindowFill = fill;
    }
    for (int k = 0; k < bins; k++) {
        float y = power[k], scaled = fmaxf(noise[k], tiny) * rule->overSubtraction * noiseScales[k];
        float posterior = y / scaled;
        float xi = rule->decisionDirected * clean[k] / scaled + (1 - rule->decisionDirected) * fmaxf(posterior - 1, 0);
        xi = fmaxf(xi, rule->minimumPrioriSNR);
        float w = xi / (1 + xi), v = w * posterior;
        float g = fminf(w * lsa_factor(v, table), 1.0f);
        g = fmaxf(g, rule->floorGain);
        gain[k] = g;
        clean[k] = g * g * y;
    }
}

void timbre_denoise_presence(const float *power, const float *noise, const float *thresholds, float scale, float *row, int bins, float *scratch) {
    // Bins over the threshold, smoothed across frequency by a triangle of half-width h (the
    // edge bins repeated beyond the spectrum). The triangle is a box of h + 1 twice over, so
    // two running sums do it; the sums are of whole numbers, exact in float.
    const int h = TIMBRE_DENOISE_PRESENCE_BINS;
    const float norm = 1.0f / (float)((h + 1) * (h + 1));
    float *padded = scratch, *box = scratch + bins + 2 * h;
    for (int i = 0; i < bins + 2 * h; i++) {
        int k = i - h;
        k = k < 0 ? 0 : (k >= bins ? bins - 1 : k);
        padded[i] = power[k] > scale * thresholds[k] * noise[k] ? 1.0f : 0.0f;
    }
    float sum = 0;
    for (int i = 0; i <= h; i++) sum += padded[i];
    for (int i = 0; i < bins + h; i++) {
        box[i] = sum;  // padded[i] … padded[i + h]
        if (i + h + 1 < bins + 2 * h) sum += padded[i + h + 1] - padded[i];
    }
    sum = 0;
    for (int i = 0; i <= h; i++) sum += box[i];
    for (int k = 0; k < bins; k++) {
        row[k] = sum * norm;  // box[k] … box[k + h]
        if (k + h + 1 < bins + h) sum += box[k + h + 1] - box[k];
    }
}
