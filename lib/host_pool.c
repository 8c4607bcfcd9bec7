/* Large host blocks kept after use, as CuPy's and PyTorch's caching allocators keep device
 * memory. On a device that works in host memory (PoCL) a device copy's memory is clip's own
 * block, and a loop or chain that makes data of the same sizes every call (the MEX gateway's
 * results, clip.Array chains) would otherwise get fresh memory each time: the kernel zeroes every
 * page before the first touch, and on the 2-core VM clip is measured on that was 11.6% of a
 * 2048^2 single conv2 through the gateway (perf), the write faults 8% more. glibc returns blocks
 * this large to the system on free, so its own reuse does not help.
 * Bounded: blocks under POOL_MIN_BYTES are plain allocations; at most POOL_MAX_BLOCKS blocks and
 * POOL_MAX_BYTES bytes are kept, the oldest dropped first; a block serves a request of at least
 * half its size; everything kept is freed when the last app goes. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "host_pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define POOL_MIN_BYTES ((size_t)4 << 20)
#define POOL_MAX_BLOCKS 8
#define POOL_MAX_BYTES ((size_t)512 << 20)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static clip_host_block *kept; /* newest first */
static size_t kept_count, kept_bytes;
static long open_apps;

/* Fresh memory is faulted in 4 KiB pages when first touched, ~11 us each on that VM (90 ms for
 * 32 MB); in transparent huge pages the same took ~3 ms. */
void clip_advise_huge_pages(void *p, size_t bytes) {
#if defined(MADV_HUGEPAGE)
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1),
              hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (bytes >= 2 * HUGE_PAGE && hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

static void block_free(clip_host_block *b) {
    free(b->p);
    free(b);
}

/* Unlinks and returns the smallest kept block that serves the request, or NULL. */
static clip_host_block *take_fitting(size_t bytes, size_t align) {
    clip_host_block **best = NULL;
    for (clip_host_block **at = &kept; *at; at = &(*at)->next) {
        const clip_host_block *b = *at;
        if (b->cap >= bytes && b->cap / 2 <= bytes && b->align % align == 0 &&
            (!best || b->cap < (*best)->cap))
            best = at;
    }
    if (!best) return NULL;
    clip_host_block *b = *best;
    *best = b->next;
    kept_count--;
    kept_bytes -= b->cap;
    return b;
}

clip_host_block *clip_host_block_get(size_t bytes, size_t align) {
    if (bytes >= POOL_MIN_BYTES) {
        pthread_mutex_lock(&pool_lock);
        clip_host_block *b = take_fitting(bytes, align);
        pthread_mutex_unlock(&pool_lock);
        if (b) return b;
        /* Whole huge pages, so that the block is all THP and a later request of a size
         * rounding the same way fits it exactly. */
        align = align > HUGE_PAGE ? align : HUGE_PAGE;
    }
    clip_host_block *b = malloc(sizeof *b);
    size_t cap = (bytes + align - 1) / align * align;
    void *p = b && cap >= bytes ? aligned_alloc(align, cap ? cap : align) : NULL;
    if (!p) {
        free(b);
        return NULL;
    }
    clip_advise_huge_pages(p, cap);
    *b = (clip_host_block){.p = p, .cap = cap, .align = align};
    return b;
}

void clip_host_block_put(clip_host_block *b) {
    if (!b) return;
    clip_host_block *drop = NULL;
    pthread_mutex_lock(&pool_lock);
    if (b->cap >= POOL_MIN_BYTES && b->cap <= POOL_MAX_BYTES && open_apps > 0) {
        b->next = kept;
        kept = b;
        kept_count++;
        kept_bytes += b->cap;
        /* Over the bounds: drop the oldest (the list's tail) until within. */
        while (kept_count > POOL_MAX_BLOCKS || kept_bytes > POOL_MAX_BYTES) {
            clip_host_block **at = &kept;
            while ((*at)->next)
                at = &(*at)->next;
            clip_host_block *old = *at;
            *at = NULL;
            kept_count--;
            kept_bytes -= old->cap;
            old->next = drop;
            drop = old;
        }
        b = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (b) block_free(b);
    while (drop) {
        clip_host_block *next = drop->next;
        block_free(drop);
        drop = next;
    }
}

void clip_host_pool_app_opened(void) {
    pthread_mutex_lock(&pool_lock);
    open_apps++;
    pthread_mutex_unlock(&pool_lock);
}

void clip_host_pool_app_closed(void) {
    pthread_mutex_lock(&pool_lock);
    clip_host_block *drop = --open_apps > 0 ? NULL : kept;
    if (drop) {
        kept = NULL;
        kept_count = kept_bytes = 0;
    }
    pthread_mutex_unlock(&pool_lock);
    while (drop) {
        clip_host_block *next = drop->next;
        block_free(drop);
        drop = next;
    }
}

size_t clip_host_pool_kept(size_t *bytes) {
    pthread_mutex_lock(&pool_lock);
    size_t n = kept_count;
    if (bytes) *bytes = kept_bytes;
    pthread_mutex_unlock(&pool_lock);
    return n;
}
