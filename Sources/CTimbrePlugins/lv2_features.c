// LV2 host features for Timbre's plugin nodes (see CTimbrePlugins.h).
// Specifications: https://lv2plug.in/ns/ext/urid, /log, /options, /buf-size, /state, /worker.
#define _GNU_SOURCE
#include "CTimbrePlugins.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lv2/buf-size/buf-size.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/parameters/parameters.h>
#include <lv2/state/state.h>
#include <lv2/urid/urid.h>

// ---- URID map: one table for the process (IDs must agree between all instances) ----

static pthread_mutex_t urid_lock = PTHREAD_MUTEX_INITIALIZER;
static char **urid_uris = NULL;
static size_t urid_count = 0, urid_capacity = 0;

uint32_t timbre_urid_map(const char *uri) {
    if (uri == NULL) return 0;
    pthread_mutex_lock(&urid_lock);
    for (size_t i = 0; i < urid_count; i++) {
        if (strcmp(urid_uris[i], uri) == 0) { pthread_mutex_unlock(&urid_lock); return (uint32_t)(i + 1); }
    }
    if (urid_count == urid_capacity) {
        size_t capacity = urid_capacity ? 2 * urid_capacity : 256;
        char **grown = realloc(urid_uris, capacity * sizeof(char *));
        if (grown == NULL) { pthread_mutex_unlock(&urid_lock); return 0; }
        urid_uris = grown; urid_capacity = capacity;
    }
    urid_uris[urid_count] = strdup(uri);
    uint32_t id = (uint32_t)++urid_count;
    pthread_mutex_unlock(&urid_lock);
    return id;
}

const char *timbre_urid_unmap(uint32_t urid) {
    pthread_mutex_lock(&urid_lock);
    const char *uri = urid >= 1 && urid <= urid_count ? urid_uris[urid - 1] : NULL;
    pthread_mutex_unlock(&urid_lock);
    return uri;
}

static LV2_URID urid_map_cb(LV2_URID_Map_Handle handle, const char *uri) { (void)handle; return timbre_urid_map(uri); }
static const char *urid_unmap_cb(LV2_URID_Unmap_Handle handle, LV2_URID urid) { (void)handle; return timbre_urid_unmap(urid); }

// ---- log: one line per message on stderr, prefixed with the plugin's name ----

static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, va_list ap) {
    (void)type;
    char line[512];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    size_t len = strlen(line);
    while (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
    fprintf(stderr, "timbre: plugin %s: %s\n", (const char *)handle, line);
    return n;
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = log_vprintf(handle, type, fmt, ap);
    va_end(ap);
    return n;
}

// ---- state:mapPath / freePath: paths are kept absolute (presets and state live on disk) ----

static char *map_abstract(LV2_State_Map_Path_Handle handle, const char *absolute) { (void)handle; return strdup(absolute); }
static char *map_absolute(LV2_State_Map_Path_Handle handle, const char *abstract) { (void)handle; return strdup(abstract); }
static void free_path(LV2_State_Free_Path_Handle handle, char *path) { (void)handle; free(path); }

// ---- worker ----

/// A single-producer single-consumer byte ring: records of (uint32 size, bytes), padded to 8.
typedef struct {
    uint8_t *data;
    size_t capacity;
    _Atomic size_t head;  // written by the producer
    _Atomic size_t tail;  // written by the consumer
} ring;

static size_t record_size(uint32_t size) { return (sizeof(uint32_t) + size + 7) & ~(size_t)7; }

static int ring_init(ring *r, size_t capacity) {
    r->data = calloc(1, capacity);
    r->capacity = capacity;
    atomic_init(&r->head, 0); atomic_init(&r->tail, 0);
    return r->data != NULL;
}

static void ring_copy_in(ring *r, size_t at, const void *src, size_t n) {
    for (size_t i = 0; i < n; i++) r->data[(at + i) % r->capacity] = ((const uint8_t *)src)[i];
}

static void ring_copy_out(const ring *r, size_t at, void *dst, size_t n) {
    for (size_t i = 0; i < n; i++) ((uint8_t *)dst)[i] = r->data[(at + i) % r->capacity];
}

static int ring_write(ring *r, uint32_t size, const void *body) {
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t need = record_size(size);
    if (r->capacity - (head - tail) < need) return 0;
    ring_copy_in(r, head, &size, sizeof size);
    ring_copy_in(r, head + sizeof size, body, size);
    atomic_store_explicit(&r->head, head + need, memory_order_release);
    return 1;
}

/// Reads one record into `body` (at most `capacity` bytes); returns its size, or -1 when empty.
static long ring_read(ring *r, void *body, size_t capacity) {
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (head == tail) return -1;
    uint32_t size;
    ring_copy_out(r, tail, &size, sizeof size);
    if (size <= capacity) ring_copy_out(r, tail + sizeof size, body, size);
    atomic_store_explicit(&r->tail, tail + record_size(size), memory_order_release);
    return size <= capacity ? (long)size : 0;
}

struct timbre_lv2_worker {
    ring requests, responses;
    size_t capacity;
    uint8_t *scratch;        // the worker thread's copy of a request
    uint8_t *delivery;       // the render thread's copy of a response
    sem_t wake;
    pthread_t thread;
    int started;
    _Atomic int running;
    _Atomic uint64_t dropped;
    _Atomic int pending;     // requests scheduled and not yet worked
    const LV2_Worker_Interface *interface;
    LV2_Handle handle;
    LV2_Worker_Schedule schedule;
};

static LV2_Worker_Status schedule_work(LV2_Worker_Schedule_Handle handle, uint32_t size, const void *data) {
    timbre_lv2_worker *w = handle;
    atomic_fetch_add(&w->pending, 1);
    if (!ring_write(&w->requests, size, data)) {
        atomic_fetch_sub(&w->pending, 1); atomic_fetch_add(&w->dropped, 1);
        return LV2_WORKER_ERR_NO_SPACE;
    }
    sem_post(&w->wake);
    return LV2_WORKER_SUCCESS;
}

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size, const void *data) {
    timbre_lv2_worker *w = handle;
    return ring_write(&w->responses, size, data) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

static void *worker_main(void *arg) {
    timbre_lv2_worker *w = arg;
    for (;;) {
        sem_wait(&w->wake);
        if (!atomic_load(&w->running)) break;
        long n;
        while ((n = ring_read(&w->requests, w->scratch, w->capacity)) >= 0) {
            w->interface->work(w->handle, respond, w, (uint32_t)n, w->scratch);
            atomic_fetch_sub(&w->pending, 1);
        }
    }
    return NULL;
}

timbre_lv2_worker *timbre_lv2_worker_new(size_t capacity) {
    timbre_lv2_worker *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->capacity = capacity;
    if (!ring_init(&w->requests, capacity) || !ring_init(&w->responses, capacity)) { timbre_lv2_worker_free(w); return NULL; }
    w->scratch = malloc(capacity);
    w->delivery = malloc(capacity);
    sem_init(&w->wake, 0, 0);
    atomic_init(&w->running, 0);
    atomic_init(&w->dropped, 0);
    atomic_init(&w->pending, 0);
    w->schedule.handle = w;
    w->schedule.schedule_work = schedule_work;
    return w;
}

void timbre_lv2_worker_start(timbre_lv2_worker *w, const LV2_Worker_Interface *interface, LV2_Handle handle) {
    if (w == NULL || interface == NULL || w->started) return;
    w->interface = interface;
    w->handle = handle;
    atomic_store(&w->running, 1);
    w->started = pthread_create(&w->thread, NULL, worker_main, w) == 0;
}

void timbre_lv2_worker_free(timbre_lv2_worker *w) {
    if (w == NULL) return;
    if (w->started) {
        atomic_store(&w->running, 0);
        sem_post(&w->wake);
        pthread_join(w->thread, NULL);
    }
    sem_destroy(&w->wake);
    free(w->requests.data); free(w->responses.data); free(w->scratch); free(w->delivery);
    free(w);
}

uint64_t timbre_lv2_worker_dropped(const timbre_lv2_worker *w) { return w ? atomic_load(&w->dropped) : 0; }

int timbre_lv2_worker_busy(timbre_lv2_worker *w) {
    if (w == NULL) return 0;
    return atomic_load(&w->pending) > 0
        || atomic_load_explicit(&w->responses.head, memory_order_acquire) != atomic_load_explicit(&w->responses.tail, memory_order_acquire);
}

void timbre_lv2_worker_deliver(timbre_lv2_worker *w) {
    if (w == NULL || w->interface == NULL) return;
    long n;
    while ((n = ring_read(&w->responses, w->delivery, w->capacity)) >= 0) {
        if (w->interface->work_response) w->interface->work_response(w->handle, (uint32_t)n, w->delivery);
    }
    if (w->interface->end_run) w->interface->end_run(w->handle);
}

// ---- the feature array of one instance ----

static const char *const supported_features[] = {
    LV2_URID__map, LV2_URID__unmap, LV2_LOG__log, LV2_OPTIONS__options, LV2_BUF_SIZE__boundedBlockLength,
    LV2_STATE__mapPath, LV2_STATE__freePath, LV2_WORKER__schedule, NULL,
};

const char *timbre_lv2_supported_feature(size_t i) {
    return i < sizeof supported_features / sizeof supported_features[0] ? supported_features[i] : NULL;
}

/// Everything one feature array points at, allocated together.
typedef struct {
    LV2_Feature *array[10];
    LV2_Feature features[9];
    LV2_URID_Map map;
    LV2_URID_Unmap unmap;
    LV2_Log_Log log;
    LV2_State_Map_Path mapPath;
    LV2_State_Free_Path freePath;
    LV2_Options_Option options[6];
    int32_t maxBlock, minBlock, nominalBlock;
    float sampleRate;
    char name[128];
} feature_set;

const LV2_Feature *const *timbre_lv2_features_new(const char *name, double sampleRate, uint32_t maxBlock, timbre_lv2_worker *worker) {
    feature_set *f = calloc(1, sizeof *f);
    if (f == NULL) return NULL;
    snprintf(f->name, sizeof f->name, "%s", name ? name : "?");
    f->map = (LV2_URID_Map){ NULL, urid_map_cb };
    f->unmap = (LV2_URID_Unmap){ NULL, urid_unmap_cb };
    f->log = (LV2_Log_Log){ f->name, log_printf, log_vprintf };
    f->mapPath = (LV2_State_Map_Path){ NULL, map_abstract, map_absolute };
    f->freePath = (LV2_State_Free_Path){ NULL, free_path };
    f->maxBlock = (int32_t)maxBlock; f->minBlock = 1; f->nominalBlock = (int32_t)maxBlock;
    f->sampleRate = (float)sampleRate;
    const LV2_URID intType = timbre_urid_map(LV2_ATOM__Int), floatType = timbre_urid_map(LV2_ATOM__Float);
    f->options[0] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, timbre_urid_map(LV2_BUF_SIZE__maxBlockLength), sizeof(int32_t), intType, &f->maxBlock };
    f->options[1] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, timbre_urid_map(LV2_BUF_SIZE__minBlockLength), sizeof(int32_t), intType, &f->minBlock };
    f->options[2] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, timbre_urid_map(LV2_BUF_SIZE__nominalBlockLength), sizeof(int32_t), intType, &f->nominalBlock };
    f->options[3] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, timbre_urid_map(LV2_PARAMETERS__sampleRate), sizeof(float), floatType, &f->sampleRate };
    f->options[4] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL };
    size_t n = 0;
    f->features[n++] = (LV2_Feature){ LV2_URID__map, &f->map };
    f->features[n++] = (LV2_Feature){ LV2_URID__unmap, &f->unmap };
    f->features[n++] = (LV2_Feature){ LV2_LOG__log, &f->log };
    f->features[n++] = (LV2_Feature){ LV2_OPTIONS__options, f->options };
    f->features[n++] = (LV2_Feature){ LV2_BUF_SIZE__boundedBlockLength, NULL };
    f->features[n++] = (LV2_Feature){ LV2_STATE__mapPath, &f->mapPath };
    f->features[n++] = (LV2_Feature){ LV2_STATE__freePath, &f->freePath };
    if (worker) f->features[n++] = (LV2_Feature){ LV2_WORKER__schedule, &worker->schedule };
    for (size_t i = 0; i < n; i++) f->array[i] = &f->features[i];
    f->array[n] = NULL;
    return (const LV2_Feature *const *)f->array;
}

void timbre_lv2_features_free(const LV2_Feature *const *features) {
    // The array is the first member of its feature_set.
    free((void *)features);
}
