// zita-convolver (Debian's libzita-convolver-dev) run the way its hosts run it, for
// scripts/bench-compare-convolution.py: stereo in, stereo out, one response per channel
// (L→L, R→R), host periods of `block` frames, the smallest partition equal to the period
// (zita's latency is then one period), partitions up to 8,192, the levels on zita's own
// threads. Offline: process(true) waits for every level, so nothing is late.
//
// Input and responses are read as raw float32 (planar: channel 0 then channel 1); the output
// is written the same way. Prints: CPU seconds (every thread: CLOCK_PROCESS_CPUTIME_ID) of
// the processing loop, the worst wall time of one process() call in microseconds, and the
// latency in frames.
//
// Build: g++ -O2 -o zita-bench zita-convolver-bench.cc -lzita-convolver -lfftw3f -lpthread
// Usage: zita-bench input.f32 frames response.f32 taps block output.f32
#include <zita-convolver.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double now(clockid_t clock) {
    timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static std::vector<float> read_floats(const char *path, size_t count) {
    std::vector<float> v(count);
    FILE *f = fopen(path, "rb");
    if (!f || fread(v.data(), sizeof(float), count, f) != count) { fprintf(stderr, "zita-bench: cannot read %s\n", path); exit(2); }
    fclose(f);
    return v;
}

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: zita-bench input.f32 frames response.f32 taps block output.f32\n"); return 1; }
    const size_t frames = strtoul(argv[2], 0, 10), taps = strtoul(argv[4], 0, 10), block = strtoul(argv[5], 0, 10);
    std::vector<float> x = read_floats(argv[1], 2 * frames), h = read_floats(argv[3], 2 * taps), y(2 * frames, 0.0f);
    Convproc conv;
    unsigned minpart = block < Convproc::MINPART ? Convproc::MINPART : block;
    if (conv.configure(2, 2, taps, block, minpart, Convproc::MAXPART, 0.0f)) { fprintf(stderr, "zita-bench: configure failed\n"); return 2; }
    for (int c = 0; c < 2; c++) conv.impdata_create(c, c, 1, h.data() + c * taps, 0, taps);
    if (conv.start_process(0, SCHED_OTHER)) { fprintf(stderr, "zita-bench: start_process failed\n"); return 2; }
    double worst = 0, cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t t = 0; t + block <= frames; t += block) {
        for (int c = 0; c < 2; c++) { float *in = conv.inpdata(c); for (size_t i = 0; i < block; i++) in[i] = x[c * frames + t + i]; }
        double w0 = now(CLOCK_MONOTONIC);
        conv.process(true);
        double w = now(CLOCK_MONOTONIC) - w0;
        if (w > worst) worst = w;
        for (int c = 0; c < 2; c++) { float *out = conv.outdata(c); for (size_t i = 0; i < block; i++) y[c * frames + t + i] = out[i]; }
    }
    double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    conv.stop_process();
    while (!conv.check_stop()) usleep(1000);
    conv.cleanup();
    FILE *f = fopen(argv[6], "wb");
    if (!f || fwrite(y.data(), sizeof(float), y.size(), f) != y.size() || fclose(f)) { fprintf(stderr, "zita-bench: cannot write %s\n", argv[6]); return 2; }
    printf("%.6f %.3f %u\n", cpu, worst * 1e6, minpart);
    return 0;
}
