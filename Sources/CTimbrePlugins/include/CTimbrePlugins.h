// Timbre's plugin host glue in C: the LV2 host features a plugin receives (URID map/unmap,
// log, worker, options, state:mapPath, bufsz) and the render-side runner that moves a block
// through a plugin's instances. C because LV2's callbacks are C function pointers (log is
// variadic) and the worker's rings need C11 atomics; the rest of the host is Swift
// (TimbrePlugins). Nothing here allocates, locks or prints on the render path except what
// a plugin itself does in its `run`.
#ifndef CTIMBRE_PLUGINS_H
#define CTIMBRE_PLUGINS_H

#include <stddef.h>
#include <stdint.h>
#include <lv2/core/lv2.h>
#include <lv2/atom/atom.h>
#include <lv2/worker/worker.h>

// ---- Host features ----

/// The process-wide URID map (a mutex-guarded table: plugins map at instantiation; a plugin
/// mapping in `run` would take the lock — the plugin's choice). IDs start at 1.
uint32_t timbre_urid_map(const char *uri);
/// The URI of `urid`, or NULL.
const char *timbre_urid_unmap(uint32_t urid);

/// The features for one LV2 instance: urid:map, urid:unmap, log:log, options:options
/// (block lengths, sample rate), bufsz:boundedBlockLength, state:mapPath, state:freePath and,
/// when `worker` is non-NULL, worker:schedule. `name` prefixes the plugin's log lines. The
/// array is NULL-terminated; free it with `timbre_lv2_features_free`.
typedef struct timbre_lv2_worker timbre_lv2_worker;
const LV2_Feature *const *timbre_lv2_features_new(const char *name, double sampleRate, uint32_t maxBlock,
                                                   timbre_lv2_worker *worker);
void timbre_lv2_features_free(const LV2_Feature *const *features);
/// The URI of the `i`-th feature `timbre_lv2_features_new` provides, NULL past the last.
const char *timbre_lv2_supported_feature(size_t i);

/// LV2 worker: requests the plugin schedules in `run` go through a lock-free ring to a thread
/// of their own, which calls the plugin's `work`; its responses come back through another ring
/// and are delivered at the end of the next `run` (then `end_run`). Rings of `capacity` bytes.
timbre_lv2_worker *timbre_lv2_worker_new(size_t capacity);
/// Binds the worker to an instance (after instantiation, before the first run) and starts its thread.
void timbre_lv2_worker_start(timbre_lv2_worker *worker, const LV2_Worker_Interface *interface, LV2_Handle handle);
/// Stops the thread and frees the worker (control thread, after the instance's last run).
void timbre_lv2_worker_free(timbre_lv2_worker *worker);
/// Requests dropped because the ring was full (the plugin asked too much at once).
uint64_t timbre_lv2_worker_dropped(const timbre_lv2_worker *worker);
/// 1 while requests wait for the worker or responses wait for the next run.
int timbre_lv2_worker_busy(timbre_lv2_worker *worker);
/// Delivers the worker's responses to the plugin, then its end_run (render thread, after run).
void timbre_lv2_worker_deliver(timbre_lv2_worker *worker);

// ---- The runner: one plugin node's instances on the render thread ----

typedef struct timbre_plugin_runner timbre_plugin_runner;

enum { TIMBRE_PLUGIN_LV2 = 0, TIMBRE_PLUGIN_LADSPA = 1 };

/// Allocates the runner for `instances` instances of a plugin with `audioIn`/`audioOut` audio
/// ports, `controlCount` control inputs, `outputCount` control outputs, `atomIn`/`atomOut`
/// atom ports and `cvCount` CV ports each, blocks of at most `maxFrames`. Buffers are
/// allocated here, once; connect the ports to them (the accessors below) before the first run.
timbre_plugin_runner *timbre_plugin_runner_new(int kind, size_t instances, size_t audioIn, size_t audioOut,
                                               size_t controlCount, size_t outputCount, size_t atomIn, size_t atomOut,
                                               size_t cvCount, size_t maxFrames);
void timbre_plugin_runner_free(timbre_plugin_runner *runner);

/// Sets instance `k`'s handle and run function (LV2: `LV2_Descriptor.run`; LADSPA:
/// `LADSPA_Descriptor.run`), worker (LV2, or NULL) and end_run.
void timbre_plugin_runner_set_instance(timbre_plugin_runner *runner, size_t k, void *handle, void *run,
                                       timbre_lv2_worker *worker, const LV2_Worker_Interface *workerInterface);
/// Which node channel feeds audio input `i` of instance `k`, and which receives output `o`.
void timbre_plugin_runner_route(timbre_plugin_runner *runner, size_t k, const size_t *inputChannels, const size_t *outputChannels);

float *timbre_plugin_runner_audio_in(timbre_plugin_runner *runner, size_t k, size_t i);
float *timbre_plugin_runner_audio_out(timbre_plugin_runner *runner, size_t k, size_t o);
float *timbre_plugin_runner_control(timbre_plugin_runner *runner, size_t k, size_t c);
float *timbre_plugin_runner_output(timbre_plugin_runner *runner, size_t k, size_t c);
void *timbre_plugin_runner_atom_in(timbre_plugin_runner *runner, size_t k, size_t a);
void *timbre_plugin_runner_atom_out(timbre_plugin_runner *runner, size_t k, size_t a);
float *timbre_plugin_runner_cv(timbre_plugin_runner *runner, size_t k, size_t v);

/// One block: the plan's control values (`controlCount` floats) into every instance's control
/// ports, the node's channels into the input buffers, `run` on each instance (worker responses
/// delivered after it), the output buffers back into the channels (in place). Times the runs
/// (CLOCK_MONOTONIC, vDSO: no system call). No allocation, no locks.
void timbre_plugin_runner_process(timbre_plugin_runner *runner, float *const *channels, size_t frames, const float *controls);

/// 1 while any instance's worker is busy (see `timbre_lv2_worker_busy`).
int timbre_plugin_runner_settling(const timbre_plugin_runner *runner);

/// Control output `c` of instance 0 after the last run (a latency port, a meter).
float timbre_plugin_runner_output_value(const timbre_plugin_runner *runner, size_t c);

/// Run-time statistics since the runner was made: blocks run, mean and largest time of one
/// block's `run` calls (all instances), in nanoseconds.
void timbre_plugin_runner_stats(const timbre_plugin_runner *runner, uint64_t *blocks, double *meanNanos, uint64_t *maxNanos);

#endif
