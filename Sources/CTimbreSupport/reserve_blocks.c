// Disk blocks set aside for a file's coming data, its size unchanged (Linux `fallocate` with
// FALLOC_FL_KEEP_SIZE; Swift's Glibc module leaves the GNU call out).
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/falloc.h>
#include "CTimbreSupport.h"

int timbre_reserve_blocks(int descriptor, long long bytes) {
    return fallocate(descriptor, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes);
}
