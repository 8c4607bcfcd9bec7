/* N-dimensional data with lazily synced host and device copies. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"
#include "host_pinned.h"
#include "host_pool.h"
#include "internal.h"

size_t clip_type_size(clip_type t) {
    switch (t) {
    case CLIP_F32:
        return 4;
    case CLIP_F64:
        return 8;
    case CLIP_C32:
        return 8;
    case CLIP_C64:
        return 16;
    }
    return 0;
}

const char *clip_type_name(clip_type t) {
    switch (t) {
    case CLIP_F32:
        return "f32";
    case CLIP_F64:
        return "f64";
    case CLIP_C32:
        return "c32";
    case CLIP_C64:
        return "c64";
    }
    return "?";
}

int clip_type_is_complex(clip_type t) {
    return t == CLIP_C32 || t == CLIP_C64;
}
int clip_type_is_double(clip_type t) {
    return t == CLIP_F64 || t == CLIP_C64;
}

clip_type clip_type_promote(clip_type a, clip_type b) {
    int dbl = clip_type_is_double(a) && clip_type_is_double(b);
    int cx = clip_type_is_complex(a) || clip_type_is_complex(b);
    return cx ? (dbl ? CLIP_C64 : CLIP_C32) : (dbl ? CLIP_F64 : CLIP_F32);
}

char *clip_shape_str(int ndims, const size_t *dims, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < ndims && off < cap; i++) {
        int n = snprintf(buf + off, cap - off, "%s%zu", i ? "x" : "", dims[i]);
        if (n < 0) break;
        off += (size_t)n;
    }
    return buf;
}

char *clip_dims_str(const clip_data *d, char *buf, size_t cap) {
    return clip_shape_str(d->ndims, d->dims, buf, cap);
}

/* Validates type/dims and computes numel and bytes. */
static clip_status check_shape(clip_app *app, clip_type type, int ndims, const size_t *dims,
                               size_t *numel, size_t *bytes) {
    if (clip_type_size(type) == 0)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "data_create: invalid type %d", (int)type);
    if (ndims < 1 || ndims > CLIP_MAX_DIMS)
        return clip_set_error(app, CLIP_ERR_DIMS, "data_create: %d dimensions (allowed 1..%d)",
                              ndims, CLIP_MAX_DIMS);
    if (!dims) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "data_create: dims is NULL");
    size_t n = 1;
    for (int i = 0; i < ndims; i++)
        if (clip_mul_size(n, dims[i], &n))
            return clip_set_error(app, CLIP_ERR_OVERFLOW,
                                  "data_create: element count overflows size_t");
    if (clip_mul_size(n, clip_type_size(type), bytes))
        return clip_set_error(app, CLIP_ERR_OVERFLOW, "data_create: byte count overflows size_t");
    *numel = n;
    return CLIP_OK;
}

/* New data; its host storage is `borrow` (clip_data_wrap) or, when that is NULL, allocated
 * (zeroed with `zero`), at once or, with `deferred`, at first use. */
static clip_status make_as(clip_app *app, clip_type type, int ndims, const size_t *dims, int zero,
                           void *borrow, int deferred, clip_data **out) {
    if (!out) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "data_create: out is NULL");
    *out = NULL;
    if (!app) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "data_create: app is NULL");
    size_t numel = 0, bytes = 0;
    clip_status s = check_shape(app, type, ndims, dims, &numel, &bytes);
    if (s != CLIP_OK) return s;
    clip_data *d = calloc(1, sizeof *d);
    if (!d) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "data_create: out of memory");
    d->borrowed = borrow != NULL;
    if (borrow) {
        d->host = borrow;
    } else if (bytes && (deferred || clip_pinned_wanted(app, bytes))) {
        d->zero_pending = zero; /* page-locked storage is made at first use: a process output
                                   that never leaves its device must not lock host memory */
    } else if (bytes) {
        d->host = zero ? calloc(1, bytes) : malloc(bytes);
        if (d->host)
            clip_advise_huge_pages(d->host, bytes); /* outputs of split launches are filled
                                                  by downloads: 40 GB faulted in 4 KiB
                                                  pages capped an H100's at 1.4 GB/s */
        if (!d->host) {
            free(d);
            return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY,
                                  "data_create: cannot allocate %zu bytes on the host", bytes);
        }
    }
    d->refs = 1;
    d->app = app;
    d->type = type;
    d->ndims = ndims < 2 ? 2 : ndims;
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        d->dims[i] = 1;
    memcpy(d->dims, dims, (size_t)ndims * sizeof *dims);
    d->numel = numel;
    d->bytes = bytes;
    d->host_valid = 1;
    d->device_valid = 0;
    clip_app_retain(app);
    *out = d;
    return CLIP_OK;
}

static clip_status make(clip_app *app, clip_type type, int ndims, const size_t *dims, int zero,
                        void *borrow, clip_data **out) {
    return make_as(app, type, ndims, dims, zero, borrow, 0, out);
}

clip_status clip_data_create_deferred(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                      clip_data **out) {
    return make_as(app, type, ndims, dims, 1, NULL, 1, out);
}

clip_status clip_data_create(clip_app *app, clip_type type, int ndims, const size_t *dims,
                             clip_data **out) {
    return make(app, type, ndims, dims, 0, NULL, out);
}

clip_status clip_data_create_zeros(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                   clip_data **out) {
    return make(app, type, ndims, dims, 1, NULL, out);
}

clip_status clip_data_create_from(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                  const void *host, clip_data **out) {
    clip_status s = make(app, type, ndims, dims, 0, NULL, out);
    if (s != CLIP_OK) return s;
    if ((*out)->bytes) {
        if (!host) {
            clip_data_destroy(*out);
            *out = NULL;
            return clip_set_error(app, CLIP_ERR_INVALID_ARG, "data_create_from: host is NULL");
        }
        s = clip_data_host_storage(*out);
        if (s != CLIP_OK) {
            clip_data_destroy(*out);
            *out = NULL;
            return s;
        }
        memcpy((*out)->host, host, (*out)->bytes);
    }
    return CLIP_OK;
}

static void CL_CALLBACK free_stage(cl_mem mem, void *block) {
    (void)mem;
    clip_host_block_put(block);
}

clip_status clip_data_wrap(clip_app *app, clip_type type, int ndims, const size_t *dims, void *host,
                           clip_data **out) {
    if (!out) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "data_wrap: out is NULL");
    *out = NULL;
    size_t numel = 0, bytes = 0;
    clip_status s = app ? check_shape(app, type, ndims, dims, &numel, &bytes)
                        : clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "data_wrap: app is NULL");
    if (s != CLIP_OK) return s;
    if (bytes && !host) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "data_wrap: host is NULL");
    /* Empty data has no storage to borrow: it is made as any other. */
    s = make(app, type, ndims, dims, 0, bytes ? host : NULL, out);
    if (s == CLIP_OK && bytes) clip_advise_huge_pages(host, bytes);
    /* Less aligned memory goes through a copy of clip's (clip_data_ensure_buffer). */
    const size_t align = bytes && s == CLIP_OK ? app->memory.in_place_align : 0;
    if (align && (uintptr_t)host % align == 0) (*out)->in_place = 1;
    return s;
}

int clip_data_in_place(const clip_data *d) {
    return d && (d->in_place || d->view);
}
int clip_data_page_locked(const clip_data *d) {
    return d && d->pinned;
}

clip_data *clip_data_retain(clip_data *d) {
    if (d) d->refs++;
    return d;
}

/* The device buffer pool. Where the device has memory of its own, a buffer of destroyed data is
 * kept (up to CLIP_BUFFER_POOL of them, together at most an eighth of the device's memory) for
 * the next data of the same byte count: a chain that makes new outputs at every call (the
 * Python binding's device arrays) then neither allocates nor releases device memory. Releasing
 * a buffer that enqueued work still uses may make a driver wait for that work, which would
 * serialise a chain's host calls with its device work. Reuse is safe because every command
 * on an app's data runs on that app's in-order queue (split launches wait for their lanes
 * before they return): the next data's commands come after the last ones of the data it
 * replaces. */
static int pool_put(clip_app *app, cl_mem mem, size_t bytes) {
    size_t total = bytes;
    for (int i = 0; i < app->n_pool; i++)
        total += app->pool_bytes[i];
    const uint64_t cap = app->info.global_mem ? app->info.global_mem / 8 : 0;
    if (app->n_pool >= CLIP_BUFFER_POOL || total > cap) return 0;
    app->pool_mem[app->n_pool] = mem;
    app->pool_bytes[app->n_pool++] = bytes;
    return 1;
}

static cl_mem pool_take(clip_app *app, size_t bytes) {
    for (int i = 0; i < app->n_pool; i++) {
        if (app->pool_bytes[i] != bytes) continue;
        cl_mem m = app->pool_mem[i];
        app->n_pool--;
        app->pool_mem[i] = app->pool_mem[app->n_pool];
        app->pool_bytes[i] = app->pool_bytes[app->n_pool];
        return m;
    }
    return NULL;
}

void clip_buffer_pool_release(clip_app *app) {
    for (int i = 0; i < app->n_pool; i++)
        clReleaseMemObject(app->pool_mem[i]);
    app->n_pool = 0;
}

void clip_data_destroy(clip_data *d) {
    if (!d || --d->refs > 0) return;
    /* The buffer may still be read or written by enqueued commands: OpenCL keeps it alive until
     * they finish, so releasing here is safe; so is pooling it (pool_put). */
    if (d->view) clReleaseMemObject(d->view); /* kept alive by OpenCL for enqueued reads */
    if (d->mem && !d->in_place && !d->stage && pool_put(d->app, d->mem, d->bytes))
        d->mem = NULL;
    else if (d->mem)
        clReleaseMemObject(d->mem);
    else
        clip_host_block_put(d->stage_block); /* with a buffer, free_stage gives it back once
                                                the buffer's work is done */
    if (d->pinned)
        clip_pinned_free(d->app, d->host, d->bytes, d->pinned);
    else if (!d->borrowed)
        free(d->host);
    clip_app *app = d->app;
    free(d);
    clip_app_release(app);
}

clip_type clip_data_type(const clip_data *d) {
    return d ? d->type : CLIP_F32;
}
int clip_data_ndims(const clip_data *d) {
    return d ? d->ndims : 0;
}
size_t clip_data_dim(const clip_data *d, int i) {
    if (!d || i < 0) return 0;
    return i < d->ndims ? d->dims[i] : 1;
}
const size_t *clip_data_dims(const clip_data *d) {
    return d ? d->dims : NULL;
}
size_t clip_data_numel(const clip_data *d) {
    return d ? d->numel : 0;
}
size_t clip_data_bytes(const clip_data *d) {
    return d ? d->bytes : 0;
}
clip_app *clip_data_app(const clip_data *d) {
    return d ? d->app : NULL;
}

clip_status clip_data_host_storage(clip_data *d) {
    if (d->host || d->bytes == 0) return CLIP_OK;
    d->host = clip_pinned_alloc(d->app, d->bytes, &d->pinned);
    if (!d->host) {
        d->host = malloc(d->bytes);
        if (d->host) clip_advise_huge_pages(d->host, d->bytes);
    }
    if (!d->host)
        return clip_set_error(d->app, CLIP_ERR_OUT_OF_MEMORY,
                              "cannot allocate %zu bytes on the host", d->bytes);
    if (d->zero_pending) memset(d->host, 0, d->bytes);
    d->zero_pending = 0;
    return CLIP_OK;
}

/* Makes d's device buffer. With `fill`, where the buffer is made over host memory (the caller's,
 * in place, or clip's stage) it is made holding d's host copy: a stage is filled before the
 * buffer exists, so no command can be reading it. */
static clip_status make_buffer(clip_data *d, int fill) {
    if (d->mem || d->bytes == 0) return CLIP_OK;
    if (d->bytes > d->app->info.max_alloc) {
        char dims[128];
        return clip_set_error(d->app, CLIP_ERR_OUT_OF_MEMORY,
                              "data %s (%zu bytes) exceeds the device's largest allocation "
                              "(%llu bytes)",
                              clip_dims_str(d, dims, sizeof dims), d->bytes,
                              (unsigned long long)d->app->info.max_alloc);
    }
    cl_int e = CLIP_FAULT(CLIP_FAULT_ALLOC) ? CL_MEM_OBJECT_ALLOCATION_FAILURE : CL_SUCCESS;
    /* Where the device works on host memory, clip allocates the device copy's memory itself:
     * aligned as the device's buffers, in huge pages when large, kept for reuse when freed
     * (lib/host_pool.c). The driver's own allocations
     * were fresh 4 KiB pages at every buffer on the VM measured (PoCL), and faulting them in
     * took a 2048^2 double conv2 from 8.7 ms of device time (output buffer reused) to 60-340 ms
     * (a new one, as every result kept on the device needs). */
    const size_t align = d->in_place || e ? 0 : d->app->memory.in_place_align;
    if (align && !d->stage) {
        d->stage_block = clip_host_block_get(d->bytes, align);
        if (!d->stage_block)
            return clip_set_error(d->app, CLIP_ERR_OUT_OF_MEMORY,
                                  "cannot allocate %zu bytes for the device", d->bytes);
        d->stage = d->stage_block->p;
    }
    if (fill && d->stage && !d->in_place) memcpy(d->stage, d->host, d->bytes);
    void *over = d->in_place ? d->host : d->stage;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (over ? CL_MEM_USE_HOST_PTR : 0);
    const int faulted = e != CL_SUCCESS;
    d->mem = faulted || over ? NULL : pool_take(d->app, d->bytes);
    if (d->mem) return CLIP_OK;
    d->mem = faulted ? NULL : clCreateBuffer(d->app->context, flags, d->bytes, over, &e);
    if (!faulted && e == CL_MEM_OBJECT_ALLOCATION_FAILURE && d->app->n_pool) {
        clip_buffer_pool_release(d->app); /* the memory the pool held may be what is missing */
        e = CL_SUCCESS;
        d->mem = clCreateBuffer(d->app->context, flags, d->bytes, over, &e);
    }
    if (d->mem && d->stage) {
        e = clSetMemObjectDestructorCallback(d->mem, free_stage, d->stage_block);
        if (e != CL_SUCCESS) {
            clReleaseMemObject(d->mem);
            d->mem = NULL;
        }
    }
    if (e != CL_SUCCESS) {
        d->mem = NULL;
        return clip_set_error(d->app, CLIP_ERR_OUT_OF_MEMORY,
                              "cannot allocate %zu bytes on the device: clCreateBuffer: %s",
                              d->bytes, clip_cl_error_name(e));
    }
    return CLIP_OK;
}

clip_status clip_data_ensure_buffer(clip_data *d) {
    return make_buffer(d, 0);
}

clip_status clip_data_view(clip_data *d, cl_mem *mem, size_t *offset) {
    /* A view made once serves every later launch while the host copy is the newest: no device
     * queries on the launch path. */
    if (d->view && d->host_valid) {
        *mem = d->view;
        *offset = d->view_off;
        return CLIP_OK;
    }
    *mem = NULL;
    *offset = 0;
    const size_t align = d->borrowed && !d->in_place && d->host_valid && d->bytes
                             ? d->app->memory.in_place_align
                             : 0;
    const size_t esize = clip_type_size(d->type), below = align ? (uintptr_t)d->host % align : 0;
    if (!align || below % esize) {
        clip_status s = clip_data_to_device(d);
        if (s == CLIP_OK) *mem = d->mem;
        return s;
    }
    if (!d->view) {
        /* The bytes below host lie in its page (align divides the page size): readable memory,
         * never read by a kernel that starts at the offset. No fault-injection site: as
         * sync_in_place, tests/test_fault.c's chains use no wrapped data. */
        cl_int e = CL_SUCCESS;
        d->view = clCreateBuffer(d->app->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                 d->bytes + below, (char *)d->host - below, &e);
        if (e != CL_SUCCESS) {
            d->view = NULL;
            return clip_set_error(d->app, CLIP_ERR_OUT_OF_MEMORY,
                                  "cannot make a %zu-byte view of host memory: clCreateBuffer: %s",
                                  d->bytes + below, clip_cl_error_name(e));
        }
        d->view_off = below / esize;
    }
    *mem = d->view;
    *offset = d->view_off;
    return CLIP_OK;
}

/* Counts a copy between host and device. Syncing in-place data (clip_data_wrap) enqueues the
 * read or write OpenCL asks for (the host pointer is the buffer's own, which copies nothing where
 * the device shares host memory), so it is not a copy and not counted. */
static void count_transfer(clip_data *d, int to_device, size_t bytes) {
    if (d->in_place) return;
    if (to_device) {
        d->app->stats.to_device++;
        d->app->stats.bytes_to_device += bytes;
    } else {
        d->app->stats.to_host++;
        d->app->stats.bytes_to_host += bytes;
    }
}

clip_status clip_data_to_device(clip_data *d) {
    if (d->device_valid || d->bytes == 0) {
        d->device_valid = 1;
        return CLIP_OK;
    }
    /* A buffer made now over host memory (in place, or a stage filled first) holds the host
     * copy from its creation: no command, so no wait for the queue's threads (on PoCL that wait
     * was 35-40 us of a 1x1 product's 110). */
    const int fresh = !d->mem;
    clip_status s = clip_data_host_storage(d);
    if (s == CLIP_OK) s = make_buffer(d, fresh);
    if (s != CLIP_OK) return s;
    if (fresh && (d->in_place || d->stage)) {
        count_transfer(d, 1, d->bytes);
        d->device_valid = 1;
        return CLIP_OK;
    }
    /* Non-blocking is unsafe: the host copy may be changed by the user right after. Staged
     * data goes into its stage (the buffer's memory) by the queue too, not by a memcpy here:
     * kernels enqueued earlier may still be reading the stage. */
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE)
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueWriteBuffer(d->app->queue, d->mem, CL_TRUE, 0, d->bytes, d->host, 0,
                                          NULL, NULL);
    if (e != CL_SUCCESS)
        return clip_set_error(d->app, CLIP_ERR_OPENCL,
                              "upload of %zu bytes: clEnqueueWriteBuffer: %s", d->bytes,
                              clip_cl_error_name(e));
    count_transfer(d, 1, d->bytes);
    d->device_valid = 1;
    return CLIP_OK;
}

clip_status clip_data_upload(clip_data *d) {
    if (!d) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "data_upload: NULL data");
    return clip_data_to_device(d);
}

/* Makes the host side of in-place data (a buffer made over the caller's memory with
 * CL_MEM_USE_HOST_PTR) current the way OpenCL defines for such memory: a blocking map for
 * reading, which leaves the latest bits in the host pointer and copies nothing where the device
 * works on host memory, then the unmap (a read map writes nothing back; the in-order queue puts
 * it before any later command). A read into the buffer's own host pointer (what this replaced)
 * is a self-copy the driver may or may not skip. Not a transfer: not counted (count_transfer).
 * No fault-injection site: tests/test_fault.c's chains use no wrapped data, and it fails on a
 * site it cannot reach. */
static clip_status sync_in_place(clip_data *d) {
    cl_int e = CL_SUCCESS;
    void *p = clEnqueueMapBuffer(d->app->queue, d->mem, CL_TRUE, CL_MAP_READ, 0, d->bytes, 0, NULL,
                                 NULL, &e);
    if (e != CL_SUCCESS)
        return clip_set_error(d->app, CLIP_ERR_OPENCL,
                              "host sync of %zu bytes in place: clEnqueueMapBuffer: %s", d->bytes,
                              clip_cl_error_name(e));
    e = clEnqueueUnmapMemObject(d->app->queue, d->mem, p, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return clip_set_error(d->app, CLIP_ERR_OPENCL,
                              "host sync of %zu bytes in place: clEnqueueUnmapMemObject: %s",
                              d->bytes, clip_cl_error_name(e));
    if (p != d->host)
        return clip_set_error(d->app, CLIP_ERR_OPENCL,
                              "host sync in place: the device mapped its buffer at %p, not at the "
                              "host memory it was made over (%p)",
                              p, d->host);
    d->host_valid = 1;
    return CLIP_OK;
}

static clip_status to_host(clip_data *d) {
    clip_status s = clip_data_host_storage(d);
    if (s != CLIP_OK) return s;
    if (d->host_valid || d->bytes == 0) {
        d->host_valid = 1;
        return CLIP_OK;
    }
    if (d->in_place && d->mem) return sync_in_place(d);
    void *dst = d->stage ? d->stage : d->host;
    cl_int e =
        CLIP_FAULT(CLIP_FAULT_ENQUEUE)
            ? CL_OUT_OF_RESOURCES
            : clEnqueueReadBuffer(d->app->queue, d->mem, CL_TRUE, 0, d->bytes, dst, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return clip_set_error(d->app, CLIP_ERR_OPENCL,
                              "download of %zu bytes: clEnqueueReadBuffer: %s", d->bytes,
                              clip_cl_error_name(e));
    if (d->stage) memcpy(d->host, d->stage, d->bytes);
    count_transfer(d, 0, d->bytes);
    d->host_valid = 1;
    return CLIP_OK;
}

int clip_data_host_current(const clip_data *d) {
    return d->host_valid;
}
int clip_data_device_current(const clip_data *d) {
    return d->device_valid;
}

void clip_data_mark_device_written(clip_data *d) {
    d->device_valid = 1;
    d->host_valid = d->bytes == 0;
}

void clip_data_mark_host_written(clip_data *d) {
    d->host_valid = 1;
    d->device_valid = d->bytes == 0;
}

clip_status clip_data_split_source(clip_data *d, int shared_context, int *from_device) {
    *from_device = 0;
    if (d->bytes == 0 || d->host_valid) return CLIP_OK;
    if (d->device_valid && d->mem && shared_context) {
        *from_device = 1;
        return CLIP_OK;
    }
    return to_host(d); /* another platform's queues read it from the host */
}

clip_status clip_data_read(clip_data *d, void *dst) {
    if (!d || (!dst && d->bytes))
        return clip_set_error(d ? d->app : NULL, CLIP_ERR_INVALID_ARG, "data_read: NULL argument");
    d->host_reads++;
    if (d->bytes == 0) return CLIP_OK;
    clip_advise_huge_pages(dst, d->bytes);
    if (d->host_valid) {
        clip_status s = clip_data_host_storage(d);
        if (s != CLIP_OK) return s;
        memcpy(dst, d->host, d->bytes);
        return CLIP_OK;
    }
    cl_int e =
        CLIP_FAULT(CLIP_FAULT_ENQUEUE)
            ? CL_OUT_OF_RESOURCES
            : clEnqueueReadBuffer(d->app->queue, d->mem, CL_TRUE, 0, d->bytes, dst, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return clip_set_error(d->app, CLIP_ERR_OPENCL, "read of %zu bytes: clEnqueueReadBuffer: %s",
                              d->bytes, clip_cl_error_name(e));
    d->app->stats.to_host++; /* a real copy, into memory clip does not own */
    d->app->stats.bytes_to_host += d->bytes;
    return CLIP_OK;
}

clip_status clip_data_write(clip_data *d, const void *src) {
    if (!d || (!src && d->bytes))
        return clip_set_error(d ? d->app : NULL, CLIP_ERR_INVALID_ARG, "data_write: NULL argument");
    if (d->bytes == 0) return CLIP_OK;
    clip_status s = clip_data_ensure_buffer(d);
    if (s != CLIP_OK) return s;
    /* Blocking: the caller may change src as soon as this returns. */
    cl_int e =
        CLIP_FAULT(CLIP_FAULT_ENQUEUE)
            ? CL_OUT_OF_RESOURCES
            : clEnqueueWriteBuffer(d->app->queue, d->mem, CL_TRUE, 0, d->bytes, src, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return clip_set_error(d->app, CLIP_ERR_OPENCL,
                              "write of %zu bytes: clEnqueueWriteBuffer: %s", d->bytes,
                              clip_cl_error_name(e));
    d->app->stats.to_device++;
    d->app->stats.bytes_to_device += d->bytes;
    d->device_valid = 1;
    d->host_valid = 0;
    return CLIP_OK;
}

clip_status clip_data_host(clip_data *d, const void **ptr) {
    if (!d || !ptr)
        return clip_set_error(d ? d->app : NULL, CLIP_ERR_INVALID_ARG, "data_host: NULL argument");
    *ptr = NULL;
    d->host_reads++;
    clip_status s = to_host(d);
    if (s != CLIP_OK) return s;
    *ptr = d->host;
    return CLIP_OK;
}

clip_status clip_data_host_write(clip_data *d, void **ptr) {
    if (!d || !ptr)
        return clip_set_error(d ? d->app : NULL, CLIP_ERR_INVALID_ARG,
                              "data_host_write: NULL argument");
    *ptr = NULL;
    clip_status s = to_host(d);
    /* Wrapped memory used in place is the device buffer itself, and a view reads it too: work
     * enqueued earlier may still read it. */
    if (s == CLIP_OK && ((d->in_place && d->device_valid) || d->view)) s = clip_app_finish(d->app);
    if (s != CLIP_OK) return s;
    d->device_valid = 0;
    *ptr = d->host;
    return CLIP_OK;
}

clip_status clip_data_convert(clip_data *d, clip_type to, clip_data **out) {
    if (!d || !out)
        return clip_set_error(d ? d->app : NULL, CLIP_ERR_INVALID_ARG,
                              "data_convert: NULL argument");
    *out = NULL;
    if (clip_type_is_complex(d->type) && !clip_type_is_complex(to))
        return clip_set_error(d->app, CLIP_ERR_TYPE,
                              "data_convert: %s to %s would drop the imaginary part",
                              clip_type_name(d->type), clip_type_name(to));
    const void *src = NULL;
    clip_status s = clip_data_host(d, &src);
    if (s != CLIP_OK) return s;
    clip_data *r = NULL;
    s = clip_data_create(d->app, to, d->ndims, d->dims, &r);
    if (s == CLIP_OK && (s = clip_data_host_storage(r)) != CLIP_OK) clip_data_destroy(r);
    if (s != CLIP_OK) return s;
    size_t comps = clip_type_is_complex(d->type) ? 2 : 1;
    size_t ocomps = clip_type_is_complex(to) ? 2 : 1;
    for (size_t i = 0; i < d->numel; i++) {
        for (size_t c = 0; c < ocomps; c++) {
            double v = 0.0;
            if (c < comps)
                v = clip_type_is_double(d->type) ? ((const double *)src)[i * comps + c]
                                                 : ((const float *)src)[i * comps + c];
            if (clip_type_is_double(to))
                ((double *)r->host)[i * ocomps + c] = v;
            else
                ((float *)r->host)[i * ocomps + c] = (float)v;
        }
    }
    *out = r;
    return CLIP_OK;
}

clip_status clip_data_reshape(clip_data *d, int ndims, const size_t *dims) {
    if (!d || !dims)
        return clip_set_error(d ? d->app : NULL, CLIP_ERR_INVALID_ARG,
                              "data_reshape: NULL argument");
    if (ndims < 1 || ndims > CLIP_MAX_DIMS)
        return clip_set_error(d->app, CLIP_ERR_DIMS, "data_reshape: %d dimensions (allowed 1..%d)",
                              ndims, CLIP_MAX_DIMS);
    size_t n = 1;
    for (int i = 0; i < ndims; i++)
        if (clip_mul_size(n, dims[i], &n)) n = (size_t)-1;
    if (n != d->numel)
        return clip_set_error(d->app, CLIP_ERR_DIMS,
                              "data_reshape: %zu elements cannot take a shape of %zu", d->numel, n);
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        d->dims[i] = 1;
    memcpy(d->dims, dims, (size_t)ndims * sizeof *dims);
    d->ndims = ndims < 2 ? 2 : ndims;
    return CLIP_OK;
}
