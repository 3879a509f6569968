// Temporary files removed when the process is stopped by SIGINT, SIGTERM or SIGHUP.
// The handler only calls async-signal-safe functions (unlink, _exit, and atomics).
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include "CTimbreSupport.h"

#define SLOTS 512
static char paths[SLOTS][PATH_MAX];
// 0 free, 1 being written, 2 holds a path to remove.
static _Atomic int states[SLOTS];

int timbre_temporary_register(const char *path) {
    size_t n = strlen(path);
    if (n >= PATH_MAX) return -1;
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&states[i], &expected, 1)) {
            memcpy(paths[i], path, n + 1);
            atomic_store(&states[i], 2);
            return i;
        }
    }
    return -1;
}

void timbre_temporary_unregister(int slot) {
    if (slot >= 0 && slot < SLOTS) atomic_store(&states[slot], 0);
}

void timbre_temporary_remove_all(void) {
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&states[i]) == 2) unlink(paths[i]);
    }
}

static void on_signal(int sig) {
    timbre_temporary_remove_all();
    _exit(128 + sig);
}

void timbre_temporary_install_signal_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
    // A parent may hand down a mask that blocks them (a test harness, a job runner): unblock,
    // or the signal would wait until the render ends and the output would appear after all.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
