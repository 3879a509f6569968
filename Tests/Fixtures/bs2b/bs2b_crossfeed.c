/* The crossfeed oracle: Debian's libbs2b over interleaved stereo float32 from stdin to stdout.
 * usage: bs2b_crossfeed RATE FCUT_HZ FEED_TENTHS_DB */
#include <bs2b/bs2b.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s RATE FCUT_HZ FEED_TENTHS_DB\n", argv[0]); return 1; }
    t_bs2bdp b = bs2b_open();
    if (!b) return 2;
    bs2b_set_srate(b, (uint32_t)atoi(argv[1]));
    bs2b_set_level_fcut(b, atoi(argv[2]));
    bs2b_set_level_feed(b, atoi(argv[3]));
    float buffer[2 * 1024];
    size_t n;
    while ((n = fread(buffer, 2 * sizeof(float), 1024, stdin)) > 0) {
        bs2b_cross_feed_f(b, buffer, (int)n);
        if (fwrite(buffer, 2 * sizeof(float), n, stdout) != n) return 3;
    }
    bs2b_close(b);
    return 0;
}
