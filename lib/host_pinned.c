/* Page-locked host storage (see host_pinned.h for why). */
#define _DEFAULT_SOURCE
#include "host_pinned.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

#define PINNED_MIN_BYTES ((size_t)4 << 20)

static atomic_uint_fast64_t pinned_total;

/* Half the machine's memory: page-locking more starves everything else. */
static uint64_t pinned_cap(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;
}

int clip_pinned_wanted(const clip_app *app, size_t bytes) {
    const char *env = getenv("CLIP_PINNED");
    if (env && !strcmp(env, "0")) return 0;
    if (!app || !bytes || bytes > app->info.max_alloc) return 0;
    if (env && !strcmp(env, "1")) return 1;
    if (bytes < PINNED_MIN_BYTES) return 0;
    return app->memory.own_memory; /* the half-of-memory cap is checked where the storage is made */
}

void *clip_pinned_alloc(clip_app *app, size_t bytes, cl_mem *mem) {
    *mem = NULL;
    /* The cap is checked here, when the storage is made (at first use), and counted before
     * the buffer, so allocations in several threads cannot pass it together. */
    const uint64_t was = atomic_fetch_add(&pinned_total, bytes);
    if (was + bytes > pinned_cap()) {
        atomic_fetch_sub(&pinned_total, bytes);
        return NULL;
    }
    cl_int e = CLIP_FAULT(CLIP_FAULT_FALLBACK) ? CL_MEM_OBJECT_ALLOCATION_FAILURE : CL_SUCCESS;
    cl_mem m = e ? NULL
                 : clCreateBuffer(app->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                                  NULL, &e);
    if (e != CL_SUCCESS || !m) {
        atomic_fetch_sub(&pinned_total, bytes);
        return NULL;
    }
    e = CLIP_FAULT(CLIP_FAULT_FALLBACK) ? CL_MAP_FAILURE : CL_SUCCESS;
    void *p = e ? NULL
                : clEnqueueMapBuffer(app->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                     0, NULL, NULL, &e);
    if (e != CL_SUCCESS || !p) {
        clReleaseMemObject(m);
        atomic_fetch_sub(&pinned_total, bytes);
        return NULL;
    }
    *mem = m;
    return p;
}

void clip_pinned_free(clip_app *app, void *p, size_t bytes, cl_mem mem) {
    if (!mem) return;
    /* The unmap is enqueued before the release, so the buffer goes once it is done. */
    clEnqueueUnmapMemObject(app->queue, mem, p, 0, NULL, NULL);
    clReleaseMemObject(mem);
    atomic_fetch_sub(&pinned_total, bytes);
}
