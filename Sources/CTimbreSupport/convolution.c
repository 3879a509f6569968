// Convolution inner loops (PartitionedConvolver). Portable C the compiler vectorises; every
// result is summed in a fixed order, so the output does not depend on block sizes.
#include "CTimbreSupport.h"
#include <stddef.h>

void timbre_fir_block(const float *restrict taps, const float *restrict window, size_t count, float *restrict y, size_t n) {
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

void timbre_complex_mac(float *restrict sum, const float *restrict x, const float *restrict g, size_t bins) {
    for (size_t k = 0; k < bins; k++) {
        float xr = x[2 * k], xi = x[2 * k + 1], gr = g[2 * k], gi = g[2 * k + 1];
        sum[2 * k] += xr * gr - xi * gi;
        sum[2 * k + 1] += xr * gi + xi * gr;
    }
}
