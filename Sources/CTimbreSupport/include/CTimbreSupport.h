#ifndef CTIMBRE_SUPPORT_H
#define CTIMBRE_SUPPORT_H

/// Sets flush-to-zero and denormals-are-zero (MXCSR FTZ|DAZ) on the calling thread.
/// Returns the previous MXCSR value so a caller may restore it. No-op (returns 0) off x86.
unsigned int timbre_enable_ftz_daz(void);

/// Restores a MXCSR value returned by `timbre_enable_ftz_daz`.
void timbre_restore_mxcsr(unsigned int mxcsr);

/// 1 when FTZ and DAZ are both set on the calling thread.
int timbre_ftz_daz_enabled(void);

/// Sets (on ≠ 0) or clears FTZ and DAZ on the calling thread, leaving the rest of MXCSR.
void timbre_set_ftz_daz(int on);

#include <stddef.h>
#include <stdint.h>

/// Σ c[i]·x[i] for i < n (n a multiple of 8), in Double: AVX2+FMA when the CPU has it.
double timbre_dot_f64(const double *c, const double *x, size_t n);

/// Two dot products sharing the coefficients `c`: *y0 = c·x0, *y1 = c·x1 (n a multiple of 8).
void timbre_dot2_f64(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1);

/// 1 when the environment variable TIMBRE_NO_AVX2 is set (to anything but "0"): the kernels
/// take their portable paths even on CPUs with AVX2+FMA (to measure or test those paths).
int timbre_avx2_disabled(void);

/// 1 when the AVX2+FMA kernels were chosen at load time.
int timbre_cpu_has_avx2_fma(void);

/// The portable `timbre_dot2_f64`, always (tests compare the dispatched kernel with it).
void timbre_dot2_f64_portable(const double *c, const double *x0, const double *x1, size_t n, double *y0, double *y1);

/// The kernel `timbre_cascade_process_channels` runs: 0 portable, 1 AVX2+FMA (16 registers),
/// 2 AVX2+FMA with AVX-512VL's 32 registers (chosen when the CPU has it and TIMBRE_NO_AVX512
/// is not set).
int timbre_cascade_kernel(void);
/// Every channel of a cascade: `channels[0…channelCount)`, stereo pairs with their state
/// (`vectors × 8` doubles each) one after another, an odd last channel alone; short cascades
/// (≤ 4 sections) run up to four pairs side by side on the wavefront kernels.
void timbre_cascade_process_channels(const double *coefficients, double *state, size_t sections,
                                     float *const *channels, size_t channelCount, size_t frames);
/// `timbre_cascade_process_channels` with kernel `kernel` (as numbered above) whatever was
/// chosen; returns 0, doing nothing, when this CPU cannot run it. For tests and benchmarks.
int timbre_cascade_process_with(int kernel, const double *coefficients, double *state, size_t sections,
                                float *const *channels, size_t channelCount, size_t frames);
/// True when TIMBRE_NO_AVX512 is set (to anything but "" or "0"): the AVX-512VL kernels are declined.
int timbre_avx512_disabled(void);
/// 1 when timbre_true_peak_block runs its AVX2+FMA loop (chosen at load).
int timbre_true_peak_uses_avx2(void);

/// TruePeakMeter's loop: `frames` samples of `x`, oversampled by `phases` (4, 2 or 1) with a
/// 64-tap polyphase FIR (`taps`: (phases − 1) × 64 floats, phase-major, oldest sample first;
/// phase p at p/phases of a sample after each sample), magnitudes in time order with the vertex
/// of the parabola at each local maximum. `state`: 65 floats per channel (the last 63 samples,
/// the last two magnitudes). Returns max(`peak`, every value and vertex). `gain` > 0 (with 4
/// phases): the taps' largest Σ|tap| × 9/8 — a chunk whose samples times it stay under the peak
/// so far cannot change the result and is not reconstructed. 0: every chunk.
float timbre_true_peak_block(const float *taps, int phases, float *state, const float *x, size_t frames, float peak, float gain);
/// The same reconstruction frame by frame (TruePeakLimiter's detector): `out[i]` is the largest
/// oversampled magnitude or parabola vertex in the interval starting at input frame i − 32
/// (the filter's delay), for `frames` frames; `state` as for `timbre_true_peak_block`.
/// `quiet` > 0 (with 4 phases): a chunk of up to 256 frames whose samples (and the 63 before them) all lie under
/// `quiet` in magnitude is not reconstructed and its frames get `bound` — the caller's proof
/// that no value there can exceed it (max |x| × the taps' largest absolute sum × 9/8, the
/// parabola vertex's largest rise). 0: every frame exact.
/// `high` (NULL: none): 56 taps of a type IV high-pass scaled by the limiter's allowance
/// factor; the magnitude of its output, held over each frame's interval and three either side,
/// is added to the frame's value (the allowance for content near Nyquist, which the
/// interpolator attenuates). `quiet` must then also cover the allowance (Σ|high| per unit).
void timbre_true_peak_frames(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames,
                             float *out, float quiet, float bound);
/// The portable path of `timbre_true_peak_frames`, always (tests compare the dispatched one with it).
void timbre_true_peak_frames_portable(const float *taps, const float *high, int phases, float *state, const float *x, size_t frames,
                                      float *out, float quiet, float bound);
/// The portable path of `timbre_true_peak_block`, always (tests compare the dispatched one with it).
float timbre_true_peak_block_portable(const float *taps, int phases, float *state, const float *x, size_t frames, float peak, float gain);

/// Block-FFT resampler passes (no allocation, no locks).
/// out[2i] = re[i], out[2i+1] = im[i] (0 when `im` is NULL), i < n.
void timbre_pack_complex(const float *re, const float *im, double *out, size_t n);
/// Spectrum of the inverse transform (nOut complex) from the forward one's (nIn complex):
/// bins 0…pairs and −pairs…−1 times gain[|k|], every other bin 0.
void timbre_weigh_bins(const double *in, size_t nIn, const double *gain, size_t pairs, double *out, size_t nOut);
/// re[i] = in[2i], im[i] = in[2i+1] (skipped when `im` is NULL), as Float, i < n.
void timbre_unpack_complex(const double *in, float *re, float *im, size_t n);

/// Temporary files a signal must not leave behind. `register` records a path (returns its
/// slot, or -1 when all 512 are taken or the path is too long); `unregister` forgets it
/// (after a rename or an unlink). With the handlers installed, SIGINT, SIGTERM and SIGHUP
/// remove every registered file and exit with 128 + the signal number (130, 143, 129).
int timbre_temporary_register(const char *path);
void timbre_temporary_unregister(int slot);
void timbre_temporary_remove_all(void);
void timbre_temporary_install_signal_handlers(void);

/// Sets aside disk blocks for `bytes` bytes of `descriptor`'s file from offset 0, its size
/// unchanged (fallocate, FALLOC_FL_KEEP_SIZE). 0 on success, -1 with errno otherwise.
int timbre_reserve_blocks(int descriptor, long long bytes);

/// The user id of the peer of a Unix-domain socket (SO_PEERCRED), or -1.
long timbre_socket_peer_uid(int fd);

/// Names the calling thread (PR_SET_NAME; 15 bytes show in /proc).
void timbre_name_this_thread(const char *name);

/// Sets the calling thread's nice value (this thread only, on Linux); 0 on success.
int timbre_set_this_thread_nice(int nice);

/// Direct-form FIR for PartitionedConvolver: y[i] = Σ_k taps[k]·window[i + k], i < n (taps
/// reversed; window holds n + count − 1 samples). Eight partial sums in a fixed order.
void timbre_fir_block(const float *taps, const float *window, size_t count, float *y, size_t n);

/// sum[k] += x[k]·g[k] over `bins` interleaved complex values (PartitionedConvolver's levels).
void timbre_complex_mac(float *sum, const float *x, const float *g, size_t bins);


/// One voice of a chorus/flanger over a chunk of `n` frames (stream frames t0 … t0 + n − 1):
/// for frame i, the oscillator u drawn straight across its 8-frame segment of the stream
/// (`us[j]`: u at the j-th segment boundary from t0 − (t0 mod 8)), the delay
/// centres[i] + depths[i]·(2u − 1) clamped to 2 … `longest` frames, and `ring` (a power of two,
/// `mask` its size − 1, frame t at t & mask) read there by four-point Lagrange interpolation,
/// added to taps[i]. `centres`/`depths` readable from index −7 to n + 7. AVX2+FMA when the CPU
/// has it (chosen at load), portable otherwise; either gives a frame the same value wherever
/// a chunk starts. No allocation, no locks.
void timbre_modulated_voice(const float *ring, int64_t mask, int64_t t0, int n, const float *us,
                            const float *centres, const float *depths, float longest, float *taps);
/// The portable `timbre_modulated_voice`, always (tests compare the dispatched one with it).
void timbre_modulated_voice_portable(const float *ring, int64_t mask, int64_t t0, int n, const float *us,
                                     const float *centres, const float *depths, float longest, float *taps);

/// One STFT frame's noise tracking and gains for the spectral denoiser (TimbreDSP's
/// `SpectralDenoiser`, which documents the rule and its sources). `power` is |Y|² per bin;
/// `noise`, `clean` (the last frame's |G·Y|²), `smoothed` (the smoothed power) and `minima`
/// (`TIMBRE_DENOISE_SUBWINDOWS` stored sub-window minima, then the running one, `bins` each)
/// are the channel's state, with `*subwindowFill` frames into the running sub-window; all
/// updated in place. `gain` receives the gains. `table` holds exp(E1(v)/2) filled by
/// `timbre_denoise_fill_table`; `track` 1 lets the noise estimate follow the input, 0 keeps it.
/// `noiseScales` multiplies each bin's noise in the gain rule (a learned profile's allowance for
/// noise that fluctuates more than Gaussian noise; 1 otherwise).
typedef struct {
    float decisionDirected;   ///< α of the a-priori SNR (Ephraim & Malah), e.g. 0.98
    float powerSmoothing;     ///< the most smoothing of the power per frame (minimum statistics)
    float leastSmoothing;     ///< the least
    float minimumBias;        ///< the noise power over the smoothed power's minimum, for noise alone
    int subwindowFrames;      ///< frames a sub-window of the minimum search spans
    float overSubtraction;    ///< noise × this in the gain rule (sensitivity)
    float minimumPrioriSNR;   ///< ξ floor, linear
    float floorGain;          ///< the least gain (the residual-noise floor)
} TimbreDenoiseRule;

#define TIMBRE_DENOISE_SUBWINDOWS 8
#define TIMBRE_DENOISE_TABLE_SIZE 1201
void timbre_denoise_fill_table(float *table);
void timbre_denoise_frame(const float *power, float *noise, float *clean, float *smoothed, float *minima, int *subwindowFill,
                          float *gain, int bins, const float *table, const TimbreDenoiseRule *rule, const float *noiseScales, int track);
/// Half-width, in bins, of the triangle that smooths the speech-presence row across frequency.
#define TIMBRE_DENOISE_PRESENCE_BINS 5
/// One frame's speech-presence row: 1 where |Y|² exceeds `scale` × `thresholds[k]` × the noise
/// power, 0 elsewhere, smoothed across frequency by a triangle of half-width
/// `TIMBRE_DENOISE_PRESENCE_BINS` (weights summing to 1). `scratch` holds
/// 2 × bins + 3 × `TIMBRE_DENOISE_PRESENCE_BINS` floats. No allocation, no locks.
void timbre_denoise_presence(const float *power, const float *noise, const float *thresholds, float scale, float *row, int bins, float *scratch);

/// The hum remover's state (TimbreDSP's `HumRemover` documents the design): up to two mains
/// families (50 and 60 Hz while the mains is being found), `harmonics` each, one adaptive
/// canceller per channel. Allocated and filled by `HumRemover`; `weights` holds
/// channels × 2 families × harmonics × (cos, sin) doubles.
typedef struct {
    int channels;
    int harmonics;
    int families;           ///< 2 while deciding between 50 and 60 Hz, then 1 (0: no hum found)
    int decideAt;           ///< the frame the mains is chosen at (auto), or -1
    int trackEvery;         ///< frames between frequency updates
    double rate;
    double step;            ///< the LMS step (the notches' width in radians per frame)
    double trackGain;       ///< the share of a measured frequency error corrected per update
    double most;            ///< the most the fundamental strays from its nominal value, Hz
    double nominal[2];
    double fundamental[2];
    double phase[2];        ///< the fundamentals' phases at `origin`, cycles
    long long origin[2];    ///< the frame of each family's last frequency change
    long long position;     ///< frames processed
    double steady[2];       ///< while deciding: each family's weight that held its size, summed
    double moving[2];       ///< and all its weight, summed
    double *weights;
    double *previous;       ///< the weights at the last frequency update
    double *references;     ///< scratch: 2 families × TIMBRE_HUM_CHUNK frames × harmonics × (cos, sin)
    double *levels;         ///< per channel: the residual's short-term power, then its floor
    double levelSmoothing;  ///< the short-term power's one-pole coefficient per frame
    double floorRise;       ///< the floor's most rise per frame (a factor)
    long long warmUp;       ///< frames from the start over which the floor is the short-term power
} TimbreHumState;

#define TIMBRE_HUM_CHUNK 32

void timbre_hum_process(TimbreHumState *state, float *const *channels, int frames);

#endif
