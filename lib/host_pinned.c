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

/* Page-locking is slow: on the two-GPU H200 machine (gVisor) each rank of clip-mpi spent 6.5-7.2
 * s uploading and downloading its two 1 GiB pieces into fresh page-locked storage against 1.3 s
 * without it (bench/MPI_GPU.md), and a loop that makes a result of the same size every call (the
 * Python binding's NumPy results, the MEX gateway's) locked fresh memory at every call. So the
 * storage of destroyed data is kept, mapped, for the app's next data of the same size, as the
 * device buffers are (lib/data.c). Blocks under PINNED_MIN_BYTES are cheap to lock and not kept.
 * The app is used by one thread at a time (clip/app.h), so its pool needs no lock. */
static void *pool_take(clip_app *app, size_t bytes, cl_mem *mem) {
    for (int i = 0; i < app->n_pinned; i++) {
        if (app->pinned[i].bytes != bytes) continue;
        void *p = app->pinned[i].p;
        *mem = app->pinned[i].mem;
        app->pinned[i] = app->pinned[--app->n_pinned];
        /* the data that held it may have commands on this in-order queue still reading or
         * writing it */
        clFinish(app->queue);
        return p;
    }
    return NULL;
}

static int pool_put(clip_app *app, void *p, size_t bytes, cl_mem mem) {
    uint64_t kept = bytes;
    for (int i = 0; i < app->n_pinned; i++)
        kept += app->pinned[i].bytes;
    if (bytes < PINNED_MIN_BYTES || app->n_pinned >= CLIP_PINNED_POOL || kept > pinned_cap() / 4)
        return 0;
    app->pinned[app->n_pinned++] = (struct clip_pinned_block){p, mem, bytes};
    return 1;
}

static void release(clip_app *app, void *p, size_t bytes, cl_mem mem) {
    /* The unmap is enqueued before the release, so the buffer goes once it is done. */
    clEnqueueUnmapMemObject(app->queue, mem, p, 0, NULL, NULL);
    clReleaseMemObject(mem);
    atomic_fetch_sub(&pinned_total, bytes);
}

void clip_pinned_pool_release(clip_app *app) {
    for (int i = 0; i < app->n_pinned; i++)
        release(app, app->pinned[i].p, app->pinned[i].bytes, app->pinned[i].mem);
    app->n_pinned = 0;
}

void *clip_pinned_alloc(clip_app *app, size_t bytes, cl_mem *mem) {
    *mem = NULL;
    void *kept = pool_take(app, bytes, mem);
    if (kept) return kept;
    /* The cap is checked here, when the storage is made (at first use), and counted before
     * the buffer, so allocations in several threads cannot pass it together. */
    uint64_t was = atomic_fetch_add(&pinned_total, bytes);
    if (was + bytes > pinned_cap() && app->n_pinned) {
        /* what this app keeps may be what is missing */
        atomic_fetch_sub(&pinned_total, bytes);
        clip_pinned_pool_release(app);
        was = atomic_fetch_add(&pinned_total, bytes);
    }
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
    if (!mem || pool_put(app, p, bytes, mem)) return;
    release(app, p, bytes, mem);
}
