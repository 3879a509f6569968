// The render side of a plugin node (see CTimbrePlugins.h): buffers allocated once, one block
// copied in, run on every instance, copied out.
#include "CTimbrePlugins.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


typedef void (*lv2_run_fn)(void *, uint32_t);
typedef void (*ladspa_run_fn)(void *, unsigned long);

struct timbre_plugin_runner {
    int kind;
    size_t instances, audioIn, audioOut, controlCount, outputCount, atomIn, atomOut, cvCount, maxFrames;
    void **handles;
    void **runs;
    timbre_lv2_worker **workers;
    size_t *inputChannels;   // [k * audioIn + i]
    size_t *outputChannels;  // [k * audioOut + o]
    float *audio;            // (audioIn + audioOut + cvCount) × maxFrames per instance
    float *controls;         // controlCount per instance
    float *outputs;          // outputCount per instance
    uint8_t *atoms;          // (atomIn + atomOut) × atomCapacity per instance, 8-aligned
    uint32_t atomCapacity, sequenceType, chunkType;
    _Atomic uint64_t blocks, totalNanos, maxNanos;
};

timbre_plugin_runner *timbre_plugin_runner_new(int kind, size_t instances, size_t audioIn, size_t audioOut,
                                               size_t controlCount, size_t outputCount, size_t atomIn, size_t atomOut,
                                               size_t cvCount, size_t maxFrames) {
    timbre_plugin_runner *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->kind = kind; r->instances = instances; r->audioIn = audioIn; r->audioOut = audioOut;
    r->controlCount = controlCount; r->outputCount = outputCount; r->atomIn = atomIn; r->atomOut = atomOut;
    r->cvCount = cvCount; r->maxFrames = maxFrames;
    r->atomCapacity = 65536;  // above what plugins ask as rsz:minimumSize (x42 fil4: 8416 bytes)
    r->sequenceType = timbre_urid_map(LV2_ATOM__Sequence);
    r->chunkType = timbre_urid_map(LV2_ATOM__Chunk);
    r->handles = calloc(instances, sizeof(void *));
    r->runs = calloc(instances, sizeof(void *));
    r->workers = calloc(instances, sizeof(void *));
    r->inputChannels = calloc(instances * (audioIn ? audioIn : 1), sizeof(size_t));
    r->outputChannels = calloc(instances * (audioOut ? audioOut : 1), sizeof(size_t));
    r->audio = calloc(instances * (audioIn + audioOut + cvCount) * maxFrames + 1, sizeof(float));
    r->controls = calloc(instances * controlCount + 1, sizeof(float));
    r->outputs = calloc(instances * outputCount + 1, sizeof(float));
    r->atoms = aligned_alloc(8, instances * (atomIn + atomOut) * r->atomCapacity + 8);
    if (!r->handles || !r->runs || !r->workers || !r->inputChannels || !r->outputChannels || !r->audio || !r->controls || !r->outputs || !r->atoms) {
        timbre_plugin_runner_free(r);
        return NULL;
    }
    memset(r->atoms, 0, instances * (atomIn + atomOut) * r->atomCapacity + 8);
    atomic_init(&r->blocks, 0); atomic_init(&r->totalNanos, 0); atomic_init(&r->maxNanos, 0);
    return r;
}

void timbre_plugin_runner_free(timbre_plugin_runner *r) {
    if (r == NULL) return;
    free(r->handles); free(r->runs); free(r->workers); free(r->inputChannels); free(r->outputChannels);
    free(r->audio); free(r->controls); free(r->outputs); free(r->atoms);
    free(r);
}

void timbre_plugin_runner_set_instance(timbre_plugin_runner *r, size_t k, void *handle, void *run,
                                       timbre_lv2_worker *worker, const LV2_Worker_Interface *workerInterface) {
    r->handles[k] = handle;
    r->runs[k] = run;
    r->workers[k] = worker;
    if (worker && workerInterface) timbre_lv2_worker_start(worker, workerInterface, handle);
}

void timbre_plugin_runner_route(timbre_plugin_runner *r, size_t k, const size_t *inputChannels, const size_t *outputChannels) {
    for (size_t i = 0; i < r->audioIn; i++) r->inputChannels[k * r->audioIn + i] = inputChannels[i];
    for (size_t o = 0; o < r->audioOut; o++) r->outputChannels[k * r->audioOut + o] = outputChannels[o];
}

static float *audio_slot(timbre_plugin_runner *r, size_t k, size_t slot) {
    return r->audio + (k * (r->audioIn + r->audioOut + r->cvCount) + slot) * r->maxFrames;
}

float *timbre_plugin_runner_audio_in(timbre_plugin_runner *r, size_t k, size_t i) { return audio_slot(r, k, i); }
float *timbre_plugin_runner_audio_out(timbre_plugin_runner *r, size_t k, size_t o) { return audio_slot(r, k, r->audioIn + o); }
float *timbre_plugin_runner_cv(timbre_plugin_runner *r, size_t k, size_t v) { return audio_slot(r, k, r->audioIn + r->audioOut + v); }
float *timbre_plugin_runner_control(timbre_plugin_runner *r, size_t k, size_t c) { return r->controls + k * r->controlCount + c; }
float *timbre_plugin_runner_output(timbre_plugin_runner *r, size_t k, size_t c) { return r->outputs + k * r->outputCount + c; }

static LV2_Atom_Sequence *atom_slot(timbre_plugin_runner *r, size_t k, size_t slot) {
    return (LV2_Atom_Sequence *)(r->atoms + (k * (r->atomIn + r->atomOut) + slot) * r->atomCapacity);
}

void *timbre_plugin_runner_atom_in(timbre_plugin_runner *r, size_t k, size_t a) { return atom_slot(r, k, a); }
void *timbre_plugin_runner_atom_out(timbre_plugin_runner *r, size_t k, size_t a) { return atom_slot(r, k, r->atomIn + a); }

static uint64_t now_nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void timbre_plugin_runner_process(timbre_plugin_runner *r, float *const *channels, size_t frames, const float *controls) {
    if (frames == 0) return;
    if (frames > r->maxFrames) frames = r->maxFrames;
    for (size_t k = 0; k < r->instances; k++) {
        if (r->controlCount) memcpy(r->controls + k * r->controlCount, controls, r->controlCount * sizeof(float));
        for (size_t i = 0; i < r->audioIn; i++) memcpy(audio_slot(r, k, i), channels[r->inputChannels[k * r->audioIn + i]], frames * sizeof(float));
        // Atom ports, as LV2 asks before every run: inputs an empty sequence, outputs the
        // capacity they may fill.
        for (size_t a = 0; a < r->atomIn; a++) {
            LV2_Atom_Sequence *s = atom_slot(r, k, a);
            s->atom.size = sizeof(LV2_Atom_Sequence_Body); s->atom.type = r->sequenceType;
            s->body.unit = 0; s->body.pad = 0;
        }
        for (size_t a = 0; a < r->atomOut; a++) {
            LV2_Atom_Sequence *s = atom_slot(r, k, r->atomIn + a);
            s->atom.size = r->atomCapacity - sizeof(LV2_Atom); s->atom.type = r->chunkType;
        }
    }
    const uint64_t start = now_nanos();
    for (size_t k = 0; k < r->instances; k++) {
        if (r->kind == TIMBRE_PLUGIN_LV2) {
            ((lv2_run_fn)r->runs[k])(r->handles[k], (uint32_t)frames);
            if (r->workers[k]) timbre_lv2_worker_deliver(r->workers[k]);
        } else {
            ((ladspa_run_fn)r->runs[k])(r->handles[k], (unsigned long)frames);
        }
    }
    const uint64_t took = now_nanos() - start;
    atomic_fetch_add_explicit(&r->blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->totalNanos, took, memory_order_relaxed);
    if (took > atomic_load_explicit(&r->maxNanos, memory_order_relaxed)) atomic_store_explicit(&r->maxNanos, took, memory_order_relaxed);
    for (size_t k = 0; k < r->instances; k++) {
        for (size_t o = 0; o < r->audioOut; o++) memcpy(channels[r->outputChannels[k * r->audioOut + o]], audio_slot(r, k, r->audioIn + o), frames * sizeof(float));
    }
}

int timbre_plugin_runner_settling(const timbre_plugin_runner *r) {
    for (size_t k = 0; k < r->instances; k++) if (timbre_lv2_worker_busy(r->workers[k])) return 1;
    return 0;
}

float timbre_plugin_runner_output_value(const timbre_plugin_runner *r, size_t c) {
    return c < r->outputCount ? r->outputs[c] : 0;
}

void timbre_plugin_runner_stats(const timbre_plugin_runner *r, uint64_t *blocks, double *meanNanos, uint64_t *maxNanos) {
    uint64_t b = atomic_load_explicit(&r->blocks, memory_order_relaxed);
    uint64_t total = atomic_load_explicit(&r->totalNanos, memory_order_relaxed);
    *blocks = b;
    *meanNanos = b ? (double)total / (double)b : 0;
    *maxNanos = atomic_load_explicit(&r->maxNanos, memory_order_relaxed);
}
