/* Data over caller memory and copies into and out of it (clip_data_wrap, clip_data_read,
 * clip_data_write), and processes that drop their data (clip_process_unbind): values, where the
 * bytes land, the transfer counters, errors, and that clip never frees or keeps borrowed memory;
 * the pool of large host blocks that device copies in host memory are made of (lib/host_pool.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_pool.h"
#include "internal.h"
#include "testutil.h"

enum { M = 37, N = 23 };

static clip_transfer_stats stats(clip_app *app) {
    clip_transfer_stats st;
    memset(&st, 0, sizeof st);
    clip_app_transfer_stats(app, &st);
    return st;
}

/* Runs y = a*x + b on x into y (y NULL: the process makes its output); returns the process. */
static clip_process *scale(clip_app *app, clip_data *x, clip_data *y, double a, double b) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &p));
    CHECK_OK(app, clip_process_set_real(p, "a", a));
    CHECK_OK(app, clip_process_set_real(p, "b", b));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    if (y) CHECK_OK(app, clip_process_set_output(p, 0, y));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    return p;
}

/* A wrapped input is read where it lies, a wrapped output written into the caller's array, and
 * syncing in-place data copies (and counts) nothing. Offsets 0 and 8 bytes from the device's
 * buffer alignment: any alignment of the element type is accepted; the second is staged (one
 * counted memcpy per sync) where the first is in place. */
static void test_wrap_in_out(clip_app *app, size_t offset) {
    const size_t dims[2] = {M, N}, n = (size_t)M * N;
    cl_uint bits = 0;
    clGetDeviceInfo(app->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
    const size_t align = bits / 8 > 64 ? bits / 8 : 64, cap = (n * sizeof(double) + 2 * align);
    char *xraw = aligned_alloc(align, cap / align * align),
         *yraw = aligned_alloc(align, cap / align * align);
    double *x = (double *)(xraw + offset), *y = (double *)(yraw + offset);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i - 100.5, y[i] = -1;
    clip_data *dx = NULL, *dy = NULL;
    CHECK_OK(app, clip_data_wrap(app, CLIP_F64, 2, dims, x, &dx));
    CHECK_OK(app, clip_data_wrap(app, CLIP_F64, 2, dims, y, &dy));
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(app->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    CHECK(clip_data_in_place(dx) == (unified == CL_TRUE && offset == 0));
    CHECK(clip_data_numel(dx) == n && clip_data_bytes(dx) == n * sizeof(double));

    const void *h = NULL;
    CHECK_OK(app, clip_data_host(dx, &h));
    CHECK(h == x); /* the host copy is the caller's memory */

    clip_transfer_stats s0 = stats(app);
    clip_process *p = scale(app, dx, dy, 2.0, 1.0);
    CHECK_OK(app, clip_data_host(dy, &h));
    CHECK(h == y);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += y[i] != 2.0 * x[i] + 1.0;
    CHECK(bad == 0);
    clip_transfer_stats s1 = stats(app);
    const uint64_t copies = clip_data_in_place(dx) ? 0 : 1;
    CHECK(s1.to_device - s0.to_device == copies);
    CHECK(s1.to_host - s0.to_host == copies);
    CHECK(s1.bytes_to_device - s0.bytes_to_device == copies * n * sizeof(double));

    /* A host change through clip_data_host_write reaches the next launch. */
    double *w = NULL;
    CHECK_OK(app, clip_data_host_write(dx, (void **)&w));
    CHECK(w == x);
    for (size_t i = 0; i < n; i++)
        w[i] = 3.0;
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_data_host(dy, &h));
    CHECK_NEAR(y[0], 7.0, 0.0);
    CHECK_NEAR(y[n - 1], 7.0, 0.0);

    /* Once the process lets go and the caller destroys its references, the memory is the
     * caller's again: clip neither frees it (ASan/valgrind would see a double free below) nor
     * touches it. */
    clip_process_unbind(p);
    clip_data_destroy(dx);
    clip_data_destroy(dy);
    for (size_t i = 0; i < n; i++)
        x[i] = -5.0;
    free(xraw);
    free(yraw);
    clip_process_destroy(p);
}

/* conv2(a, k, 'same'); returns C (a new reference), and the process in *keep (else destroyed). */
static clip_data *conv2_of(clip_app *app, clip_data *a, clip_data *k, clip_process **keep) {
    clip_data *c = NULL;
    clip_process *p = tu_run2(app, "conv2", "shape", "same", a, k, &c);
    clip_data_retain(c);
    if (keep)
        *keep = p;
    else
        clip_process_destroy(p);
    return c;
}

static int same_bytes(clip_data *x, clip_data *y) {
    const void *hx = NULL, *hy = NULL;
    if (clip_data_host(x, &hx) != CLIP_OK || clip_data_host(y, &hy) != CLIP_OK) return 0;
    return clip_data_bytes(x) == clip_data_bytes(y) && !memcmp(hx, hy, clip_data_bytes(x));
}

/* Caller memory that is not aligned as the device's buffers, read by a process that takes
 * offsets (conv2: clip_proc_input_view): on a device that works on host memory it goes in with
 * no copy (nothing counted for it), at every element-aligned offset and type, with the values
 * of the same data in clip's own memory; a host change through clip_data_host_write reaches the
 * next launch; where the newest copy is the device's (a process wrote it) the view is not used. */
static void test_view(clip_app *app, clip_type t, size_t offset) {
    const size_t dims[2] = {M, N}, kd[2] = {3, 4}, esize = clip_type_size(t);
    const size_t n = (size_t)M * N, bytes = n * esize;
    char *raw = aligned_alloc(4096, (bytes + offset + 4095) / 4096 * 4096);
    unsigned char *x = (unsigned char *)raw + offset;
    unsigned long long seed = 7 + offset;
    for (size_t i = 0; i < bytes / 4; i++) {
        if (clip_type_is_double(t) && i % 2 == 0) {
            const double v = tu_rand(&seed) - 0.5;
            memcpy(x + 4 * i, &v, 8);
            i++;
        } else {
            const float v = (float)(tu_rand(&seed) - 0.5);
            memcpy(x + 4 * i, &v, 4);
        }
    }
    unsigned char kv[12 * 16];
    for (size_t i = 0; i < 12 * esize; i++)
        kv[i] = (unsigned char)(i * 37 % 61); /* small positive floats of either width */
    for (size_t i = 0; i < 12 * esize; i += 4)
        kv[i + 3] = 0x3e; /* every float's top byte: finite, near 0.2-0.3 */
    clip_data *dx = NULL, *own = NULL, *dk = NULL;
    CHECK_OK(app, clip_data_wrap(app, t, 2, dims, x, &dx));
    CHECK_OK(app, clip_data_create_from(app, t, 2, dims, x, &own));
    CHECK_OK(app, clip_data_create_from(app, t, 2, kd, kv, &dk));
    CHECK_OK(app, clip_data_upload(dk));
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(app->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    clip_transfer_stats s0 = stats(app);
    clip_process *p = NULL;
    clip_data *c = conv2_of(app, dx, dk, &p), *want = conv2_of(app, own, dk, NULL);
    clip_transfer_stats s1 = stats(app);
    CHECK(same_bytes(c, want));
    CHECK(clip_data_in_place(dx) == (unified == CL_TRUE)); /* read in place: a view, or aligned */
    /* own's upload is counted; dx's only where the device has memory of its own */
    const uint64_t ups = unified == CL_TRUE ? 1 : 2;
    CHECK(s1.to_device - s0.to_device == ups &&
          s1.bytes_to_device - s0.bytes_to_device == ups * bytes);

    void *w = NULL;
    CHECK_OK(app, clip_data_host_write(dx, &w));
    CHECK(w == x);
    memset(w, 0, bytes);
    CHECK_OK(app, clip_process_launch(p));
    const void *h = NULL;
    clip_data *c2 = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &c2));
    CHECK_OK(app, clip_data_host(c2, &h));
    int nonzero = 0;
    for (size_t i = 0; i < bytes; i++)
        nonzero += ((const unsigned char *)h)[i] != 0;
    CHECK(nonzero == 0);

    /* scale writes dx (its newest copy then the device's); conv2 then reads that copy. */
    clip_process *sc = scale(app, own, dx, 1.0, 0.0);
    clip_data *c3 = conv2_of(app, dx, dk, NULL);
    CHECK(same_bytes(c3, want));
    clip_process_destroy(sc);
    clip_process_destroy(p);
    clip_data_destroy(c);
    clip_data_destroy(c3);
    clip_data_destroy(want);
    clip_data_destroy(dx);
    clip_data_destroy(own);
    clip_data_destroy(dk);
    free(raw);
}

/* An output read straight into caller memory, and caller memory written straight to the
 * device: one counted transfer each, and clip's own host copy left alone. */
static void test_read_write(clip_app *app) {
    const size_t dims[3] = {M, N, 2}, n = (size_t)M * N * 2;
    float *src = malloc(n * 2 * sizeof(float)), *dst = malloc(n * 2 * sizeof(float));
    for (size_t i = 0; i < 2 * n; i++)
        src[i] = (float)(i % 97) * 0.25f - 3.0f;
    clip_data *x = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_C32, 3, dims, &x));
    clip_transfer_stats s0 = stats(app);
    CHECK_OK(app, clip_data_write(x, src));
    clip_transfer_stats s1 = stats(app);
    CHECK(s1.to_device - s0.to_device == 1);
    CHECK(s1.bytes_to_device - s0.bytes_to_device == n * 2 * sizeof(float));
    CHECK(clip_data_in_place(x) == 0);

    clip_process *p = scale(app, x, NULL, -2.0, 0.5);
    clip_data *y = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &y));
    clip_transfer_stats s2 = stats(app);
    CHECK(s2.to_device == s1.to_device); /* x was current on the device: no upload */
    CHECK_OK(app, clip_data_read(y, dst));
    clip_transfer_stats s3 = stats(app);
    CHECK(s3.to_host - s2.to_host == 1);
    int bad = 0;
    for (size_t i = 0; i < n; i++) /* b adds to the real part only */
        bad += dst[2 * i] != -2.0f * src[2 * i] + 0.5f || dst[2 * i + 1] != -2.0f * src[2 * i + 1];
    CHECK(bad == 0);
    /* y's own host copy is still stale: reading it there is a second transfer, same values. */
    const float *h = NULL;
    CHECK_OK(app, clip_data_host(y, (const void **)&h));
    CHECK(stats(app).to_host - s3.to_host == 1);
    CHECK(h && memcmp(h, dst, n * 2 * sizeof(float)) == 0);
    /* With the host copy current, read copies from it and counts nothing. */
    memset(dst, 0, n * 2 * sizeof(float));
    clip_transfer_stats s4 = stats(app);
    CHECK_OK(app, clip_data_read(y, dst));
    CHECK(stats(app).to_host == s4.to_host);
    CHECK(memcmp(h, dst, n * 2 * sizeof(float)) == 0);
    /* x's host copy was never written: reading it brings the written values back. */
    CHECK_OK(app, clip_data_host(x, (const void **)&h));
    CHECK(memcmp(h, src, n * 2 * sizeof(float)) == 0);
    clip_process_destroy(p);
    clip_data_destroy(x);
    free(src);
    free(dst);
}

/* An unbound process holds no data and can be bound and run again with other inputs. */
/* An output wrapped in place (where the device works on host memory) is made current on the host
 * by a map for reading, not a copy: after each of several launches into it the caller's memory
 * holds that launch's values, at the caller's address, and no transfer is counted; a read of
 * the same stale output into other memory is a real copy, counted once. Elsewhere (staged or
 * a device of its own) each sync is one counted transfer. */
static void test_in_place_output(clip_app *app) {
    const size_t dims[2] = {M, N}, n = (size_t)M * N;
    const size_t align = 4096, cap = (n * sizeof(float) + align - 1) / align * align;
    float *x = aligned_alloc(align, cap), *y = aligned_alloc(align, cap), *other = malloc(cap);
    CHECK(x && y && other);
    if (!x || !y || !other) goto done;
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(i % 211) - 7.25f, y[i] = -1.0f;
    clip_data *dx = NULL, *dy = NULL;
    CHECK_OK(app, clip_data_wrap(app, CLIP_F32, 2, dims, x, &dx));
    CHECK_OK(app, clip_data_wrap(app, CLIP_F32, 2, dims, y, &dy));
    const int in_place = clip_data_in_place(dy);
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(app->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    CHECK(in_place == (unified == CL_TRUE)); /* 4096 bytes covers any buffer alignment */
    clip_process *p = NULL;
    for (int round = 1; round <= 3; round++) {
        clip_transfer_stats s0 = stats(app);
        if (!p) {
            p = scale(app, dx, dy, 1.0, 0.0);
        } else {
            CHECK_OK(app, clip_process_set_real(p, "a", (double)round));
            CHECK_OK(app, clip_process_init(p));
            CHECK_OK(app, clip_process_launch(p));
        }
        CHECK(!clip_data_host_current(dy));
        const void *h = NULL;
        CHECK_OK(app, clip_data_host(dy, &h));
        CHECK(h == y && clip_data_host_current(dy) && clip_data_device_current(dy));
        int bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += y[i] != (float)round * x[i];
        CHECK(bad == 0);
        clip_transfer_stats s1 = stats(app);
        CHECK(s1.to_host - s0.to_host == (in_place ? 0u : 1u));
        CHECK(s1.bytes_to_host - s0.bytes_to_host == (in_place ? 0 : n * sizeof(float)));
    }
    /* Stale again: a read into other memory copies and counts, whatever the data is. */
    CHECK_OK(app, clip_process_launch(p));
    clip_transfer_stats s2 = stats(app);
    CHECK_OK(app, clip_data_read(dy, other));
    clip_transfer_stats s3 = stats(app);
    CHECK(s3.to_host - s2.to_host == 1 && s3.bytes_to_host - s2.bytes_to_host == n * sizeof(float));
    CHECK(other[n - 1] == 3.0f * x[n - 1] && other[0] == 3.0f * x[0]);
    clip_process_destroy(p);
    clip_data_destroy(dx);
    clip_data_destroy(dy);
    CHECK_OK(app, clip_app_finish(app));
done:
    free(x);
    free(y);
    free(other);
}

static void test_unbind(clip_app *app) {
    const size_t dims[2] = {4, 3};
    float v[12];
    for (int i = 0; i < 12; i++)
        v[i] = (float)i;
    clip_data *x = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, v, &x));
    clip_process *p = scale(app, x, NULL, 3.0, 0.0);
    double ms = -1;
    clip_process_unbind(p);
    CHECK_OK(app, clip_process_time_ms(p, &ms)); /* the last launch stays readable */
    CHECK(ms >= 0);
    clip_data *out = NULL;
    CHECK_STATUS(app, clip_process_output(p, 0, &out), CLIP_ERR_NOT_INITIALIZED);
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    /* Another input (other shape and type), same parameters. */
    const size_t d2[2] = {2, 5};
    double w[10];
    for (int i = 0; i < 10; i++)
        w[i] = 0.5 * i;
    clip_data *x2 = NULL;
    CHECK_OK(app, clip_data_wrap(app, CLIP_F64, 2, d2, w, &x2));
    CHECK_OK(app, clip_process_set_input(p, 0, x2));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &out));
    const double *h = NULL;
    CHECK_OK(app, clip_data_host(out, (const void **)&h));
    CHECK(clip_data_type(out) == CLIP_F64 && clip_data_dim(out, 1) == 5);
    CHECK_NEAR(h[9], 13.5, 0.0);
    clip_process_unbind(p);
    clip_process_unbind(p); /* twice is harmless */
    clip_process_unbind(NULL);
    clip_data_destroy(x2);
    clip_data_destroy(x);
    clip_process_destroy(p);
}

/* Host writes between launches: the next upload (staged data: a copy into the buffer's memory;
 * in place: the buffer is the caller's memory) must not reach work enqueued before it, which
 * still reads the old values. Matmul of ones keeps the device busy long enough to show it. */
static void test_write_after_launch(clip_app *app, int wrapped) {
    enum { K = 256 };
    const size_t dims[2] = {K, K};
    float *a = aligned_alloc(4096, K * K * sizeof *a), *b = malloc(K * K * sizeof *b);
    for (size_t i = 0; i < (size_t)K * K; i++)
        a[i] = b[i] = 1.0f;
    clip_data *A = NULL, *B = NULL, *C1 = NULL, *C2 = NULL;
    if (wrapped)
        CHECK_OK(app, clip_data_wrap(app, CLIP_F32, 2, dims, a, &A));
    else
        CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, a, &A));
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, b, &B));
    clip_process *p[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(app, clip_process_create(app, "matmul", &p[i]));
        CHECK_OK(app, clip_process_set_input(p[i], 0, A));
        CHECK_OK(app, clip_process_set_input(p[i], 1, B));
        CHECK_OK(app, clip_process_init(p[i]));
    }
    CHECK_OK(app, clip_app_finish(app));
    CHECK_OK(app, clip_process_launch(p[0]));
    float *w = NULL;
    CHECK_OK(app, clip_data_host_write(A, (void **)&w));
    for (size_t i = 0; w && i < (size_t)K * K; i++)
        w[i] = 0.0f;
    CHECK_OK(app, clip_process_launch(p[1]));
    CHECK_OK(app, clip_process_output(p[0], 0, &C1));
    CHECK_OK(app, clip_process_output(p[1], 0, &C2));
    const float *c1 = NULL, *c2 = NULL;
    CHECK_OK(app, clip_data_host(C1, (const void **)&c1));
    CHECK_OK(app, clip_data_host(C2, (const void **)&c2));
    size_t bad1 = 0, bad2 = 0;
    for (size_t i = 0; c1 && c2 && i < (size_t)K * K; i++) {
        bad1 += c1[i] != (float)K;
        bad2 += c2[i] != 0.0f;
    }
    if (bad1 || bad2)
        fprintf(stderr, "%s A: %zu of the first product's and %zu of the second's wrong\n",
                wrapped ? "wrapped" : "staged", bad1, bad2);
    CHECK(c1 && c2 && bad1 == 0 && bad2 == 0);
    clip_process_destroy(p[0]);
    clip_process_destroy(p[1]);
    clip_data_destroy(A);
    clip_data_destroy(B);
    free(a);
    free(b);
}

static void test_errors(clip_app *app) {
    const size_t dims[2] = {3, 4}, empty[2] = {3, 0};
    double buf[12] = {0};
    clip_data *d = (clip_data *)&buf; /* must be reset to NULL by a failing call */
    CHECK_STATUS(app, clip_data_wrap(app, CLIP_F64, 2, dims, NULL, &d), CLIP_ERR_INVALID_ARG);
    CHECK(d == NULL);
    CHECK_MSG(app, "host is NULL");
    CHECK_STATUS(NULL, clip_data_wrap(NULL, CLIP_F64, 2, dims, buf, &d), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_data_wrap(app, CLIP_F64, 2, dims, buf, NULL), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_data_wrap(app, CLIP_F64, 9, dims, buf, &d), CLIP_ERR_DIMS);
    CHECK_STATUS(app, clip_data_wrap(app, (clip_type)42, 2, dims, buf, &d), CLIP_ERR_INVALID_ARG);
    /* Empty data needs no memory, and reads and writes of it do nothing. */
    CHECK_OK(app, clip_data_wrap(app, CLIP_C64, 2, empty, NULL, &d));
    CHECK(clip_data_numel(d) == 0 && !clip_data_in_place(d));
    CHECK_OK(app, clip_data_read(d, NULL));
    CHECK_OK(app, clip_data_write(d, NULL));
    clip_data_destroy(d);
    CHECK_OK(app, clip_data_wrap(app, CLIP_F64, 2, dims, buf, &d));
    CHECK_STATUS(app, clip_data_read(d, NULL), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_data_write(d, NULL), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, clip_data_read(NULL, buf), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, clip_data_write(NULL, buf), CLIP_ERR_INVALID_ARG);
    CHECK(clip_data_in_place(NULL) == 0);
    clip_data_destroy(d);
}

/* The pool's bounds and matching, through its own calls: blocks under 4 MiB are never kept, at
 * most 8 are, a block serves requests of half its size or more, and the app's end frees them. */
static void test_pool_bounds(void) {
    const size_t mib = (size_t)1 << 20;
    clip_host_pool_app_opened(); /* as an app would: the pool keeps blocks only while one lives */
    clip_host_block *small = clip_host_block_get(mib, 64);
    CHECK(small && (uintptr_t)small->p % 64 == 0 && small->cap >= mib);
    clip_host_block_put(small);
    CHECK(clip_host_pool_kept(NULL) == 0);
    clip_host_block *b[10];
    for (int i = 0; i < 10; i++) {
        b[i] = clip_host_block_get(4 * mib + 1, 128);
        CHECK(b[i] && (uintptr_t)b[i]->p % 128 == 0 && b[i]->cap >= 4 * mib + 1);
        if (b[i]) memset(b[i]->p, i, 4 * mib + 1); /* every byte is usable */
    }
    for (int i = 0; i < 10; i++)
        clip_host_block_put(b[i]);
    size_t bytes = 0;
    CHECK(clip_host_pool_kept(&bytes) == 8);
    CHECK(bytes >= 8 * (4 * mib + 1));
    /* The newest kept are b[9]..b[2]: a request of the same size takes one of them. */
    clip_host_block *again = clip_host_block_get(4 * mib, 64);
    int reused = 0;
    for (int i = 2; i < 10; i++)
        reused |= again == b[i];
    CHECK(reused);
    CHECK(clip_host_pool_kept(NULL) == 7);
    /* Kept blocks are whole 2 MiB pages (6 MiB here). 16 MiB is more than any holds; then 7 MiB
     * is more than the 6 MiB blocks hold and under half the 16 MiB one: both get new memory. */
    clip_host_block *big = clip_host_block_get(16 * mib, 64);
    CHECK(big && big->cap >= 16 * mib && clip_host_pool_kept(NULL) == 7);
    clip_host_block_put(big);
    clip_host_block *half = clip_host_block_get(7 * mib, 64);
    CHECK(half && half != big && clip_host_pool_kept(NULL) == 8);
    clip_host_block_put(half);
    clip_host_block_put(again);
    CHECK(clip_host_pool_kept(NULL) == 8);
    clip_host_pool_app_closed();
    CHECK(clip_host_pool_kept(&bytes) == 0 && bytes == 0);
    clip_host_block *after = clip_host_block_get(4 * mib, 64);
    clip_host_block_put(after); /* no app: freed at once */
    CHECK(clip_host_pool_kept(NULL) == 0);
}

/* Where the device works in host memory, a device copy's block is reused by the next data of
 * the same size (no fresh pages to fault in), holds that data's values, and is freed with the
 * last app. */
static void test_pool_reuse(void) {
    clip_app *app = tu_app();
    if (!app) return;
    const size_t dims[2] = {1024, 2048}, n = dims[0] * dims[1];
    float *v = malloc(n * sizeof *v), *back = malloc(n * sizeof *back);
    CHECK(v && back);
    void *first = NULL;
    for (int round = 0; round < 2 && v && back; round++) {
        for (size_t i = 0; i < n; i++)
            v[i] = (float)(i % 1000) + (float)round;
        clip_data *d = NULL;
        CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, v, &d));
        CHECK_OK(app, clip_data_upload(d));
        if (round == 0)
            first = d->stage;
        else if (first)
            CHECK(d->stage == first); /* the block the first data gave back */
        CHECK_OK(app, clip_data_read(d, back));
        CHECK(memcmp(v, back, n * sizeof *v) == 0);
        clip_data_destroy(d);
        CHECK_OK(app, clip_app_finish(app));
        if (first) CHECK(clip_host_pool_kept(NULL) == 1);
    }
    clip_app_destroy(app);
    CHECK(clip_host_pool_kept(NULL) == 0);
    free(v);
    free(back);
}

int main(void) {
    clip_app *app = tu_app();
    if (!app) return tu_finish("test_data_wrap");
    test_wrap_in_out(app, 0);
    test_wrap_in_out(app, 8);
    const size_t offsets[] = {0, 4, 8, 16, 40, 124};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        test_view(app, CLIP_F32, offsets[i]);
        if (offsets[i] % 8 == 0) test_view(app, CLIP_C32, offsets[i]);
        if (offsets[i] % 8 == 0) test_view(app, CLIP_F64, offsets[i]);
        if (offsets[i] % 16 == 0) test_view(app, CLIP_C64, offsets[i]);
    }
    test_read_write(app);
    test_in_place_output(app);
    test_unbind(app);
    test_write_after_launch(app, 0);
    test_write_after_launch(app, 1);
    test_errors(app);
    clip_app_destroy(app);
    test_pool_bounds();
    test_pool_reuse();
    return tu_finish("test_data_wrap");
}
