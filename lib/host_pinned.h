/* Page-locked host storage for data that moves to and from a discrete device. Internal to lib/.
 *
 * A discrete GPU copies pageable memory through the driver's own staging buffers: on the H100
 * measured, 8-9 GB/s up and 2-4 GB/s down (fresh pages), against the tens of GB/s its link moves
 * from page-locked memory, and two GPUs' copies from pageable memory do not add up. The portable
 * way to page-locked memory in OpenCL is a buffer made with CL_MEM_ALLOC_HOST_PTR and mapped:
 * the mapped pointer becomes the data's host storage, and every copy from or into it runs at the
 * link's rate (NVIDIA's OpenCL best-practice guide names this pattern). */
#ifndef CLIP_HOST_PINNED_H
#define CLIP_HOST_PINNED_H

#include <stddef.h>

#include "internal.h"

/* Whether data of `bytes` made in app should live in page-locked memory. CLIP_PINNED chooses:
 * "0" never, "1" always (any device and size; tests use it on PoCL), unset or anything else:
 * when app's primary device has memory of its own (not CL_DEVICE_HOST_UNIFIED_MEMORY) and bytes
 * is at least 4 MiB and at most the device's largest allocation. The page-locked total is bounded
 * by clip_pinned_alloc. */
int clip_pinned_wanted(const clip_app *app, size_t bytes);

/* Page-locked host memory of `bytes` (> 0) through app's context and queue, or NULL when the
 * driver refuses it or the page-locked total would pass half the machine's memory (locked pages
 * cannot be swapped or reclaimed). The caller then uses ordinary memory: page-locking only speeds
 * transfers.
 * *mem is the buffer behind it, to pass to clip_pinned_free. */
void *clip_pinned_alloc(clip_app *app, size_t bytes, cl_mem *mem);

/* Gives back memory from clip_pinned_alloc (app the same app, still alive): kept for app's next
 * allocation of the same size (at least 4 MiB; at most CLIP_PINNED_POOL blocks and an eighth of the
 * machine's memory kept per app), else unmapped and released. Commands still reading or writing p
 * must be on app's queue: a kept block is handed out again only after that queue has finished. */
void clip_pinned_free(clip_app *app, void *p, size_t bytes, cl_mem mem);

/* Unmaps and releases app's kept blocks (when the app is freed, after its queue has finished, or
 * when the page-locked total would pass its bound). */
void clip_pinned_pool_release(clip_app *app);

#endif
