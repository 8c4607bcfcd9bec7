/* split_bench: a process on host data, run whole on one device and split over several devices
 * (or streamed through one), as wall time of the launch including every transfer, plus the
 * host<->device bandwidth measured in the same run, and a comparison of the results.
 *
 *   split_bench matmul N           C = A*B of N x N singles
 *   split_bench conv2 M N S K      an M x N x S single stack by a K x K filter, 'same'
 *   split_bench norm N             the 2-norm of N singles
 *   options: --devices SPEC (default "all": the split app; the single app is its first device)
 *            --stream-alloc BYTES (run the single device streamed with that largest allocation
 *            instead of whole) --repeat R (default 3) --no-single (skip the single-device run;
 *            the result is then spot-checked on bands, see below)
 *
 * Times: the median of R launches of the same process (data on the host before each launch,
 * since a split launch leaves its outputs there); "single resident" is the first device alone
 * with its inputs already on it (device time, no transfers), the FFMA-bound figure split runs
 * are compared with. With --no-single (data too large for one device), conv2's result is checked
 * on three bands of 64 columns against the same bands computed whole on the first device, and
 * norm's against a double sum on the host. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clip/clip.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void die(clip_app *app, const char *what) {
    fprintf(stderr, "split_bench: %s: %s\n", what, clip_app_last_error(app));
    exit(1);
}

static clip_app *open_app(const char *spec, const char *max_alloc) {
    clip_criteria c = {0};
    c.ignore_env = 1;
    if (clip_criteria_from_spec(spec, &c) != CLIP_OK) die(NULL, spec);
    if (max_alloc) setenv("CLIP_TEST_MAX_ALLOC", max_alloc, 1);
    clip_app *app = NULL;
    if (clip_app_create(&app, &c) != CLIP_OK) die(NULL, "app");
    unsetenv("CLIP_TEST_MAX_ALLOC");
    return app;
}

/* Singles of a fast hash of the index, in [-1, 1). */
static clip_data *make(clip_app *app, int nd, const size_t *dims, unsigned seed) {
    clip_data *d = NULL;
    if (clip_data_create(app, CLIP_F32, nd, dims, &d) != CLIP_OK) die(app, "data");
    float *h = NULL;
    if (clip_data_host_write(d, (void **)&h) != CLIP_OK) die(app, "host");
    size_t n = clip_data_numel(d);
    /* a multiplicative hash the compiler vectorises: tens of GB are filled in seconds */
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(((uint32_t)i * 2654435761u + seed * 40503u) >> 16) / 32768.0f - 1.0f;
    return d;
}

/* Host<->device bandwidth of `bytes` of clip's host storage as clip moves it (GB/s): page-locked
 * where clip locks it (a discrete GPU), or pageable when `pageable` (CLIP_PINNED=0 while the
 * data is made). */
static void bandwidth(clip_app *app, size_t bytes, int pageable, double *up, double *down) {
    size_t dims[2] = {bytes / 4, 1};
    const char *was = getenv("CLIP_PINNED");
    char saved[16] = "";
    if (was) snprintf(saved, sizeof saved, "%s", was);
    if (pageable) setenv("CLIP_PINNED", "0", 1);
    clip_data *d = make(app, 2, dims, 7);
    double t0 = now_ms();
    if (clip_data_upload(d) != CLIP_OK) die(app, "upload");
    *up = (double)bytes / ((now_ms() - t0) * 1e6);
    /* a process output is device-only: make it so with scale, then read it */
    clip_process *p = NULL;
    clip_data *y = NULL;
    clip_process_create(app, "scale", &p);
    clip_process_set_input(p, 0, d);
    if (clip_process_init(p) != CLIP_OK || clip_process_launch(p) != CLIP_OK) die(app, "scale");
    clip_process_output(p, 0, &y);
    /* Twice: the first read also makes y's host storage (page-locking costs more than the
     * copy); the second is the steady rate a reused output sees. */
    for (int round = 0; round < 2; round++) {
        if (round && clip_process_launch(p) != CLIP_OK) die(app, "scale");
        clip_app_finish(app);
        const void *r = NULL;
        t0 = now_ms();
        if (clip_data_host(y, &r) != CLIP_OK) die(app, "download");
        *down = (double)bytes / ((now_ms() - t0) * 1e6);
    }
    clip_process_destroy(p);
    clip_data_destroy(d);
    if (was) setenv("CLIP_PINNED", saved, 1);
    else unsetenv("CLIP_PINNED");
}

typedef struct job {
    const char *name;
    int n_in;
    clip_data *in[2];
    const char *params[4][2];
} job;

/* Median wall ms of R launches from host data; the process's output (retained) in *out. */
static double run(clip_app *app, const job *j, clip_data **in, int repeat, clip_data **out,
                  char *variant, size_t cap, double *resident_ms) {
    clip_process *p = NULL;
    if (clip_process_create(app, j->name, &p) != CLIP_OK) die(app, "create");
    for (int i = 0; j->params[i][0]; i++)
        if (clip_process_set_text(p, j->params[i][0], j->params[i][1]) != CLIP_OK) die(app, "param");
    for (int i = 0; i < j->n_in; i++) clip_process_set_input(p, i, in[i]);
    if (clip_process_init(p) != CLIP_OK) die(app, "init");
    double t[32];
    for (int r = 0; r < repeat; r++) {
        for (int i = 0; i < j->n_in; i++) { /* the inputs on the host only, as at first use */
            void *h = NULL;
            clip_data_host_write(in[i], &h);
        }
        double t0 = now_ms();
        if (clip_process_launch(p) != CLIP_OK) die(app, "launch");
        clip_data *o = NULL;
        const void *h = NULL;
        clip_process_output(p, 0, &o);
        if (clip_data_host(o, &h) != CLIP_OK) die(app, "read");
        t[r] = now_ms() - t0;
    }
    qsort(t, (size_t)repeat, sizeof *t, cmp_d);
    if (resident_ms) { /* inputs stay on the device: kernels only */
        double ms[32];
        for (int r = 0; r < repeat; r++) {
            if (clip_process_launch(p) != CLIP_OK) die(app, "launch");
            clip_process_time_ms(p, &ms[r]);
        }
        qsort(ms, (size_t)repeat, sizeof *ms, cmp_d);
        *resident_ms = ms[repeat / 2];
    }
    snprintf(variant, cap, "%s", clip_process_variant(p));
    clip_process_output(p, 0, out);
    clip_data_retain(*out);
    clip_process_destroy(p);
    return t[repeat / 2];
}

static double max_abs_diff(clip_data *a, clip_data *b, size_t off, size_t n) {
    const float *x = NULL, *y = NULL;
    clip_data_host(a, (const void **)&x);
    clip_data_host(b, (const void **)&y);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)x[off + i] - (double)y[i]);
        if (!(e <= d)) d = isnan(e) ? INFINITY : e;
    }
    return d;
}

/* conv2 too large for one device: three bands of 64 output columns recomputed whole on `one`
 * from their input columns (with the 7x7 halo) and compared with the split result. */
static double spot_check(clip_app *one, const job *j, clip_data *img, clip_data *k, clip_data *out) {
    const size_t m = clip_data_dim(img, 0), n = clip_data_dim(img, 1), h = clip_data_dim(k, 1) / 2;
    const size_t starts[3] = {0, n / 2, n - 64};
    const float *src = NULL;
    clip_data_host(img, (const void **)&src);
    double worst = 0;
    for (int b = 0; b < 3; b++) {
        size_t lo = starts[b] >= h ? starts[b] - h : 0, hi = starts[b] + 64 + h;
        if (hi > n) hi = n;
        size_t dims[2] = {m, hi - lo};
        clip_data *band = NULL, *kk = NULL, *r = NULL;
        clip_data_create_from(one, CLIP_F32, 2, dims, src + lo * m, &band);
        const void *kh = NULL;
        clip_data_host(k, &kh);
        clip_data_create_from(one, CLIP_F32, 2, (size_t[]){clip_data_dim(k, 0), clip_data_dim(k, 1)},
                              kh, &kk);
        clip_data *in[2] = {band, kk};
        char v[128];
        run(one, j, in, 1, &r, v, sizeof v, NULL);
        /* the band's output columns starts[b] .. +64 are columns starts[b] - lo .. of r */
        const float *rh = NULL;
        clip_data_host(r, (const void **)&rh);
        size_t off = (starts[b] - lo) * m;
        size_t dims1[2] = {m * 64, 1};
        clip_data *rb = NULL;
        clip_data_create_from(one, CLIP_F32, 2, dims1, rh + off, &rb);
        double d = max_abs_diff(out, rb, starts[b] * m, m * 64);
        if (d > worst) worst = d;
        clip_data_destroy(band);
        clip_data_destroy(kk);
        clip_data_destroy(r);
        clip_data_destroy(rb);
    }
    return worst;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: split_bench matmul N | conv2 M N S K | norm N [--devices SPEC] "
                        "[--stream-alloc BYTES] [--repeat R] [--no-single]\n");
        return 2;
    }
    const char *devices = "all", *stream = NULL;
    int repeat = 3, single = 1, argi = 2;
    size_t sz[4] = {0};
    for (int k = 0; argi < argc && argv[argi][0] != '-' && k < 4; k++) sz[k] = strtoull(argv[argi++], NULL, 10);
    for (; argi < argc; argi++) {
        if (!strcmp(argv[argi], "--devices") && argi + 1 < argc) devices = argv[++argi];
        else if (!strcmp(argv[argi], "--stream-alloc") && argi + 1 < argc) stream = argv[++argi];
        else if (!strcmp(argv[argi], "--repeat") && argi + 1 < argc) repeat = atoi(argv[++argi]);
        else if (!strcmp(argv[argi], "--no-single")) single = 0;
    }
    if (repeat < 1 || repeat > 32) repeat = 3;
    clip_app *multi = open_app(devices, NULL);
    char first[16];
    snprintf(first, sizeof first, "%d", clip_app_device(multi)->index);
    clip_app *one = open_app(first, stream);
    printf("split app: %d device(s):", clip_app_device_count(multi));
    for (int i = 0; i < clip_app_device_count(multi); i++)
        printf(" [%d] %s", clip_app_device_at(multi, i)->index, clip_app_device_at(multi, i)->name);
    printf("\n");
    double rate[2][2] = {{0, 0}, {0, 0}}; /* [pageable][up, down] */
    clip_app *plain = open_app(first, NULL); /* the first device without a streaming limit */
    for (int pg = 0; pg < 2; pg++) {
        bandwidth(plain, (size_t)1 << 30, pg, &rate[pg][0], &rate[pg][1]);
        printf("host<->device, 1 GiB of %s host storage: upload %.2f GB/s, download %.2f GB/s\n",
               pg ? "pageable" : "clip's default", rate[pg][0], rate[pg][1]);
    }
    clip_app_destroy(plain);

    job j = {0};
    j.name = argv[1];
    double bytes_in = 0, bytes_out = 0;
    if (!strcmp(argv[1], "matmul") && sz[0]) {
        size_t d[2] = {sz[0], sz[0]};
        j.n_in = 2;
        j.in[0] = make(multi, 2, d, 1);
        j.in[1] = make(multi, 2, d, 2);
        bytes_in = 2.0 * 4 * sz[0] * sz[0];
        bytes_out = bytes_in / 2;
    } else if (!strcmp(argv[1], "conv2") && sz[3]) {
        size_t d[3] = {sz[0], sz[1], sz[2] ? sz[2] : 1}, kd[2] = {sz[3], sz[3]};
        j.n_in = 2;
        j.in[0] = make(multi, 3, d, 3);
        j.in[1] = make(multi, 2, kd, 4);
        j.params[0][0] = "shape", j.params[0][1] = "same";
        bytes_in = bytes_out = 4.0 * sz[0] * sz[1] * d[2];
    } else if (!strcmp(argv[1], "norm") && sz[0]) {
        size_t d[2] = {sz[0], 1};
        j.n_in = 1;
        j.in[0] = make(multi, 2, d, 5);
        bytes_in = 4.0 * sz[0];
    } else {
        fprintf(stderr, "split_bench: unknown job\n");
        return 2;
    }
    /* the rates of the kind of memory the data has: page-locked unless too large for it */
    const double *r = rate[!clip_data_page_locked(j.in[0])];
    const double move_ms = bytes_in / (r[0] * 1e6) + bytes_out / (r[1] * 1e6);
    printf("%s: %.2f GB in, %.2f GB out, in %s host memory; moving them once at its measured "
           "rates takes %.1f ms\n", j.name, bytes_in / 1e9, bytes_out / 1e9,
           r == rate[0] ? "page-locked" : "pageable", move_ms);
    char v1[160] = "", v2[160] = "";
    clip_data *r1 = NULL, *r2 = NULL;
    double resident = 0, t1 = 0;
    clip_data *in1[2] = {NULL, NULL};
    if (single) {
        for (int i = 0; i < j.n_in; i++) {
            const void *h = NULL;
            clip_data_host(j.in[i], &h);
            clip_data_create_from(one, CLIP_F32, clip_data_ndims(j.in[i]), clip_data_dims(j.in[i]),
                                  h, &in1[i]);
        }
        t1 = run(one, &j, in1, repeat, &r1, v1, sizeof v1, stream ? NULL : &resident);
        printf("single device%s: %.1f ms wall from host data [%s]\n", stream ? " streamed" : "",
               t1, v1);
        if (!stream) printf("single device resident: %.1f ms device time\n", resident);
    }
    double t2 = run(multi, &j, j.in, repeat, &r2, v2, sizeof v2, NULL);
    printf("split: %.1f ms wall from host data [%s]\n", t2, v2);
    if (single) {
        printf("speed-up over one device from host data: %.2fx", t1 / t2);
        if (!stream) printf("; over one device resident: %.2fx", resident / t2);
        double d = max_abs_diff(r2, r1, 0, clip_data_numel(r1));
        printf("\nlargest difference from the single-device result: %g%s\n", d,
               d == 0 ? " (identical)" : "");
    } else if (!strcmp(j.name, "conv2")) {
        printf("bands checked against whole runs on one device: largest difference %g\n",
               spot_check(one, &j, j.in[0], j.in[1], r2));
    } else if (!strcmp(j.name, "norm")) {
        const float *x = NULL, *r = NULL;
        clip_data_host(j.in[0], (const void **)&x);
        clip_data_host(r2, (const void **)&r);
        double sum = 0; /* |x| < 1: no scaling needed in double */
        for (size_t i = 0; i < clip_data_numel(j.in[0]); i++) sum += (double)x[i] * x[i];
        printf("against a double sum on the host: relative difference %.3g\n",
               fabs(r[0] - sqrt(sum)) / sqrt(sum));
    }
    printf("split wall / moving the bytes once: %.2f\n", t2 / move_ms);
    for (int i = 0; i < 2; i++) clip_data_destroy(in1[i]), clip_data_destroy(j.in[i]);
    clip_data_destroy(r1);
    clip_data_destroy(r2);
    clip_app_destroy(one);
    clip_app_destroy(multi);
    return 0;
}
