/* Host memory that clip fills: huge-page advice, and large blocks kept for reuse. Internal to
 * lib/. */
#ifndef CLIP_HOST_POOL_H
#define CLIP_HOST_POOL_H

#include <stddef.h>

/* Advises the whole 2 MiB pages inside [p, p + bytes) into transparent huge pages (advice only:
 * nothing changes where THP is off or the range holds no whole huge page). */
void clip_advise_huge_pages(void *p, size_t bytes);

/* A block of host memory: p is aligned as asked, cap >= the bytes asked. */
typedef struct clip_host_block {
    void *p;
    size_t cap;
    size_t align;
    struct clip_host_block *next; /* in the pool's list while kept */
} clip_host_block;

/* A block of at least `bytes` aligned to `align` (a power of two): a kept one when one fits
 * (contents undefined: whatever the last user wrote), else new memory. NULL when out of memory.
 * Thread-safe. */
clip_host_block *clip_host_block_get(size_t bytes, size_t align);

/* Gives a block back: kept for the next get while some app is open and the pool has room,
 * else freed. NULL is a no-op. Thread-safe (OpenCL destructor callbacks call it). */
void clip_host_block_put(clip_host_block *b);

/* An app was opened / freed (root apps only): when none is left, kept blocks are freed, so a
 * program that has closed clip holds none of this memory. */
void clip_host_pool_app_opened(void);
void clip_host_pool_app_closed(void);

/* The number of blocks kept now and, when bytes is not NULL, their total capacity (for tests). */
size_t clip_host_pool_kept(size_t *bytes);

#endif
