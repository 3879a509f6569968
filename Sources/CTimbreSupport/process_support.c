#define _GNU_SOURCE
#include <sys/socket.h>
#include "CTimbreSupport.h"

/* The user id of the process at the other end of a Unix-domain socket (SO_PEERCRED, which
   glibc declares only with _GNU_SOURCE, out of Swift's reach), or -1. */
long timbre_socket_peer_uid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return (long)credentials.uid;
}

#include <sys/prctl.h>

/* Names the calling thread (at most 15 bytes show), so tools and tests can tell threads apart. */
void timbre_name_this_thread(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

#include <sys/resource.h>
#include <unistd.h>

/* Sets the calling thread's nice value (Linux keeps one per thread; gettid is _GNU_SOURCE). */
int timbre_set_this_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)gettid(), nice);
}
