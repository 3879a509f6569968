// speexdsp's preprocessor as a denoiser, for the voice clean-up scores: mono 16-bit raw at
// `rate` on stdin, the same on stdout, 20 ms frames, denoise on (its default suppression).
#include <speex/speex_preprocess.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rate = argc > 1 ? atoi(argv[1]) : 48000, frame = rate / 50, on = 1;
    SpeexPreprocessState *st = speex_preprocess_state_init(frame, rate);
    speex_preprocess_ctl(st, SPEEX_PREPROCESS_SET_DENOISE, &on);
    short *buffer = malloc(sizeof(short) * frame);
    size_t n;
    while ((n = fread(buffer, sizeof(short), frame, stdin)) > 0) {
        for (size_t i = n; i < (size_t)frame; i++) buffer[i] = 0;
        speex_preprocess_run(st, buffer);
        if (fwrite(buffer, sizeof(short), n, stdout) != n) return 2;
    }
    speex_preprocess_state_destroy(st);
    free(buffer);
    return 0;
}
