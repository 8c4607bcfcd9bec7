/* norm of matrices and along a dimension: norm(A, 1), norm(A, Inf), norm(A, 'fro') and
 * norm(A) = the largest singular value, and vecnorm(A, p, dim), for every type, odd sizes,
 * rank-deficient and clustered spectra, huge and tiny scales, NaN, Inf, empties; every error;
 * the 'fro' name through the C API and the CLI. References are computed here in long double
 * (the 2-norm by a one-sided Jacobi SVD in double). */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <float.h>

#include "reduce_testutil.h"

static const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
static int quick;

/* x as type t stores it. */
static double stored(clip_type t, double x) {
    return clip_type_is_double(t) ? x : (double)(float)x;
}

/* Element i of an array of type t made from re, im, and its modulus. Double complex, not long
 * double: valgrind runs x87 code in double range and gets cabsl wrong (reduce_testutil.h). */
static double complex elem(clip_type t, const double *re, const double *im, size_t i) {
    double r = stored(t, re[i]);
    double m = clip_type_is_complex(t) && im ? stored(t, im[i]) : 0;
    return r + m * I;
}
static long double mag(clip_type t, const double *re, const double *im, size_t i) {
    double complex z = elem(t, re, im, i);
    return rt_hypotl(creal(z), cimag(z));
}

/* The largest singular value of the m x n matrix by one-sided Jacobi (Hestenes) in double,
 * accurate to ~1e-15 relative: rotate column pairs until orthogonal; the largest column norm is
 * s1. Scaled by a power of two near max |a_ij| so that no square leaves double's range. */
static long double ref_svd(clip_type t, const double *re, const double *im, size_t m, size_t n) {
    double complex *w = malloc(m * n * sizeof *w);
    double mx = 0;
    for (size_t e = 0; e < m * n; e++)
        mx = fmax(mx, (double)mag(t, re, im, e));
    int ex = 0;
    frexp(mx, &ex);
    for (size_t e = 0; e < m * n; e++) {
        double complex z = elem(t, re, im, e);
        w[e] = ldexp(creal(z), -ex) + ldexp(cimag(z), -ex) * I;
    }
    for (int sweep = 0; sweep < 60; sweep++) {
        int rot = 0;
        for (size_t a = 0; a + 1 < n; a++)
            for (size_t b = a + 1; b < n; b++) {
                double complex *x = w + a * m, *y = w + b * m, g = 0;
                double al = 0, be = 0;
                for (size_t i = 0; i < m; i++) {
                    al += creal(x[i] * conj(x[i]));
                    be += creal(y[i] * conj(y[i]));
                    g += conj(x[i]) * y[i];
                }
                double ga = cabs(g);
                if (!(ga > 1e-16 * sqrt(al * be))) continue;
                rot = 1;
                double complex ph = g / ga;
                double z = (be - al) / (2 * ga);
                double tt = (z >= 0 ? 1.0 : -1.0) / (fabs(z) + sqrt(1 + z * z));
                double c = 1 / sqrt(1 + tt * tt), s = c * tt;
                for (size_t i = 0; i < m; i++) {
                    double complex yb = y[i] * conj(ph), xa = x[i];
                    x[i] = c * xa - s * yb;
                    y[i] = s * xa + c * yb;
                }
            }
        if (!rot) break;
    }
    double best = 0;
    for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t i = 0; i < m; i++)
            s += creal(w[i + j * m] * conj(w[i + j * m]));
        best = fmax(best, sqrt(s));
    }
    free(w);
    return ldexp(best, ex);
}

/* norm(A, p) of a matrix for p = 1, Inf, 0 (fro), 2. NaN anywhere: NaN; Inf: Inf (2: NaN). */
static long double ref_matrix(clip_type t, const double *re, const double *im, size_t m, size_t n,
                              double p) {
    int nan = 0, inf = 0;
    for (size_t e = 0; e < m * n; e++) {
        double r = stored(t, re[e]), q = clip_type_is_complex(t) && im ? stored(t, im[e]) : 0;
        nan |= isnan(r) || isnan(q);
        inf |= isinf(r) || isinf(q);
    }
    if (m * n == 0) return 0;
    if (nan || (inf && p == 2)) return NAN;
    if (inf) return INFINITY;
    if (p == 2) return ref_svd(t, re, im, m, n);
    long double best = 0, sum = 0;
    if (p == 0) { /* scaled as ref_svd */
        double mx = 0;
        for (size_t e = 0; e < m * n; e++)
            mx = fmax(mx, (double)mag(t, re, im, e));
        if (mx == 0) return 0;
        int ex = 0;
        frexp(mx, &ex);
        for (size_t e = 0; e < m * n; e++) {
            long double a = ldexpl(mag(t, re, im, e), -ex);
            sum += a * a;
        }
        return ldexpl(sqrtl(sum), ex);
    }
    size_t outer = p == 1 ? n : m, inner = p == 1 ? m : n;
    for (size_t o = 0; o < outer; o++) {
        sum = 0;
        for (size_t k = 0; k < inner; k++)
            sum += mag(t, re, im, p == 1 ? k + o * m : o + k * m);
        best = fmaxl(best, sum);
    }
    return best;
}

static int close_to(double got, long double ref, double tol) {
    if (isnan((double)ref)) return isnan(got);
    if (isinf((double)ref) || ref == 0) return got == (double)ref;
    return fabs(got - (double)ref) <= tol * fabs((double)ref);
}

/* Runs norm with order pv ("fro" when fro) and dim; returns the output (borrowed). */
static clip_status run(clip_process *p, clip_data *x, double pv, int fro, long dim,
                       clip_data **y) {
    clip_status s = clip_process_set_input(p, 0, x);
    if (s == CLIP_OK)
        s = fro ? clip_process_set_choice(p, "p", "fro") : clip_process_set_real(p, "p", pv);
    if (s == CLIP_OK) s = clip_process_set_int(p, "dim", dim);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, y);
    return s;
}

/* Value of element i of real data y (f32 or f64). */
static double val(clip_data *y, size_t i) {
    const void *h = NULL;
    if (clip_data_host(y, &h) != CLIP_OK) return -1;
    return clip_data_type(y) == CLIP_F64 ? ((const double *)h)[i] : ((const float *)h)[i];
}

/* One matrix case, all four orders. */
static void case_matrix(clip_app *app, clip_process *p, clip_type t, size_t m, size_t n,
                        const double *re, const double *im, const char *what) {
    static const double ps[4] = {1, INFINITY, 0, 2};
    clip_data *x = rt_make(app, t, m, n, re, im);
    int single = !clip_type_is_double(t);
    for (int k = 0; k < 4; k++) {
        clip_data *y = NULL;
        tu_checks++;
        clip_status s = run(p, x, ps[k], ps[k] == 0, 0, &y);
        if (s != CLIP_OK) {
            tu_failures++;
            fprintf(stderr, "%s %s %zux%zu p=%g: %s\n", what, clip_type_name(t), m, n, ps[k],
                    clip_app_last_error(app));
            continue;
        }
        long double ref = ref_matrix(t, re, im, m, n, ps[k]);
        double want = single ? (double)(float)ref : (double)ref;
        double tol = single ? 1e-5 : ps[k] == 2 ? 1e-10 : 1e-12;
        double got = val(y, 0);
        CHECK(clip_data_numel(y) == 1 && clip_data_type(y) == (single ? CLIP_F32 : CLIP_F64));
        tu_checks++;
        if (!close_to(got, want, tol)) {
            tu_failures++;
            fprintf(stderr, "%s %s %zux%zu p=%g%s: got %.17g, want %.17g (rel %.3g)\n", what,
                    clip_type_name(t), m, n, ps[k], ps[k] == 0 ? " (fro)" : "", got, want,
                    fabs(got - want) / fabs(want));
        }
    }
    clip_data_destroy(x);
}

static void test_matrices(clip_app *app, clip_process *p) {
    static const size_t sizes[][2] = {{2, 2}, {3, 5}, {17, 4}, {33, 65}, {64, 64}, {300, 200}};
    const size_t nsz = sizeof sizes / sizeof sizes[0] - (quick ? 2 : 0);
    const size_t cap = 300 * 200;
    double *re = malloc(cap * sizeof *re), *im = malloc(cap * sizeof *im);
    unsigned long long seed = 2024;
    for (size_t z = 0; z < nsz; z++) {
        size_t m = sizes[z][0], n = sizes[z][1];
        rt_fill_random(re, m * n, &seed);
        rt_fill_random(im, m * n, &seed);
        for (int ti = 0; ti < 4; ti++)
            if (!(m == 300 && ti >= 2)) /* the long-double Jacobi of 300x200 complex is slow */
                case_matrix(app, p, types[ti], m, n, re, im, "random");
    }
    /* Rank one (the Lanczos run breaks down after one step), a clustered top (the identity
     * times 3 with one entry 3 + 1e-9), zero, and huge and tiny scales (the power-of-two
     * scaling: no overflow or underflow). */
    const size_t m = quick ? 20 : 50, n = quick ? 12 : 30;
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = types[ti];
        int dbl = clip_type_is_double(t);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                re[i + j * m] = (1.0 + (double)i) * (2.0 - (double)j / 7), im[i + j * m] = 0.5;
        case_matrix(app, p, t, m, n, re, im, "rank-one");
        for (size_t e = 0; e < 40 * 40; e++)
            re[e] = e % 41 == 0 ? 3 : 0, im[e] = 0;
        re[41 * 7] = 3 + 1e-9;
        case_matrix(app, p, t, 40, 40, re, im, "clustered");
        memset(re, 0, m * n * sizeof *re);
        memset(im, 0, m * n * sizeof *im);
        case_matrix(app, p, t, m, n, re, im, "zeros");
        /* The last has subnormal entries (the results stay normal: a subnormal result could
         * not hold 1e-5 relative in single). */
        const double scales[3] = {dbl ? 1e300 : 1e36, dbl ? 1e-300 : 1e-36, dbl ? 1e-310 : 1e-37};
        for (int k = 0; k < 3; k++) {
            rt_fill_random(re, 9 * 7, &seed);
            rt_fill_random(im, 9 * 7, &seed);
            for (size_t e = 0; e < 9 * 7; e++)
                re[e] *= scales[k], im[e] *= scales[k];
            case_matrix(app, p, t, 9, 7, re, im, "scaled");
        }
        /* NaN, Inf (NaN for the 2-norm, as MATLAB's svd), both. */
        rt_fill_random(re, 9 * 7, &seed);
        rt_fill_random(im, 9 * 7, &seed);
        re[40] = INFINITY;
        case_matrix(app, p, t, 9, 7, re, im, "inf");
        im[3] = NAN;
        case_matrix(app, p, t, 9, 7, re, im, "nan+inf");
        re[40] = 1;
        case_matrix(app, p, t, 9, 7, re, im, "nan");
    }
    /* Trailing singleton dimensions are still a matrix. */
    rt_fill_random(re, 12, &seed);
    size_t d3[3] = {3, 4, 1};
    clip_data *x = NULL, *y = NULL;
    double h[12];
    for (int i = 0; i < 12; i++)
        h[i] = re[i];
    CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 3, d3, h, &x));
    CHECK_OK(app, run(p, x, 2, 0, 0, &y));
    CHECK(close_to(val(y, 0), ref_matrix(CLIP_F64, re, NULL, 3, 4, 2), 1e-10));
    CHECK(strstr(clip_process_variant(p), "lanczos") != NULL);
    clip_data_destroy(x);
    free(re);
    free(im);
}

/* Empty inputs of every shape give 0 for every order (with dim: zeros of the output size). */
static void test_empty(clip_app *app, clip_process *p) {
    static const size_t shapes[4][2] = {{0, 0}, {0, 3}, {3, 0}, {1, 0}};
    static const double ps[5] = {1, 2, INFINITY, 0, 3};
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < 5; k++) {
            size_t dims[2] = {shapes[e][0], shapes[e][1]};
            clip_data *x = NULL, *y = NULL;
            CHECK_OK(app, clip_data_create(app, types[(e + k) % 4], 2, dims, &x));
            CHECK_OK(app, run(p, x, ps[k], ps[k] == 0, 0, &y));
            CHECK(clip_data_numel(y) == 1 && val(y, 0) == 0);
            clip_data_destroy(x);
        }
    /* vecnorm(zeros(0, 3)) is 1x3 zeros; vecnorm(zeros(3, 0), 2, 1) is 1x0. */
    size_t d03[2] = {0, 3}, d30[2] = {3, 0};
    clip_data *x = NULL, *y = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, d03, &x));
    CHECK_OK(app, run(p, x, 2, 0, 1, &y));
    CHECK(clip_data_dim(y, 0) == 1 && clip_data_dim(y, 1) == 3);
    CHECK(val(y, 0) == 0 && val(y, 2) == 0);
    clip_data_destroy(x);
    CHECK_OK(app, clip_data_create(app, CLIP_C64, 2, d30, &x));
    CHECK_OK(app, run(p, x, 2, 0, 1, &y));
    CHECK(clip_data_dim(y, 0) == 1 && clip_data_dim(y, 1) == 0);
    clip_data_destroy(x);
}

/* The reference norm of n values x[base + j*stride], order p (vector semantics). */
static long double ref_line(clip_type t, const double *re, const double *im, size_t base,
                            size_t stride, size_t n, double p) {
    long double mx = 0, mn = INFINITY, s = 0;
    int nan = 0, inf = 0;
    for (size_t j = 0; j < n; j++) {
        size_t e = base + j * stride;
        double r = stored(t, re[e]), q = clip_type_is_complex(t) ? stored(t, im[e]) : 0;
        nan |= isnan(r) || isnan(q);
        inf |= isinf(r) || isinf(q);
        long double a = rt_hypotl(r, q);
        mx = fmaxl(mx, a), mn = fminl(mn, a);
    }
    if (n == 0) return 0;
    if (nan) return NAN;
    if (p == -INFINITY) return mn;
    if (inf) return INFINITY;
    if (p == INFINITY) return mx;
    if (mx == 0) return 0;
    for (size_t j = 0; j < n; j++) {
        size_t e = base + j * stride;
        long double a = rt_hypotl(stored(t, re[e]), clip_type_is_complex(t) ? stored(t, im[e]) : 0);
        s += p == 1 ? a : powl(a / mx, (long double)p);
    }
    return p == 1 ? s : mx * powl(s, 1.0L / (long double)p);
}

/* Long single-precision lines: each line's sum is compensated (kernels/common.cl, clip_addc),
 * so vecnorm stays within a few ulps where plain float sums of this many terms drift by about
 * 1e-5: along dimension 2 of a 2 x N matrix a work-item sums a whole line alone, along
 * dimension 1 of N x 2 a work-group shares it. */
static void test_long_lines(clip_app *app, clip_process *p) {
    const size_t N = quick ? 400003 : 2000003;
    double *v = malloc(2 * N * sizeof *v);
    unsigned long long seed = 23;
    for (size_t i = 0; i < 2 * N; i++)
        v[i] = 0.5 + 0.5 * tu_rand(&seed);
    for (int dim = 1; dim <= 2; dim++) {
        clip_data *x = dim == 1 ? rt_make(app, CLIP_F32, N, 2, v, NULL)
                                : rt_make(app, CLIP_F32, 2, N, v, NULL);
        const double ps[2] = {1, 2};
        for (int k = 0; k < 2; k++) {
            clip_data *y = NULL;
            CHECK_OK(app, run(p, x, ps[k], 0, dim, &y));
            for (size_t l = 0; y && l < 2; l++) {
                const long double want = dim == 1 ? ref_line(CLIP_F32, v, NULL, l * N, 1, N, ps[k])
                                                  : ref_line(CLIP_F32, v, NULL, l, 2, N, ps[k]);
                const double got = val(y, l);
                tu_checks++;
                if (!close_to(got, want, 3e-7)) {
                    tu_failures++;
                    fprintf(stderr, "long line dim %d p=%g line %zu: got %.9g want %.9Lg\n", dim,
                            ps[k], l, got, want);
                }
            }
        }
        clip_data_destroy(x);
    }
    free(v);
}

/* vecnorm(A, p, dim) of a 3-D array along each dimension and past the last. */
static void test_dim(clip_app *app, clip_process *p) {
    const size_t d[3] = {quick ? 7 : 37, 5, quick ? 3 : 6};
    const size_t N = d[0] * d[1] * d[2];
    double *re = malloc(N * sizeof *re), *im = malloc(N * sizeof *im);
    unsigned long long seed = 31;
    rt_fill_random(re, N, &seed);
    rt_fill_random(im, N, &seed);
    re[9] = NAN;      /* one NaN line along each dimension */
    re[N - 2] = INFINITY;
    re[20] *= 1e300;  /* a line whose squares overflow (double); single: Inf */
    static const double ps[5] = {1, 2, 3, INFINITY, -INFINITY};
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = types[ti];
        int single = !clip_type_is_double(t);
        size_t dims[3] = {d[0], d[1], d[2]};
        clip_data *x = NULL;
        {
            clip_data *m2 = rt_make(app, t, N, 1, re, im);
            const void *h = NULL;
            CHECK_OK(app, clip_data_host(m2, &h));
            CHECK_OK(app, clip_data_create_from(app, t, 3, dims, h, &x));
            clip_data_destroy(m2);
        }
        for (int dim = 1; dim <= 4; dim++)
            for (int k = 0; k < 5; k++) {
                if (quick && (k + dim + ti) % 2) continue;
                clip_data *y = NULL;
                CHECK_OK(app, run(p, x, ps[k], 0, dim, &y));
                size_t pre = 1, n = dim <= 3 ? d[dim - 1] : 1, post = 1;
                for (int i = 0; i < 3; i++) {
                    if (i < dim - 1) pre *= d[i];
                    if (i > dim - 1) post *= d[i];
                }
                CHECK(y && clip_data_numel(y) == pre * post);
                CHECK(y && (dim > 3 || clip_data_dim(y, dim - 1) == 1));
                for (size_t i = 0; y && i < pre; i++)
                    for (size_t kk = 0; kk < post; kk++) {
                        long double ref = ref_line(t, re, im, i + pre * n * kk, pre, n, ps[k]);
                        double want = single ? (double)(float)ref : (double)ref;
                        double got = val(y, i + pre * kk);
                        tu_checks++;
                        if (!close_to(got, want, single ? 1e-5 : 1e-12)) {
                            tu_failures++;
                            fprintf(stderr, "dim %d %s p=%g line (%zu,%zu): got %.17g want %.17g\n",
                                    dim, clip_type_name(t), ps[k], i, kk, got, want);
                        }
                    }
            }
        clip_data_destroy(x);
    }
    free(re);
    free(im);
}

static void test_errors(clip_app *app, clip_process *p) {
    double v[24];
    for (int i = 0; i < 24; i++)
        v[i] = i - 5;
    clip_data *m = rt_make(app, CLIP_F64, 4, 6, v, NULL), *y = NULL;
    static const double bad[] = {3, 1.5, -INFINITY, 100};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(app, run(p, m, bad[i], 0, 0, &y), CLIP_ERR_BAD_NORM_ORDER);
        CHECK_MSG(app, "is not a matrix norm: MATLAB's norm(A, p) of a matrix (here 4x6) takes "
                       "1, 2, Inf or 'fro'");
    }
    CHECK_STATUS(app, run(p, m, 0, 1, 2, &y), CLIP_ERR_BAD_NORM_ORDER);
    CHECK_MSG(app, "norm: p = fro takes no dim");
    CHECK_STATUS(app, run(p, m, -0.5, 0, 1, &y), CLIP_ERR_BAD_NORM_ORDER);
    CHECK_MSG(app, "p must be > 0, Inf or -Inf, got -0.5");
    CHECK_STATUS(app, clip_process_set_int(p, "dim", 9), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_int(p, "dim", -1), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_choice(p, "p", "nuclear"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "norm: p 'nuclear' is neither a number nor fro");
    CHECK_STATUS(app, clip_process_set_text(p, "p", "frob"), CLIP_ERR_BAD_CHOICE);
    /* The name reads back as a choice; a number set after it clears it. */
    const char *name = NULL;
    CHECK_OK(app, clip_process_set_text(p, "p", "fro"));
    CHECK_OK(app, clip_process_get_choice(p, "p", &name));
    CHECK(name && !strcmp(name, "fro"));
    CHECK_OK(app, clip_process_set_text(p, "p", "inf"));
    CHECK_STATUS(app, clip_process_get_choice(p, "p", &name), CLIP_ERR_PARAM_TYPE);
    double pv = 0;
    CHECK_OK(app, clip_process_get_real(p, "p", &pv));
    CHECK(pv == INFINITY);
    clip_data_destroy(m);
    /* N-D arrays: only fro (over every element) or dim. */
    size_t d3[3] = {2, 3, 4};
    CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 3, d3, v, &m));
    CHECK_STATUS(app, run(p, m, 2, 0, 0, &y), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "norm: input is 2x3x4: MATLAB's norm takes vectors and matrices");
    CHECK_OK(app, run(p, m, 0, 1, 0, &y));
    long double s = 0;
    for (int i = 0; i < 24; i++)
        s += (long double)v[i] * v[i];
    CHECK(close_to(val(y, 0), sqrtl(s), 1e-14));
    clip_data_destroy(m);
    /* A user output must have the vecnorm shape. */
    clip_data *x = rt_make(app, CLIP_F32, 4, 6, v, NULL), *wrong = NULL;
    size_t one[2] = {1, 1};
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, one, &wrong));
    CHECK_OK(app, clip_process_set_output(p, 0, wrong));
    CHECK_STATUS(app, run(p, x, 2, 0, 1, &y), CLIP_ERR_SHAPE);
    clip_data_destroy(wrong);
    clip_data_destroy(x);
}

static void test_cli(clip_app *app) {
    enum { M = 7, N = 5 };
    double re[M * N], im[M * N];
    unsigned long long seed = 8;
    rt_fill_random(re, M * N, &seed);
    rt_fill_random(im, M * N, &seed);
    clip_data *m = rt_make(app, CLIP_C32, M, N, re, im);
    CHECK_OK(app, clip_save(app, "normm.cfl", m));
    static const char *const args[4] = {"1", "inf", "fro", "2"};
    static const double ps[4] = {1, INFINITY, 0, 2};
    char out[4096], cmd[128];
    for (int k = 0; k < 4; k++) {
        snprintf(cmd, sizeof cmd, "run norm normm.cfl --p %s", args[k]);
        CHECK(tu_run_tool("normm", cmd) == 0);
        rt_read_file("normm_out.txt", out, sizeof out);
        long double ref = ref_matrix(CLIP_C32, re, im, M, N, ps[k]);
        CHECK(close_to(strtod(out, NULL), (double)(float)ref, 1e-5));
    }
    CHECK_TOOL_FAILS("normm", "run norm normm.cfl --p 3", "norm: p = 3 is not a matrix norm");
    CHECK_TOOL_FAILS("normm", "run norm normm.cfl --p frob", "neither a number nor fro");
    CHECK(tu_run_tool("normm", "run norm normm.cfl --p 1 --dim 2") == 0);
    rt_read_file("normm_out.txt", out, sizeof out);
    CHECK(close_to(strtod(out, NULL), (double)(float)ref_line(CLIP_C32, re, im, 0, M, N, 1), 1e-5));
    CHECK(tu_run_tool("normm", "help norm") == 0);
    rt_read_file("normm_out.txt", out, sizeof out);
    CHECK(strstr(out, "or fro") != NULL && strstr(out, "--dim") != NULL);
    clip_data_destroy(m);
}

int main(void) {
    quick = tu_quick();
    clip_app *app = tu_app();
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "norm", &p));
    test_matrices(app, p);
    test_empty(app, p);
    test_dim(app, p);
    test_long_lines(app, p);
    clip_process_destroy(p);
    CHECK_OK(app, clip_process_create(app, "norm", &p));
    test_errors(app, p);
    clip_process_destroy(p);
    test_cli(app);
    clip_app_destroy(app);
    return tu_finish("test_norm_matrix");
}
