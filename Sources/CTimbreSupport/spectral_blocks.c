// The O(N) passes of the block-FFT resampler (SpectralResampler), in C so the compiler
// vectorises them: packing two Float channels into interleaved complex Double, weighting the
// kept bins into the inverse transform's spectrum, and unpacking its output. Plain loops, no
// allocation, no locks; the results are exact (conversions and one multiply per value).
#include "CTimbreSupport.h"

void timbre_pack_complex(const float *restrict re, const float *restrict im, double *restrict out, size_t n) {
    if (im) {
        for (size_t i = 0; i < n; i++) { out[2 * i] = re[i]; out[2 * i + 1] = im[i]; }
    } else {
        for (size_t i = 0; i < n; i++) { out[2 * i] = re[i]; out[2 * i + 1] = 0; }
    }
}

void timbre_weigh_bins(const double *restrict in, size_t nIn, const double *restrict gain, size_t pairs,
                       double *restrict out, size_t nOut) {
    // DC and the positive bins 1…pairs.
    for (size_t k = 0; k <= pairs; k++) {
        out[2 * k] = in[2 * k] * gain[k];
        out[2 * k + 1] = in[2 * k + 1] * gain[k];
    }
    // The stopband between them (the lower Nyquist bin included) is zero.
    for (size_t i = 2 * (pairs + 1); i < 2 * (nOut - pairs); i++) out[i] = 0;
    // The negative bins −pairs…−1 sit at the top of each transform.
    const double *inTop = in + 2 * (nIn - pairs);
    double *outTop = out + 2 * (nOut - pairs);
    for (size_t j = 0; j < pairs; j++) {
        double g = gain[pairs - j];
        outTop[2 * j] = inTop[2 * j] * g;
        outTop[2 * j + 1] = inTop[2 * j + 1] * g;
    }
}

void timbre_unpack_complex(const double *restrict in, float *restrict re, float *restrict im, size_t n) {
    if (im) {
        for (size_t i = 0; i < n; i++) { re[i] = (float)in[2 * i]; im[i] = (float)in[2 * i + 1]; }
    } else {
        for (size_t i = 0; i < n; i++) re[i] = (float)in[2 * i];
    }
}
