/* gemm_bench: clip's matmul against CLBlast (where found at build time), side by side on one
 * device, column-major C = op(A)*op(B) with op(A) M x K and op(B) K x N.
 *
 *   gemm_bench [SIZE...] [--type f32|f64|c32|c64] [--repeat R] [--device SPEC] [--no-clblast]
 *              [--ops OPS[,OPS...]] [--transa n|t|c] [--transb n|t|c]
 *              [--variant V] [--precision fp32|tf32|bf16|fp16] [--mwg X --nwg X --kwg X
 *               --mdimc X --ndimc X --vw X --vwn X --ksplit X --stages X --wm X --streamk X
 *               --pipe 0|1 --kgroups X] [--ptxinfo] [--batch] [--paced]
 *
 * SIZE is n (a square product) or MxNxK. OPS is two letters, op(A) then op(B), each n (as
 * stored), t (transpose, MATLAB .') or c (conjugate transpose, '): --ops nn,tn,nt,tt times the
 * plain product and the three transposed ones one after the other in the same run (clip reads a
 * transposed operand in place; CLBlast gets the same transpose flags on the same stored data).
 * --transa/--transb set a single pair (default nn). Lines of a transposed case carry ":OPS" after
 * the shape. --batch adds a line with the wall time per product of R launches enqueued back to
 * back and finished once (batch_ms: what a chain of products costs, launch gaps included, beside a
 * CUDA graph's replay), and the same with the process's timing off (untimed_batch_ms: no
 * profiling events, clip_process_set_timing). --paced (implies --batch) adds the device's own time
 * per product with the host kept ahead (paced_ms: R untimed launches held behind a spin kernel,
 * bench/paced.h), the clock of a CUDA graph's replay; `ahead=0` on that line says the spin ended
 * before the host had enqueued them all, and the time is then not the device's. --ptxinfo builds
 * clip's chosen kernel once more with NVIDIA's -cl-nv-verbose and prints the compiler's register
 * and spill report.
 *
 * Per case it prints the median of R runs twice: the device time of the launch's events
 * (clip_process_time_ms; CLBlast's event likewise) and the wall time of launch + finish, each as
 * ms and GFLOP/s (2n^3 flops real, 8n^3 complex), then the ratio clip/CLBlast on both clocks and
 * the largest difference between the two results relative to the largest |C| entry, and a hash of
 * clip's C (c_hash: equal hashes, the same bits). When clip's
 * launch runs several kernels (split K, stream-K) a second clip line gives the span from the
 * first kernel's start to the last one's end and each kernel's median time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../processes/gemm.h"
#include "../tools/timing.h"
#include "clip/clip.h"
#include "clip/process_author.h"
#include "paced.h"

#ifdef CLIP_HAVE_CLBLAST
#include <clblast_c.h>
#endif

#define N_TILES 13

#define MAX_OPS 9

typedef struct opts {
    size_t sizes[32][3]; /* m, n, k */
    int n_sizes;
    int ops[MAX_OPS][2]; /* op(A), op(B): clip_gemm_trans */
    int n_ops;
    int ptxinfo;
    int batch;
    int paced;
    clip_type type;
    int repeat;
    const char *device;
    int clblast;
    const char *variant;
    const char *precision; /* matmul's precision parameter (fp32, tf32, bf16, fp16), when given */
    const char *tile_names[N_TILES];
    long tiles[N_TILES];
} opts;

static double median(double *v, int n) {
    return clip_tool_median(v, (size_t)n);
}

/* n, t or c as a clip_gemm_trans; -1 otherwise. */
static int op_of(char c) {
    return c == 'n' ? CLIP_GEMM_NOTRANS : c == 't' ? CLIP_GEMM_TRANS : c == 'c' ? CLIP_GEMM_CTRANS : -1;
}

/* --ops "nn,tn,nt,tt": each item two of n/t/c. Returns 0, or -1 with a message. */
static int parse_ops(const char *v, opts *o) {
    o->n_ops = 0;
    for (const char *q = v; *q;) {
        if (o->n_ops == MAX_OPS || !q[0] || !q[1] || op_of(q[0]) < 0 || op_of(q[1]) < 0 ||
            (q[2] && q[2] != ','))
            return fprintf(stderr, "gemm_bench: --ops %s: want pairs of n/t/c, e.g. nn,tn,nt,tt\n", v), -1;
        o->ops[o->n_ops][0] = op_of(q[0]);
        o->ops[o->n_ops][1] = op_of(q[1]);
        o->n_ops++;
        q += q[2] ? 3 : 2;
    }
    return 0;
}

static int parse(int argc, char **argv, opts *o) {
    static const char *const tn[N_TILES] = {"mwg",     "nwg",  "kwg",    "mdimc",  "ndimc",
                                            "vw",      "vwn",  "ksplit", "stages", "wm",
                                            "streamk", "pipe", "kgroups"};
    memcpy(o->tile_names, tn, sizeof tn);
    for (int k = 0; k < N_TILES; k++) o->tiles[k] = -1; /* unset: the process's default */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-clblast")) {
            o->clblast = 0;
            continue;
        }
        if (!strcmp(a, "--batch")) {
            o->batch = 1;
            continue;
        }
        if (!strcmp(a, "--paced")) {
            o->batch = o->paced = 1;
            continue;
        }
        if (!strcmp(a, "--ptxinfo")) {
            o->ptxinfo = 1;
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
        } else if (!strcmp(a, "--ops")) {
            if (parse_ops(v, o)) return -1;
        } else if (!strcmp(a, "--transa") || !strcmp(a, "--transb")) {
            const int which = a[7] == 'b';
            if (op_of(v[0]) < 0 || v[1])
                return fprintf(stderr, "gemm_bench: %s %s: want n, t or c\n", a, v), -1;
            o->n_ops = 1;
            o->ops[0][which] = op_of(v[0]);
        } else if (!strcmp(a, "--variant")) {
            o->variant = v;
        } else if (!strcmp(a, "--precision")) {
            o->precision = v;
        } else if (!strncmp(a, "--", 2)) {
            int k = 0;
            while (k < N_TILES && strcmp(a + 2, tn[k])) k++;
            if (k == N_TILES) return fprintf(stderr, "gemm_bench: unknown option %s\n", a), -1;
            o->tiles[k] = atol(v);
        } else {
            if (o->n_sizes == 32) return fprintf(stderr, "gemm_bench: too many sizes\n"), -1;
            unsigned long long m = 0, n = 0, k = 0;
            size_t *z = o->sizes[o->n_sizes++];
            if (sscanf(a, "%llux%llux%llu", &m, &n, &k) == 3) z[0] = m, z[1] = n, z[2] = k;
            else z[0] = z[1] = z[2] = strtoul(a, NULL, 10);
            if (!z[0] || !z[1] || !z[2]) return fprintf(stderr, "gemm_bench: bad size %s\n", a), -1;
            continue;
        }
        i++;
    }
    if (!o->n_sizes) o->sizes[o->n_sizes][0] = o->sizes[o->n_sizes][1] = o->sizes[o->n_sizes][2] = 1024, o->n_sizes++;
    if (!o->n_ops) o->n_ops = 1; /* nn */
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
static CLBlastTranspose clblast_op(int op) {
    return op == CLIP_GEMM_CTRANS ? CLBlastTransposeConjugate
           : op == CLIP_GEMM_TRANS ? CLBlastTransposeYes
                                   : CLBlastTransposeNo;
}

static int run_clblast(int dev_index, clip_type t, const int ops[2], size_t m, size_t n, size_t k,
                       const void *a, const void *b, void *out, int repeat, double *t_dev,
                       double *t_wall) {
    cl_device_id dev = device_by_index(dev_index);
    if (!dev) return fprintf(stderr, "clblast: device %d not found\n", dev_index), -1;
    cl_int e = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    if (e != CL_SUCCESS) return fprintf(stderr, "clblast: clCreateContext %d\n", e), -1;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
    size_t es = clip_type_size(t), bytes = m * n * es;
    cl_mem A = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m * k * es, (void *)a, &e);
    cl_mem B = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, k * n * es, (void *)b, &e);
    cl_mem C = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    double *dv = calloc((size_t)repeat, sizeof *dv), *wv = calloc((size_t)repeat, sizeof *wv);
    int rc = 0;
    /* The stored operands: k x m for a transposed A, n x k for a transposed B. */
    const CLBlastTranspose ta = clblast_op(ops[0]), tb = clblast_op(ops[1]);
    const size_t lda = ops[0] ? k : m, ldb = ops[1] ? n : k;
    for (int r = -1; r < repeat && rc == 0; r++) { /* r = -1 builds and warms up */
        cl_event ev = NULL;
        double w0 = clip_tool_now_s();
        CLBlastStatusCode s;
        switch (t) {
        case CLIP_F32:
            s = CLBlastSgemm(CLBlastLayoutColMajor, ta, tb, m, n, k, 1.f,
                             A, 0, lda, B, 0, ldb, 0.f, C, 0, m, &q, &ev);
            break;
        case CLIP_F64:
            s = CLBlastDgemm(CLBlastLayoutColMajor, ta, tb, m, n, k, 1.0,
                             A, 0, lda, B, 0, ldb, 0.0, C, 0, m, &q, &ev);
            break;
        case CLIP_C32: {
            cl_float2 one = {{1, 0}}, zero = {{0, 0}};
            s = CLBlastCgemm(CLBlastLayoutColMajor, ta, tb, m, n, k, one,
                             A, 0, lda, B, 0, ldb, zero, C, 0, m, &q, &ev);
            break;
        }
        default: {
            cl_double2 one = {{1, 0}}, zero = {{0, 0}};
            s = CLBlastZgemm(CLBlastLayoutColMajor, ta, tb, m, n, k, one,
                             A, 0, lda, B, 0, ldb, zero, C, 0, m, &q, &ev);
            break;
        }
        }
        if (s != CLBlastSuccess) {
            fprintf(stderr, "clblast: status %d\n", (int)s);
            rc = -1;
            break;
        }
        clFinish(q);
        double w1 = clip_tool_now_s();
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

/* Largest |x - y| over the largest |y|, over all reals of the two results (clip vs CLBlast). */
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
#endif

#ifndef CLIP_SOURCE_DIR
#define CLIP_SOURCE_DIR "."
#endif

/* Reads a whole text file (NULL on failure; the caller frees). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) buf[len] = '\0';
    else free(buf), buf = NULL;
    fclose(f);
    return buf;
}

/* Builds the set named by `variant` for an m-row product of depth k as clip would, plus
 * -cl-nv-verbose, and prints the lines of the build log that report registers and spills. */
static void print_ptxinfo(const clip_device_info *info, clip_type t, const char *variant,
                          const int ops[2], size_t m, size_t n, size_t k) {
    clip_gemm_params prm;
    if (clip_gemm_parse(variant, &prm)) {
        printf("ptxinfo: '%s' is not a GEMM set\n", variant);
        return;
    }
    clip_gemm_set_trans(&prm, t, (clip_gemm_trans)ops[0], (clip_gemm_trans)ops[1]);
    clip_gemm_fit_packed(&prm, info, t, 0, m, n, k);
    char opts[512], defs[384];
    clip_gemm_options(&prm, defs, sizeof defs);
    snprintf(opts, sizeof opts, "-DCLIP_DOUBLE=%d -DCLIP_COMPLEX=%d -DCLIP_SHORT_NAMES=1 %s -cl-nv-verbose",
             clip_type_is_double(t), clip_type_is_complex(t), defs);
    /* The tensor family builds tensor_core.cl and matmul_tc.cl after common.cl (gemm_tc.c). */
    const int tc = prm.variant == CLIP_GEMM_TENSOR;
    char *src[3] = {slurp(CLIP_SOURCE_DIR "/kernels/common.cl"),
                    slurp(tc ? CLIP_SOURCE_DIR "/kernels/tensor_core.cl" : CLIP_SOURCE_DIR "/kernels/matmul.cl"),
                    tc ? slurp(CLIP_SOURCE_DIR "/kernels/matmul_tc.cl") : NULL};
#ifdef CLIP_HAVE_CLBLAST
    cl_device_id dev = device_by_index(info->index);
#else
    cl_device_id dev = NULL;
    cl_platform_id plat;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &plat, &np) == CL_SUCCESS && np) clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL);
#endif
    cl_int e = CL_SUCCESS;
    cl_context ctx = dev && src[0] && src[1] && (!tc || src[2]) ? clCreateContext(NULL, 1, &dev, NULL, NULL, &e) : NULL;
    if (ctx) {
        cl_program prog = clCreateProgramWithSource(ctx, tc ? 3 : 2, (const char **)src, NULL, &e);
        e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
        size_t len = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        char *log = malloc(len + 1);
        if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
            log[len] = '\0';
            for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
                if (strstr(line, "gemm_tiled") || strstr(line, "gemm_tc") || strstr(line, "registers") || strstr(line, "spill") ||
                    strstr(line, "error"))
                    printf("ptxinfo: %s\n", line);
        }
        free(log);
        clReleaseProgram(prog);
        clReleaseContext(ctx);
    } else {
        printf("ptxinfo: cannot read the kernel sources under %s or open the device\n", CLIP_SOURCE_DIR);
    }
    free(src[0]), free(src[1]), free(src[2]);
}

/* paced_launch_fn for a matmul process. */
static int launch_product(void *p) {
    return clip_process_launch(p) != CLIP_OK;
}

static int bench_size(clip_app *app, const opts *o, const size_t *mnk, const int ops[2]) {
    clip_type t = o->type;
    const size_t m = mnk[0], n = mnk[1], k = mnk[2];
    int cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    size_t es = clip_type_size(t), reals = m * n * (cx ? 2 : 1), bytes = m * n * es;
    void *ha = malloc(m * k * es), *hb = malloc(k * n * es);
    unsigned long long seed = 88172645463325252ULL;
    random_fill(ha, m * k * (cx ? 2 : 1), dbl, &seed);
    random_fill(hb, k * n * (cx ? 2 : 1), dbl, &seed);
    /* The stored operands: op(A) is m x k, so a transposed A is k x m; likewise B. */
    size_t da[2] = {ops[0] ? k : m, ops[0] ? m : k}, db[2] = {ops[1] ? n : k, ops[1] ? k : n};
    static const char *const op_names[3] = {"n", "t", "c"};
    clip_data *A = NULL, *B = NULL, *C = NULL;
    clip_process *p = NULL;
    int rc = -1;
    double *dv = calloc((size_t)o->repeat, sizeof *dv), *wv = calloc((size_t)o->repeat, sizeof *wv);
    double *sv = calloc((size_t)o->repeat, sizeof *sv), *cv[4];
    for (int c = 0; c < 4; c++) cv[c] = calloc((size_t)o->repeat, sizeof *cv[c]);
    size_t ncmd = 0;
    clip_status s = clip_data_create_from(app, t, 2, da, ha, &A);
    if (s == CLIP_OK) s = clip_data_create_from(app, t, 2, db, hb, &B);
    if (s == CLIP_OK) s = clip_process_create(app, "matmul", &p);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "transa", op_names[ops[0]]);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "transb", op_names[ops[1]]);
    if (s == CLIP_OK && o->variant) s = clip_process_set_choice(p, "variant", o->variant);
    if (s == CLIP_OK && o->precision) s = clip_process_set_choice(p, "precision", o->precision);
    for (int i = 0; i < N_TILES && s == CLIP_OK; i++)
        if (o->tiles[i] >= 0) s = clip_process_set_int(p, o->tile_names[i], o->tiles[i]);
    if (s == CLIP_OK) s = clip_process_set_input(p, 0, A);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, B);
    double b0 = clip_tool_now_s();
    if (s == CLIP_OK) s = clip_process_init(p);
    double build_s = clip_tool_now_s() - b0;
    /* r = -1 warms up: uploads the inputs and touches every page of the output. */
    for (int r = -1; r < o->repeat && s == CLIP_OK; r++) {
        double w0 = clip_tool_now_s(), ms = 0;
        s = clip_process_launch(p);
        if (s == CLIP_OK) s = clip_app_finish(app);
        double w1 = clip_tool_now_s();
        if (s == CLIP_OK) s = clip_process_time_ms(p, &ms);
        double each[4] = {0, 0, 0, 0}, span = 0;
        if (s == CLIP_OK) s = clip_process_command_times(p, each, 4, &ncmd, &span);
        if (r >= 0) {
            dv[r] = ms;
            wv[r] = (w1 - w0) * 1e3;
            sv[r] = span;
            for (int c = 0; c < 4; c++) cv[c][r] = each[c];
        }
    }
    double batch_ms[2] = {0, 0}; /* timed, untimed */
    for (int u = 0; u < 2 && o->batch && s == CLIP_OK; u++) {
        s = clip_process_set_timing(p, !u);
        if (s == CLIP_OK) s = clip_tool_batch_ms(app, p, o->repeat, &batch_ms[u]);
    }
    double paced = 0;
    int ahead = 0;
    /* Untimed, as the batch loop left the process. */
    if (o->paced && s == CLIP_OK &&
        paced_ms(clip_proc_cl_queue(p), launch_product, p, o->repeat, batch_ms[1], &paced, &ahead))
        s = CLIP_ERR_OPENCL;
    const void *hc = NULL;
    if (s == CLIP_OK) s = clip_process_output(p, 0, &C);
    if (s == CLIP_OK) s = clip_data_host(C, &hc);
    if (s != CLIP_OK) {
        fprintf(stderr, "gemm_bench: %s\n", clip_app_last_error(app));
        goto done;
    }
    static const char *const kind[4] = {"sgemm", "dgemm", "cgemm", "zgemm"};
    char shape[64];
    snprintf(shape, sizeof shape, "%zux%zux%zu", m, n, k);
    if (ops[0] || ops[1]) /* a plain product's lines stay as the scripts parse them */
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), ":%s%s", op_names[ops[0]],
                 op_names[ops[1]]);
    double flop = (cx ? 8.0 : 2.0) * (double)m * (double)n * (double)k;
    double md = median(dv, o->repeat), mw = median(wv, o->repeat);
    /* FNV-1a of C's bytes: two runs (say, two kernels for the same product) that print the same
     * hash computed the same bits. */
    unsigned long long hash = 14695981039346656037ULL;
    for (size_t i = 0; i < bytes; i++)
        hash = (hash ^ ((const unsigned char *)hc)[i]) * 1099511628211ULL;
    printf("clip    %s %-16s median_ms=%.4f gflops=%.1f wall_ms=%.4f wall_gflops=%.1f build_s=%.2f "
           "variant='%s' c_hash=%016llx\n",
           kind[t], shape, md, flop / md * 1e-6, mw, flop / mw * 1e-6, build_s,
           clip_process_variant(p), hash);
    if (ncmd > 1) {
        /* A launch of several kernels: each one's median, and the span from the first start to
         * the last end (the device time above leaves the gaps between them out). */
        printf("clip    %s %-16s span_ms=%.4f span_gflops=%.1f kernels_ms=", kind[t], shape,
               median(sv, o->repeat), flop / median(sv, o->repeat) * 1e-6);
        for (size_t c = 0; c < ncmd && c < 4; c++) printf("%s%.4f", c ? "," : "", median(cv[c], o->repeat));
        printf("\n");
    }
    if (o->batch)
        printf("clip    %s %-16s batch_ms=%.4f batch_gflops=%.1f untimed_batch_ms=%.4f\n", kind[t],
               shape, batch_ms[0], flop / batch_ms[0] * 1e-6, batch_ms[1]);
    if (o->paced)
        printf("clip    %s %-16s paced_ms=%.4f paced_gflops=%.1f ahead=%d\n", kind[t], shape, paced,
               flop / paced * 1e-6, ahead);
    if (o->ptxinfo) print_ptxinfo(clip_app_device(app), t, clip_process_variant(p), ops, m, n, k);
    rc = 0;
#ifdef CLIP_HAVE_CLBLAST
    if (o->clblast) {
        void *out = malloc(bytes);
        double cd = 0, cw = 0;
        if (run_clblast(clip_app_device(app)->index, t, ops, m, n, k, ha, hb, out, o->repeat, &cd,
                        &cw) == 0) {
            printf("clblast %s %-16s median_ms=%.4f gflops=%.1f wall_ms=%.4f wall_gflops=%.1f\n", kind[t],
                   shape, cd, flop / cd * 1e-6, cw, flop / cw * 1e-6);
            printf("ratio   %s %-16s clip/clblast device=%.3fx wall=%.3fx max_rel_diff=%.2g\n", kind[t],
                   shape, cd / md, cw / mw, rel_diff(hc, out, reals, dbl));
        } else {
            rc = -1;
        }
        free(out);
    }
#else
    (void)bytes, (void)reals;
#endif
done:
    clip_process_destroy(p);
    clip_data_destroy(A);
    clip_data_destroy(B);
    free(ha), free(hb), free(dv), free(wv), free(sv);
    for (int c = 0; c < 4; c++) free(cv[c]);
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
        for (int j = 0; j < o.n_ops; j++)
            if (bench_size(app, &o, o.sizes[i], o.ops[j])) rc = 1;
    clip_app_destroy(app);
    return rc;
}
