/* range_bench: SGEMM and conv2 on data outside ordinary ranges (issue 45), timed and checked
 * beside ordinary data and beside the FFMA kernels on the same inputs.
 *
 *   range_bench matmul N KIND...     C = A*B of N x N singles
 *   range_bench conv2 N K KIND...    an N x N single image by a K x K filter (K odd), 'same'
 *   KIND: normal (uniform in [-1, 1)), nan (3 NaN and 2 Inf in A, 2 -Inf in matmul's B), fltmax (4
 * values of +-0.9 FLT_MAX in A), subA (A ~1e-39, subnormal, B ~1e10), subB (the other way round),
 * tiny (A ~1e-36, B ~1e9), nanrow (16 NaN in row 5 of A), widerow (row 7 of A holds 2^-140 and
 * 2^100, more than one shift brings into the 3xTF32 range): B is conv2's filter. options: --variant
 * V (default auto) --ffma V (default tiled for matmul, block for conv2)
 *
 * For each kind: the chained time of a launch (tools/timing.h) of the variant and of the FFMA
 * variant, and after each variant's name the device time of each command of one launch, ms
 * ("[pack+scale+product+fix]"); the error of 4096 sampled outputs against a double reference, in
 * eps = 2^-24 of the sum of |a||b| at that output (largest and mean); and whether every output's
 * class (NaN, +Inf, -Inf, finite) is the same in both variants' results. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/timing.h"
#include "clip/clip.h"

static void die(clip_app *app, const char *what) {
    fprintf(stderr, "range_bench: %s: %s\n", what, clip_app_last_error(app));
    exit(1);
}

static clip_data *make(clip_app *app, size_t r, size_t c, unsigned seed, float **host) {
    size_t dims[2] = {r, c};
    clip_data *d = NULL;
    if (clip_data_create(app, CLIP_F32, 2, dims, &d) != CLIP_OK) die(app, "data");
    float *h = NULL;
    if (clip_data_host_write(d, (void **)&h) != CLIP_OK) die(app, "host");
    for (size_t i = 0; i < r * c; i++)
        h[i] =
            (float)(((uint32_t)i * 2654435761u + seed * 40503u) >> 8 & 0xffffu) / 32768.0f - 1.0f;
    *host = h;
    return d;
}

static void scale(float *h, size_t n, int e) {
    for (size_t i = 0; i < n; i++)
        h[i] = (float)ldexp(h[i], e);
}

/* Applies KIND to A (na values) and B (nb; conv2's filter, which `nan` leaves alone). */
static void apply(const char *kind, float *A, size_t na, float *B, size_t nb, int conv) {
    if (!strcmp(kind, "nan")) {
        A[na / 7] = NAN, A[na / 3 + 5] = NAN, A[na - 9] = NAN;
        A[na / 2 + 11] = INFINITY, A[na / 5] = INFINITY;
        if (!conv) B[nb / 3] = -INFINITY, B[nb / 2 + 3] = -INFINITY;
    } else if (!strcmp(kind, "fltmax")) {
        A[na / 7] = 0.9f * FLT_MAX, A[na / 3] = -0.9f * FLT_MAX;
        A[na / 2 + 1] = 0.9f * FLT_MAX, A[na - 77] = -0.9f * FLT_MAX;
    } else if (!strcmp(kind, "subA")) {
        scale(A, na, -130), scale(B, nb, 33);
    } else if (!strcmp(kind, "subB")) {
        scale(A, na, 33), scale(B, nb, -130);
    } else if (!strcmp(kind, "tiny")) {
        scale(A, na, -120), scale(B, nb, 30);
    } else if (!strcmp(kind, "nanrow")) {
        /* matmul: row 5 of A holds 16 NaN (more than wg_pack lists: the row goes to wg_fix) */
        const size_t n = (size_t)sqrt((double)na);
        for (size_t q = 0; q < 16; q++)
            A[5 + q * (n / 16) * n] = NAN;
    } else if (!strcmp(kind, "widerow")) {
        /* matmul: row 7 of A spans 2^-140 (subnormal) to 2^100, more than any shift holds (the
         * row goes to wg_fix); conv2: the same two values in A */
        const size_t n = (size_t)sqrt((double)na);
        A[7 + 3 * n] = 0x1p-140f, A[7 + (n / 2) * n] = 0x1p100f;
    } else if (strcmp(kind, "normal")) {
        fprintf(stderr, "range_bench: unknown kind '%s'\n", kind);
        exit(2);
    }
}

static int cls(float x) {
    return isnan(x) ? 3 : isinf(x) ? (x > 0 ? 1 : 2) : 0;
}

typedef struct {
    int conv;
    size_t n, k;
    const float *A, *B;
} problem;

/* Output (i, j) in double and its sum of |a||b|. */
static double ref_at(const problem *p, size_t i, size_t j, double *absum) {
    double s = 0, sb = 0;
    if (!p->conv) {
        for (size_t q = 0; q < p->n; q++) {
            const double t = (double)p->A[i + q * p->n] * p->B[q + j * p->n];
            s += t, sb += fabs(t);
        }
    } else {
        const long c = (long)(p->k - 1) / 2, n = (long)p->n;
        for (long v = 0; v < (long)p->k; v++)
            for (long u = 0; u < (long)p->k; u++) {
                const long r = (long)i + c - u, col = (long)j + c - v;
                if (r < 0 || r >= n || col < 0 || col >= n) continue;
                const double t = (double)p->A[r + col * n] * p->B[u + v * (long)p->k];
                s += t, sb += fabs(t);
            }
    }
    *absum = sb;
    return s;
}

/* Runs `variant` on a and b; times it; fills out (n*n floats) with its result. */
static double run(clip_app *app, const problem *pr, clip_data *a, clip_data *b, const char *variant,
                  float *out, char *chosen, size_t cap) {
    clip_process *p = NULL;
    if (clip_process_create(app, pr->conv ? "conv2" : "matmul", &p) != CLIP_OK) die(app, "create");
    if (clip_process_set_choice(p, "variant", variant) != CLIP_OK) die(app, "variant");
    if (pr->conv && (clip_process_set_choice(p, "shape", "same") != CLIP_OK ||
                     clip_process_set_choice(p, "separable", "off") != CLIP_OK))
        die(app, "conv2 options");
    if (clip_process_set_input(p, 0, a) != CLIP_OK || clip_process_set_input(p, 1, b) != CLIP_OK ||
        clip_process_init(p) != CLIP_OK)
        die(app, "init");
    snprintf(chosen, cap, "%s", clip_process_variant(p));
    double ms = 0;
    if (clip_tool_chain_ms(app, p, clip_tool_now_s() + 20, 16, &ms) != CLIP_OK) die(app, "time");
    /* one more launch, its commands timed one by one (the packing, scaling, product, fixes) */
    double each[8] = {0};
    size_t count = 0;
    if (clip_process_set_timing(p, 1) != CLIP_OK || clip_process_launch(p) != CLIP_OK ||
        clip_process_command_times(p, each, 8, &count, NULL) != CLIP_OK)
        die(app, "command times");
    size_t at = strlen(chosen);
    for (size_t i = 0; i < count && i < 8 && at + 12 < cap; i++)
        at += (size_t)snprintf(chosen + at, cap - at, "%s%.3f", i ? "+" : " [", each[i]);
    if (count && at + 2 < cap) snprintf(chosen + at, cap - at, "]");
    clip_data *c = NULL;
    if (clip_process_output(p, 0, &c) != CLIP_OK || clip_data_read(c, out) != CLIP_OK)
        die(app, "output");
    clip_process_destroy(p);
    return ms;
}

/* The sampled error (largest and mean, in eps) of out. */
static void sample_err(const problem *p, const float *out, double *mx, double *mean) {
    double m = 0, s = 0;
    int cnt = 0;
    uint32_t h = 12345;
    for (int t = 0; t < 4096; t++) {
        h = h * 1664525u + 1013904223u;
        const size_t i = (h >> 8) % p->n;
        h = h * 1664525u + 1013904223u;
        const size_t j = (h >> 8) % p->n;
        double sb;
        const double r = ref_at(p, i, j, &sb);
        if (!(sb > 0) || !isfinite(sb) || !isfinite(r)) continue;
        const double e = fabs(out[i + j * p->n] - r) / sb * 0x1p24;
        if (!(e <= m)) m = e;
        s += e, cnt++;
    }
    *mx = m, *mean = cnt ? s / cnt : 0;
}

int main(int argc, char **argv) {
    const char *variant = "auto", *ffma = NULL;
    int first = 0;
    problem pr = {0};
    if (argc < 3) {
        fprintf(stderr, "usage: range_bench matmul N KIND... | conv2 N K KIND... [--variant V] "
                        "[--ffma V]\n");
        return 2;
    }
    pr.conv = !strcmp(argv[1], "conv2");
    pr.n = (size_t)atol(argv[2]);
    pr.k = pr.conv ? (size_t)atol(argv[3]) : pr.n;
    first = pr.conv ? 4 : 3;
    for (int i = first; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--variant")) variant = argv[i + 1];
        if (!strcmp(argv[i], "--ffma")) ffma = argv[i + 1];
    }
    if (!ffma) ffma = pr.conv ? "block" : "tiled";
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) die(NULL, "app");
    const size_t n = pr.n, nb = pr.conv ? pr.k * pr.k : n * n;
    float *o1 = malloc(sizeof(float) * n * n), *o2 = malloc(sizeof(float) * n * n);
    if (!o1 || !o2) die(app, "memory");
    for (int i = first; i < argc; i++) {
        if (!strncmp(argv[i], "--", 2)) {
            i++;
            continue;
        }
        const char *kind = argv[i];
        float *A, *B;
        clip_data *a = make(app, n, n, 1, &A);
        clip_data *b = pr.conv ? make(app, pr.k, pr.k, 2, &B) : make(app, n, n, 2, &B);
        apply(kind, A, n * n, B, nb, pr.conv);
        /* the reference reads copies: the data's host storage is clip's */
        float *ca = malloc(sizeof(float) * n * n), *cb = malloc(sizeof(float) * nb);
        if (!ca || !cb) die(app, "memory");
        memcpy(ca, A, sizeof(float) * n * n), memcpy(cb, B, sizeof(float) * nb);
        pr.A = ca, pr.B = cb;
        char v1[320], v2[320];
        const double t1 = run(app, &pr, a, b, variant, o1, v1, sizeof v1);
        const double t2 = run(app, &pr, a, b, ffma, o2, v2, sizeof v2);
        double m1, e1, m2, e2;
        sample_err(&pr, o1, &m1, &e1);
        sample_err(&pr, o2, &m2, &e2);
        size_t diff = 0, nonfinite = 0;
        for (size_t q = 0; q < n * n; q++) {
            diff += cls(o1[q]) != cls(o2[q]);
            nonfinite += cls(o1[q]) != 0;
        }
        if (pr.conv)
            printf("range conv2 %zux%zu %zux%zu same %-6s: %s '%s' %.3f ms, err max %.3g mean %.3g "
                   "eps | %s '%s' %.3f ms, err max %.3g mean %.3g | non-finite outputs %zu, "
                   "classes differing %zu\n",
                   n, n, pr.k, pr.k, kind, variant, v1, t1, m1, e1, ffma, v2, t2, m2, e2, nonfinite,
                   diff);
        else
            printf("range matmul %zu^3 %-6s: %s '%s' %.3f ms, err max %.3g mean %.3g eps | %s "
                   "'%s' %.3f ms, err max %.3g mean %.3g | non-finite outputs %zu, classes "
                   "differing %zu\n",
                   n, kind, variant, v1, t1, m1, e1, ffma, v2, t2, m2, e2, nonfinite, diff);
        fflush(stdout);
        clip_data_destroy(a), clip_data_destroy(b);
        free(ca), free(cb);
    }
    free(o1), free(o2);
    clip_app_destroy(app);
    return 0;
}
