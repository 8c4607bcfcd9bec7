/* dot of arrays: dot(A, B) column-wise (along the first non-singleton dimension) and
 * dot(A, B, dim) along every dimension of a 3-D array and past the last, for every pair of
 * types (mixed promote, a real operand stays real), the conjugation of the first argument,
 * NaN and Inf, empties, and the size errors; references in long double here, errors bounded
 * relative to sum |a||b| per line (a dot product may cancel). */
#define _POSIX_C_SOURCE 200809L

#include "reduce_testutil.h"

static const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
static int quick;

/* Element e of re + i*im as type `in` stores it, rounded to the result type `to`. */
static double stored(double v, clip_type in, clip_type to) {
    if (!clip_type_is_double(in)) v = (float)v;
    if (!clip_type_is_double(to)) v = (float)v;
    return v;
}

/* Data of type t and dims (3-D) from re, im. */
static clip_data *make3(clip_app *app, clip_type t, const size_t *dims, const double *re,
                        const double *im) {
    size_t n = dims[0] * dims[1] * dims[2];
    clip_data *flat = rt_make(app, t, n, 1, re, im), *d = NULL;
    const void *h = NULL;
    if (clip_data_host(flat, &h) != CLIP_OK ||
        clip_data_create_from(app, t, 3, dims, h, &d) != CLIP_OK) {
        fprintf(stderr, "make3: %s\n", clip_app_last_error(app));
        exit(2);
    }
    clip_data_destroy(flat);
    return d;
}

/* Checks one line's result (got_re, got_im) against sum(conj(a).*b) over elements
 * base + j*stride, j < n: Inf and NaN exactly (NaN as NaN), finite values within rel times
 * sum |a||b|, per part (rel 0: 2e-6 in single, 1e-13 in double). */
static void check_line(clip_type ta, clip_type tb, const double *are, const double *aim,
                       const double *bre, const double *bim, size_t base, size_t stride, size_t n,
                       double got_re, double got_im, double rel, const char *ctx) {
    clip_type t = clip_type_promote(ta, tb);
    int acx = clip_type_is_complex(ta), bcx = clip_type_is_complex(tb);
    long double re = 0, im = 0, scale[2] = {0, 0}; /* per part: Inf in one spares the other */
    for (size_t j = 0; j < n; j++) {
        size_t e = base + j * stride;
        long double ar = stored(are[e], ta, t), br = stored(bre[e], tb, t);
        long double ai = acx ? stored(aim[e], ta, t) : 0, bi = bcx ? stored(bim[e], tb, t) : 0;
        re += ar * br + (acx && bcx ? ai * bi : 0);
        im += (bcx ? ar * bi : 0) - (acx ? ai * br : 0);
        const long double sr = fabsl(ar * br) + (acx && bcx ? fabsl(ai * bi) : 0);
        const long double si = (bcx ? fabsl(ar * bi) : 0) + (acx ? fabsl(ai * br) : 0);
        if (isfinite((double)sr)) scale[0] += sr;
        if (isfinite((double)si)) scale[1] += si;
    }
    if (rel == 0) rel = clip_type_is_double(t) ? 1e-13 : 2e-6;
    const double want[2] = {(double)re, (double)im}, got[2] = {got_re, got_im};
    for (int c = 0; c < (clip_type_is_complex(t) ? 2 : 1); c++) {
        int ok = isnan(want[c]) ? isnan(got[c])
                 : isinf(want[c]) ? got[c] == want[c]
                                  : fabs(got[c] - want[c]) <= rel * (double)scale[c];
        tu_checks++;
        if (!ok) {
            tu_failures++;
            fprintf(stderr, "%s (%s): got %.17g, want %.17g\n", ctx, c ? "im" : "re", got[c],
                    want[c]);
        }
    }
}

/* Runs dot(A, B, dim) (dim 0: MATLAB's default); the output borrowed in *y. */
static clip_status run(clip_process *p, clip_data *a, clip_data *b, long dim, clip_data **y) {
    clip_status s = clip_process_set_input(p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, b);
    if (s == CLIP_OK) s = clip_process_set_int(p, "dim", dim);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, y);
    return s;
}

/* Element o of the output as (re, im). */
static void out_at(clip_data *y, size_t o, double *re, double *im) {
    const void *h = NULL;
    *re = *im = NAN;
    if (clip_data_host(y, &h) != CLIP_OK) return;
    clip_type t = clip_data_type(y);
    int cx = clip_type_is_complex(t), w = cx ? 2 : 1;
    if (clip_type_is_double(t)) {
        *re = ((const double *)h)[o * w], *im = cx ? ((const double *)h)[o * w + 1] : 0;
    } else {
        *re = ((const float *)h)[o * w], *im = cx ? ((const float *)h)[o * w + 1] : 0;
    }
}

static void test_dims(clip_app *app, clip_process *p) {
    const size_t d[3] = {quick ? 9 : 37, 5, quick ? 3 : 4}, N = d[0] * d[1] * d[2];
    double *v[4];
    unsigned long long seed = 99;
    for (int k = 0; k < 4; k++) {
        v[k] = malloc(N * sizeof *v[k]);
        rt_fill_random(v[k], N, &seed);
    }
    v[0][7] = NAN;      /* one NaN line per dimension */
    v[2][N - 3] = INFINITY;
    v[3][11] = INFINITY; /* Inf in an imaginary part: NaN only where a complex meets it */
    for (int ta = 0; ta < 4; ta++)
        for (int tb = 0; tb < 4; tb++) {
            if (quick && (ta + tb) % 2) continue;
            clip_data *a = make3(app, types[ta], d, v[0], v[1]);
            clip_data *b = make3(app, types[tb], d, v[2], v[3]);
            for (int dim = 0; dim <= 4; dim++) {
                if (ta != tb && dim != (ta + 2 * tb) % 5) continue; /* mixtures: one dim each */
                clip_data *y = NULL;
                CHECK_OK(app, run(p, a, b, dim, &y));
                if (!y) continue;
                int dd = dim ? dim : 1; /* the first non-singleton dimension */
                size_t pre = 1, n = dd <= 3 ? d[dd - 1] : 1, post = 1;
                for (int i = 0; i < 3; i++) {
                    if (i < dd - 1) pre *= d[i];
                    if (i > dd - 1) post *= d[i];
                }
                CHECK(clip_data_numel(y) == pre * post);
                CHECK(clip_data_type(y) == clip_type_promote(types[ta], types[tb]));
                CHECK(dd > 3 || clip_data_dim(y, dd - 1) == 1);
                char ctx[96];
                snprintf(ctx, sizeof ctx, "%s.%s dim %d", clip_type_name(types[ta]),
                         clip_type_name(types[tb]), dim);
                for (size_t i = 0; i < pre; i++)
                    for (size_t k = 0; k < post; k++) {
                        double re, im;
                        out_at(y, i + pre * k, &re, &im);
                        check_line(types[ta], types[tb], v[0], v[1], v[2], v[3], i + pre * n * k,
                                   pre, n, re, im, 0, ctx);
                    }
            }
            clip_data_destroy(a);
            clip_data_destroy(b);
        }
    /* dot(A, A) of complex columns: imaginary parts exactly 0, as MATLAB's. */
    clip_data *a = rt_make(app, CLIP_C32, 13, 3, v[0] + 20, v[1] + 20), *y = NULL;
    CHECK_OK(app, run(p, a, a, 0, &y));
    for (size_t k = 0; y && k < 3; k++) {
        double re, im;
        out_at(y, k, &re, &im);
        CHECK(im == 0 && re > 0);
    }
    clip_data_destroy(a);
    /* Row vectors with dim: element-wise along 1, the dot product along 2. */
    a = rt_make(app, CLIP_F64, 1, 6, v[0] + 30, NULL);
    clip_data *b = rt_make(app, CLIP_C64, 1, 6, v[2] + 30, v[3] + 30);
    CHECK_OK(app, run(p, a, b, 1, &y));
    CHECK(y && clip_data_dim(y, 0) == 1 && clip_data_dim(y, 1) == 6);
    for (size_t k = 0; y && k < 6; k++) {
        double re, im;
        out_at(y, k, &re, &im);
        check_line(CLIP_F64, CLIP_C64, v[0] + 30, NULL, v[2] + 30, v[3] + 30, k, 1, 1, re, im, 0,
                   "row dim 1");
    }
    CHECK_OK(app, run(p, a, b, 2, &y));
    double re, im;
    out_at(y, 0, &re, &im);
    CHECK(y && clip_data_numel(y) == 1);
    check_line(CLIP_F64, CLIP_C64, v[0] + 30, NULL, v[2] + 30, v[3] + 30, 0, 1, 6, re, im, 0,
               "row dim 2");
    clip_data_destroy(a);
    clip_data_destroy(b);
    for (int k = 0; k < 4; k++)
        free(v[k]);
}

/* Long single-precision lines: each line's sum is compensated (kernels/common.cl, clip_addc),
 * so the result stays within a few ulps of sum |a||b| where plain float sums of this many
 * products drift by about 1e-5: along dimension 2 of 2 x N a work-item sums a whole line
 * alone, along dimension 1 of N x 2 a work-group shares it. */
static void test_long_lines(clip_app *app, clip_process *p) {
    const size_t N = quick ? 400003 : 2000003;
    double *v[2];
    unsigned long long seed = 31;
    for (int k = 0; k < 2; k++) {
        v[k] = malloc(2 * N * sizeof *v[k]);
        for (size_t i = 0; i < 2 * N; i++)
            v[k][i] = 0.5 + 0.5 * tu_rand(&seed);
    }
    for (int dim = 1; dim <= 2; dim++) {
        const size_t rows = dim == 1 ? N : 2, cols = dim == 1 ? 2 : N;
        clip_data *a = rt_make(app, CLIP_F32, rows, cols, v[0], NULL);
        clip_data *b = rt_make(app, CLIP_F32, rows, cols, v[1], NULL), *y = NULL;
        CHECK_OK(app, run(p, a, b, dim, &y));
        for (size_t l = 0; y && l < 2; l++) {
            double re, im;
            out_at(y, l, &re, &im);
            char ctx[32];
            snprintf(ctx, sizeof ctx, "long line dim %d", dim);
            check_line(CLIP_F32, CLIP_F32, v[0], NULL, v[1], NULL, dim == 1 ? l * N : l,
                       dim == 1 ? 1 : 2, N, re, im, 3e-7, ctx);
        }
        clip_data_destroy(a);
        clip_data_destroy(b);
    }
    for (int k = 0; k < 2; k++)
        free(v[k]);
}

/* Empties: zeros of the output size (dot(zeros(0, 3), zeros(0, 3)) is 1x3), or an empty
 * output. */
static void test_empty(clip_app *app, clip_process *p) {
    size_t d03[2] = {0, 3}, d30[2] = {3, 0};
    clip_data *a = NULL, *b = NULL, *y = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_C32, 2, d03, &a));
    CHECK_OK(app, clip_data_create(app, CLIP_F64, 2, d03, &b));
    CHECK_OK(app, run(p, a, b, 0, &y));
    CHECK(y && clip_data_dim(y, 0) == 1 && clip_data_dim(y, 1) == 3 &&
          clip_data_type(y) == CLIP_C32);
    double re = 1, im = 1;
    out_at(y, 2, &re, &im);
    CHECK(re == 0 && im == 0);
    clip_data_destroy(a);
    clip_data_destroy(b);
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, d30, &a));
    CHECK_OK(app, run(p, a, a, 0, &y));
    CHECK(y && clip_data_dim(y, 0) == 1 && clip_data_dim(y, 1) == 0);
    clip_data_destroy(a);
}

static void test_errors(clip_app *app, clip_process *p) {
    double v[24] = {0};
    clip_data *a = rt_make(app, CLIP_F32, 4, 6, v, NULL), *b = rt_make(app, CLIP_F32, 6, 4, v, NULL);
    clip_data *y = NULL;
    CHECK_STATUS(app, run(p, a, b, 0, &y), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "dot: A is 4x6 and B is 6x4: MATLAB's dot of arrays needs equal sizes");
    clip_data_destroy(b);
    /* With dim, vectors of different orientation are arrays of different sizes (MATLAB). */
    clip_data *r = rt_make(app, CLIP_F32, 1, 5, v, NULL), *c = rt_make(app, CLIP_F32, 5, 1, v, NULL);
    CHECK_STATUS(app, run(p, r, c, 1, &y), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "A is 1x5 and B is 5x1");
    CHECK_STATUS(app, clip_process_set_int(p, "dim", 9), CLIP_ERR_PARAM_RANGE);
    clip_data_destroy(r);
    clip_data_destroy(c);
    clip_data_destroy(a);
}

static void test_cli(clip_app *app) {
    double re[12], im[12];
    unsigned long long seed = 4;
    rt_fill_random(re, 12, &seed);
    rt_fill_random(im, 12, &seed);
    clip_data *a = rt_make(app, CLIP_C32, 3, 4, re, im);
    CHECK_OK(app, clip_save(app, "dotd_a.cfl", a));
    CHECK(tu_run_tool("dotd", "run dot dotd_a.cfl dotd_a.cfl --dim 2") == 0);
    char out[4096];
    rt_read_file("dotd_out.txt", out, sizeof out);
    char *end = NULL;
    double r0 = strtod(out, &end), i0 = strtod(end, NULL);
    check_line(CLIP_C32, CLIP_C32, re, im, re, im, 0, 3, 4, r0, i0, 0, "cli dim 2");
    clip_data_destroy(a);
}

int main(void) {
    quick = tu_quick();
    clip_app *app = tu_app();
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "dot", &p));
    test_dims(app, p);
    test_long_lines(app, p);
    test_empty(app, p);
    test_errors(app, p);
    clip_process_destroy(p);
    test_cli(app);
    clip_app_destroy(app);
    return tu_finish("test_dot_dim");
}
