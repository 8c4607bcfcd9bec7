/* Data over caller memory and copies into and out of it (clip_data_wrap, clip_data_read,
 * clip_data_write), and processes that drop their data (clip_process_unbind): values, where the
 * bytes land, the transfer counters, errors, and that clip never frees or keeps borrowed memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    char *xraw = aligned_alloc(align, cap / align * align), *yraw = aligned_alloc(align, cap / align * align);
    double *x = (double *)(xraw + offset), *y = (double *)(yraw + offset);
    for (size_t i = 0; i < n; i++) x[i] = (double)i - 100.5, y[i] = -1;
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
    for (size_t i = 0; i < n; i++) bad += y[i] != 2.0 * x[i] + 1.0;
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
    for (size_t i = 0; i < n; i++) w[i] = 3.0;
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
    for (size_t i = 0; i < n; i++) x[i] = -5.0;
    free(xraw);
    free(yraw);
    clip_process_destroy(p);
}

/* An output read straight into caller memory, and caller memory written straight to the
 * device: one counted transfer each, and clip's own host copy left alone. */
static void test_read_write(clip_app *app) {
    const size_t dims[3] = {M, N, 2}, n = (size_t)M * N * 2;
    float *src = malloc(n * 2 * sizeof(float)), *dst = malloc(n * 2 * sizeof(float));
    for (size_t i = 0; i < 2 * n; i++) src[i] = (float)(i % 97) * 0.25f - 3.0f;
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
static void test_unbind(clip_app *app) {
    const size_t dims[2] = {4, 3};
    float v[12];
    for (int i = 0; i < 12; i++) v[i] = (float)i;
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
    for (int i = 0; i < 10; i++) w[i] = 0.5 * i;
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

int main(void) {
    clip_app *app = tu_app();
    if (!app) return tu_finish("test_data_wrap");
    test_wrap_in_out(app, 0);
    test_wrap_in_out(app, 8);
    test_read_write(app);
    test_unbind(app);
    test_errors(app);
    clip_app_destroy(app);
    return tu_finish("test_data_wrap");
}
