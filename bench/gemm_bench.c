/* gemm_bench: clip's matmul against CLBlast (where found at build time), side by side on one
 * device, square n x n x n, column-major C = A*B.
 *
 *   gemm_bench [n...] [--type f32|f64|c32|c64] [--repeat R] [--device SPEC] [--no-clblast]
 *              [--variant V] [--mwg X --nwg X --kwg X --mdimc X --ndimc X --vw X]
 *
 * Per case it prints the median of R runs twice: the device time of the launch's events
 * (clip_process_time_ms; CLBlast's event likewise) and the wall time of launch + finish, each as
 * ms and GFLOP/s (2n^3 flops real, 8n^3 complex), then the ratio clip/CLBlast on both clocks and
 * the largest difference between the two results relative to the largest |C| entry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clip/clip.h"

#ifdef CLIP_HAVE_CLBLAST
#include <clblast_c.h>
#endif

typedef struct opts {
    size_t sizes[32];
    int n_sizes;
    clip_type type;
    int repeat;
    const char *device;
    int clblast;
    const char *variant;
    const char *tile_names[6];
    long tiles[6];
} opts;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int parse(int argc, char **argv, opts *o) {
    static const char *const tn[6] = {"mwg", "nwg", "kwg", "mdimc", "ndimc", "vw"};
    memcpy(o->tile_names, tn, sizeof tn);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-clblast")) {
            o->clblast = 0;
            continue;
        }
        if (!strncmp(a, "--", 2) && !v) return fprintf(stderr, "gemm_bench: %s needs a value\n", a), -1;
        if (!strcmp(a, "--type")) {
            static const char *const names[4] = {"f32", "f64", "c32", "c64"};
            int k = 0;
            while (k < 4 && strcmp(v, names[k])) k++;
            if (k == 4) return fprintf(stderr, "gemm_bench: unknown type %s\n", v), -1;
            o->type = (clip_type)k;
        } else if (!strcmp(a, "--repeat")) {
            o->repeat = atoi(v);
            if (o->repeat < 1) return fprintf(stderr, "gemm_bench: --repeat must be >= 1\n"), -1;
        } else if (!strcmp(a, "--device")) {
            o->device = v;
        } else if (!strcmp(a, "--variant")) {
            o->variant = v;
        } else if (!strncmp(a, "--", 2)) {
            int k = 0;
            while (k < 6 && strcmp(a + 2, tn[k])) k++;
            if (k == 6) return fprintf(stderr, "gemm_bench: unknown option %s\n", a), -1;
            o->tiles[k] = atol(v);
        } else {
            if (o->n_sizes == 32) return fprintf(stderr, "gemm_bench: too many sizes\n"), -1;
            o->sizes[o->n_sizes++] = strtoul(a, NULL, 10);
            continue;
        }
        i++;
    }
    if (!o->n_sizes) o->sizes[o->n_sizes++] = 1024;
    return 0;
}

static void random_fill(void *buf, size_t reals, int dbl, unsigned long long *s) {
    for (size_t i = 0; i < reals; i++) {
        *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
        double x = (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0 - 0.5;
        if (dbl)
            ((double *)buf)[i] = x;
        else
            ((float *)buf)[i] = (float)x;
    }
}

#ifdef CLIP_HAVE_CLBLAST
/* The OpenCL device with clip's 1-based global index (platforms in enumeration order). */
static cl_device_id device_by_index(int index) {
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return NULL;
    int seen = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd; d++)
            if (++seen == index) return devs[d];
    }
    return NULL;
}

/* CLBlast's GEMM on the same data: fills t_dev/t_wall (ms, median) and the result in `out`.
 * Returns 0, or -1 with a message. */
static int run_clblast(int dev_index, clip_type t, size_t n, const void *a, const void *b, void *out,
                       int repeat, double *t_dev, double *t_wall) {
    cl_device_id dev = device_by_index(dev_index);
    if (!dev) return fprintf(stderr, "clblast: device %d not found\n", dev_index), -1;
    cl_int e = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    if (e != CL_SUCCESS) return fprintf(stderr, "clblast: clCreateContext %d\n", e), -1;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
    size_t bytes = n * n * clip_type_size(t);
    cl_mem A = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)a, &e);
    cl_mem B = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)b, &e);
    cl_mem C = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    double *dv = calloc((size_t)repeat, sizeof *dv), *wv = calloc((size_t)repeat, sizeof *wv);
    int rc = 0;
    for (int r = -1; r < repeat && rc == 0; r++) { /* r = -1 builds and warms up */
        cl_event ev = NULL;
        double w0 = now_s();
        CLBlastStatusCode s;
        switch (t) {
        case CLIP_F32:
            s = CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.f,
                             A, 0, n, B, 0, n, 0.f, C, 0, n, &q, &ev);
            break;
        case CLIP_F64:
            s = CLBlastDgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0,
                             A, 0, n, B, 0, n, 0.0, C, 0, n, &q, &ev);
            break;
        case CLIP_C32: {
            cl_float2 one = {{1, 0}}, zero = {{0, 0}};
            s = CLBlastCgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, one,
                             A, 0, n, B, 0, n, zero, C, 0, n, &q, &ev);
            break;
        }
        default: {
            cl_double2 one = {{1, 0}}, zero = {{0, 0}};
            s = CLBlastZgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, one,
                             A, 0, n, B, 0, n, zero, C, 0, n, &q, &ev);
            break;
        }
        }
        if (s != CLBlastSuccess) {
            fprintf(stderr, "clblast: status %d\n", (int)s);
            rc = -1;
            break;
        }
        clFinish(q);
        double w1 = now_s();
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev);
        if (r >= 0) {
            dv[r] = (double)(t1 - t0) * 1e-6;
            wv[r] = (w1 - w0) * 1e3;
        }
    }
    if (rc == 0) {
        *t_dev = median(dv, repeat);
        *t_wall = median(wv, repeat);
        clEnqueueReadBuffer(q, C, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    }
    free(dv), free(wv);
    clReleaseMemObject(A), clReleaseMemObject(B), clReleaseMemObject(C);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return rc;
}
#endif

/* Largest |x - y| over the largest |y|, over all reals of the two results. */
static double rel_diff(const void *x, const void *y, size_t reals, int dbl) {
    double md = 0, my = 0;
    for (size_t i = 0; i < reals; i++) {
        double a = dbl ? ((const double *)x)[i] : ((const float *)x)[i];
        double b = dbl ? ((const double *)y)[i] : ((const float *)y)[i];
        md = fmax(md, fabs(a - b));
        my = fmax(my, fabs(b));
    }
    return my > 0 ? md / my : md;
}

static int bench_size(clip_app *app, const opts *o, size_t n) {
    clip_type t = o->type;
    int cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    size_t reals = n * n * (cx ? 2 : 1), bytes = n * n * clip_type_size(t);
    void *ha = malloc(bytes), *hb = malloc(bytes);
    unsigned long long seed = 88172645463325252ULL;
    random_fill(ha, reals, dbl, &seed);
    random_fill(hb, reals, dbl, &seed);
    size_t dims[2] = {n, n};
    clip_data *A = NULL, *B = NULL, *C = NULL;
    clip_process *p = NULL;
    int rc = -1;
    double *dv = calloc((size_t)o->repeat, sizeof *dv), *wv = calloc((size_t)o->repeat, sizeof *wv);
    clip_status s = clip_data_create_from(app, t, 2, dims, ha, &A);
    if (s == CLIP_OK) s = clip_data_create_from(app, t, 2, dims, hb, &B);
    if (s == CLIP_OK) s = clip_process_create(app, "matmul", &p);
    if (s == CLIP_OK && o->variant) s = clip_process_set_choice(p, "variant", o->variant);
    for (int i = 0; i < 6 && s == CLIP_OK; i++)
        if (o->tiles[i]) s = clip_process_set_int(p, o->tile_names[i], o->tiles[i]);
    if (s == CLIP_OK) s = clip_process_set_input(p, 0, A);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, B);
    double b0 = now_s();
    if (s == CLIP_OK) s = clip_process_init(p);
    double build_s = now_s() - b0;
    /* r = -1 warms up: uploads the inputs and touches every page of the output. */
    for (int r = -1; r < o->repeat && s == CLIP_OK; r++) {
        double w0 = now_s(), ms = 0;
        s = clip_process_launch(p);
        if (s == CLIP_OK) s = clip_app_finish(app);
        double w1 = now_s();
        if (s == CLIP_OK) s = clip_process_time_ms(p, &ms);
        if (r >= 0) {
            dv[r] = ms;
            wv[r] = (w1 - w0) * 1e3;
        }
    }
    const void *hc = NULL;
    if (s == CLIP_OK) s = clip_process_output(p, 0, &C);
    if (s == CLIP_OK) s = clip_data_host(C, &hc);
    if (s != CLIP_OK) {
        fprintf(stderr, "gemm_bench: %s\n", clip_app_last_error(app));
        goto done;
    }
    static const char *const kind[4] = {"sgemm", "dgemm", "cgemm", "zgemm"};
    double flop = (cx ? 8.0 : 2.0) * (double)n * (double)n * (double)n;
    double md = median(dv, o->repeat), mw = median(wv, o->repeat);
    printf("clip    %s n=%zu median_ms=%.3f gflops=%.1f wall_ms=%.3f wall_gflops=%.1f build_s=%.2f "
           "variant='%s'\n",
           kind[t], n, md, flop / md * 1e-6, mw, flop / mw * 1e-6, build_s, clip_process_variant(p));
    rc = 0;
#ifdef CLIP_HAVE_CLBLAST
    if (o->clblast) {
        void *out = malloc(bytes);
        double cd = 0, cw = 0;
        if (run_clblast(clip_app_device(app)->index, t, n, ha, hb, out, o->repeat, &cd, &cw) == 0) {
            printf("clblast %s n=%zu median_ms=%.3f gflops=%.1f wall_ms=%.3f wall_gflops=%.1f\n", kind[t],
                   n, cd, flop / cd * 1e-6, cw, flop / cw * 1e-6);
            printf("ratio   %s n=%zu clip/clblast device=%.2fx wall=%.2fx max_rel_diff=%.2g\n", kind[t], n,
                   cd / md, cw / mw, rel_diff(hc, out, reals, dbl));
        } else {
            rc = -1;
        }
        free(out);
    }
#endif
done:
    clip_process_destroy(p);
    clip_data_destroy(A);
    clip_data_destroy(B);
    free(ha), free(hb), free(dv), free(wv);
    return rc;
}

int main(int argc, char **argv) {
    opts o = {.type = CLIP_F32, .repeat = 10, .clblast = 1};
    if (parse(argc, argv, &o)) return 2;
    clip_criteria crit = {0};
    if (o.device && clip_criteria_from_spec(o.device, &crit) != CLIP_OK) {
        fprintf(stderr, "gemm_bench: %s\n", clip_app_last_error(NULL));
        return 2;
    }
    clip_app *app = NULL;
    if (clip_app_create(&app, &crit) != CLIP_OK) {
        fprintf(stderr, "gemm_bench: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    printf("device: %s (%s)\n", clip_app_device(app)->name, clip_app_device(app)->version);
#ifndef CLIP_HAVE_CLBLAST
    printf("clblast: not found at build time; clip only\n");
#endif
    int rc = 0;
    for (int i = 0; i < o.n_sizes; i++)
        if (bench_size(app, &o, o.sizes[i])) rc = 1;
    clip_app_destroy(app);
    return rc;
}
