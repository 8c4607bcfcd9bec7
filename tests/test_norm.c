/* norm: values against long-double references for every type, awkward lengths and every kind
 * of order; overflow, underflow and Blue's accumulator combinations; the one-pass rescaling
 * over the whole exponent range (against the two-pass path too); NaN and Inf; empty and N-D
 * inputs; each kernel variant, method and tuning; compensated sums' accuracy; every error through
 * the C API and the CLI; fp64-less devices; and a scale -> norm chain that copies nothing to the
 * host in between. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>

#include "reduce_testutil.h"

static const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
static const double orders[6] = {1, 2, 3, 2.5, INFINITY, -INFINITY};

/* tu_quick(): under valgrind each distinct kernel build costs about a second, even from PoCL's
 * kernel cache, while a case on a built kernel costs milliseconds. So quick mode keeps every
 * case of the mode x type kernels (test_values, test_range, test_special) and runs the other
 * sections' variants, tunings and orders in rotation (each still on real and complex data),
 * with long vectors cut to a few thousand elements (still several groups and a tail). */
static int quick;

/* x as type t stores it (single precision rounds). */
static double stored(clip_type t, double x) {
    return clip_type_is_double(t) ? x : (double)(float)x;
}

/* |x_i| of the values as stored in type t, in long double. */
static long double mag(clip_type t, const double *re, const double *im, size_t i) {
    if (!clip_type_is_complex(t) || !im) return fabsl(stored(t, re[i]));
    return rt_hypotl(stored(t, re[i]), stored(t, im[i]));
}

/* The reference: the textbook formula in long double, on |x| / max |x| so that no power leaves
 * the range of double, and NaN and Inf found in the double inputs: valgrind runs x87 code in
 * double precision and range and stores its infinities as the largest finite long double
 * (reduce_testutil.h). Quick mode's vectors are short enough for double-precision sums. */
static long double ref_norm(clip_type t, const double *re, const double *im, size_t n, double p) {
    if (n == 0) return 0;
    long double mx = 0, mn = INFINITY, s = 0;
    int nan = 0, inf = 0;
    for (size_t i = 0; i < n; i++) {
        double r = stored(t, re[i]), m = clip_type_is_complex(t) && im ? stored(t, im[i]) : 0;
        nan |= isnan(r) || isnan(m);
        inf |= isinf(r) || isinf(m);
        long double a = mag(t, re, im, i);
        mx = fmaxl(mx, a);
        mn = fminl(mn, a);
    }
    if (nan) return NAN;
    if (p == -INFINITY) return mn;
    if (inf) return INFINITY;
    if (p == INFINITY) return mx;
    if (mx == 0) return 0;
    for (size_t i = 0; i < n; i++)
        s += p == 1 ? mag(t, re, im, i) : powl(mag(t, re, im, i) / mx, (long double)p);
    return p == 1 ? s : mx * powl(s, 1.0L / (long double)p);
}

/* Compares a result with the reference rounded to the output precision. */
static void check_value(double got, long double ref, int single, const char *ctx) {
    tu_checks++;
    double want = single ? (double)(float)ref : (double)ref;
    double tol = single ? 1e-5 : 1e-12;
    int ok;
    if (isnan(want))
        ok = isnan(got);
    else if (isinf(want) || want == 0)
        ok = got == want;
    else
        ok = fabs(got - want) <= tol * fabs(want);
    if (!ok) {
        tu_failures++;
        fprintf(stderr, "%s: got %.17g, want %.17g (rel %.3g)\n", ctx, got, want,
                fabs(got - want) / fabs(want));
    }
}

/* Runs norm on x with order pv and variant; the 1x1 result as a double. */
static clip_status run_norm(clip_process *p, clip_data *x, double pv, const char *variant,
                            double *out) {
    clip_status s = clip_process_set_input(p, 0, x);
    if (s == CLIP_OK) s = clip_process_set_real(p, "p", pv);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "variant", variant);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    clip_data *y = NULL;
    if (s == CLIP_OK) s = clip_process_output(p, 0, &y);
    const void *h = NULL;
    if (s == CLIP_OK) s = clip_data_host(y, &h);
    if (s != CLIP_OK) return s;
    int dbl = clip_type_is_double(clip_data_type(x));
    if (clip_data_type(y) != (dbl ? CLIP_F64 : CLIP_F32) || clip_data_numel(y) != 1 ||
        clip_data_dim(y, 0) != 1 || clip_data_dim(y, 1) != 1) {
        fprintf(stderr, "norm output is %s %zux%zu\n", clip_type_name(clip_data_type(y)),
                clip_data_dim(y, 0), clip_data_dim(y, 1));
        return CLIP_ERR_TYPE;
    }
    *out = dbl ? *(const double *)h : *(const float *)h;
    return CLIP_OK;
}

/* Runs and checks one case. */
static void case_norm(clip_app *app, clip_process *p, clip_type t, size_t rows, size_t cols,
                      const double *re, const double *im, double pv, const char *variant,
                      const char *what) {
    clip_data *x = rt_make(app, t, rows, cols, re, im);
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s: %s %zux%zu p=%g variant=%s", what, clip_type_name(t), rows, cols,
             pv, variant);
    double got = 0;
    clip_status s = run_norm(p, x, pv, variant, &got);
    tu_checks++;
    if (s != CLIP_OK) {
        tu_failures++;
        fprintf(stderr, "%s: %s (%s)\n", ctx, clip_status_str(s), clip_app_last_error(app));
    } else {
        check_value(got, ref_norm(t, re, im, rows * cols, pv), !clip_type_is_double(t), ctx);
    }
    clip_data_destroy(x);
}

static void test_values(clip_app *app, clip_process *p) {
    static const size_t lengths[] = {0, 1, 2, 3, 17, 31, 257, 1029, 1000003};
    size_t nmax = 1000003, nlen = sizeof lengths / sizeof lengths[0] - (quick ? 1 : 0);
    double *re = malloc(nmax * sizeof *re), *im = malloc(nmax * sizeof *im);
    unsigned long long seed = 42;
    for (size_t li = 0; li < nlen; li++) {
        size_t n = lengths[li];
        rt_fill_random(re, n, &seed);
        rt_fill_random(im, n, &seed);
        for (int ti = 0; ti < 4; ti++)
            for (int pi = 0; pi < 6; pi++) {
                /* Columns and rows alike: a vector is all its elements. */
                size_t rows = li % 2 ? n : 1, cols = li % 2 ? 1 : n;
                case_norm(app, p, types[ti], rows, cols, re, im, orders[pi], "auto", "random");
            }
    }
    /* Orders between the special ones: near 1, large integers, large non-integers. */
    static const double more[] = {1.5, 4, 7, 64, 65, 100.5};
    rt_fill_random(re, 1029, &seed);
    rt_fill_random(im, 1029, &seed);
    for (int ti = 0; ti < 4; ti++)
        for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
            if (!quick || k % 4 == (size_t)ti) /* quick: each order on one type */
                case_norm(app, p, types[ti], 1029, 1, re, im, more[k], "auto", "orders");
    free(re);
    free(im);
}

/* Magnitudes that overflow or underflow when squared or powered, alone and in every mixture, so
 * that each combination of Blue's small/medium/big accumulators (and the scaled pow path) is hit.
 */
static void test_range(clip_app *app, clip_process *p) {
    enum { N = 257 };
    double re[N], im[N];
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = types[ti];
        int dbl = clip_type_is_double(t);
        /* Subnormal, tiny, both sides of Blue's small and big thresholds (2^-63 and 2^45 in
         * single, 2^-511 and 2^480 in double, where the accumulators' shares are comparable),
         * ordinary, huge. */
        const double sc32[9] = {1e-40, 1e-30, 1e-19, 1e-18, 1.0, 1e13, 1e14, 1e25, 1e35};
        const double sc64[9] = {1e-310, 1e-200, 1e-154, 1e-153, 1.0, 1e144, 1e145, 1e200, 1e300};
        const double *sc = dbl ? sc64 : sc32;
        double two_big[2] = {dbl ? 1e300 : 1e30, dbl ? 1e300 : 1e30};
        double two_tiny[2] = {dbl ? 1e-300 : 1e-30, dbl ? 1e-300 : 1e-30};
        for (int pi = 0; pi < 6; pi++) {
            case_norm(app, p, t, 1, 2, two_big, NULL, orders[pi], "auto", "overflow");
            case_norm(app, p, t, 1, 2, two_tiny, NULL, orders[pi], "auto", "underflow");
            case_norm(app, p, t, 2, 1, two_big, two_big, orders[pi], "auto", "overflow-complex");
        }
        /* Each scale alone, every pair, and all nine. */
        unsigned long long seed = 7;
        for (int a = 0; a < 9; a++)
            for (int b = a; b < 10; b++) {
                for (int i = 0; i < N; i++) {
                    double s = b == 9 ? sc[i % 9] : sc[i % 2 ? a : b];
                    re[i] = tu_rand(&seed) * s;
                    im[i] = tu_rand(&seed) * s;
                }
                for (int pi = 0; pi < 6; pi++)
                    case_norm(app, p, t, N, 1, re, im, orders[pi], "auto", "mixed-range");
            }
    }
    /* The single-precision result itself overflows: Inf, as MATLAB. */
    double huge[3] = {3e38, 3e38, 3e38};
    case_norm(app, p, CLIP_F32, 3, 1, huge, NULL, 2, "auto", "result-overflow");
}

/* NaN anywhere gives NaN for every order; Inf gives Inf (except min |x|); zeros give 0. */
static void test_special(clip_app *app, clip_process *p) {
    enum { N = 1029 };
    double re[N], im[N];
    unsigned long long seed = 99;
    static const size_t where[3] = {0, N / 2, N - 1}; /* N - 1 lies in the tail of a vector load */
    for (int ti = 0; ti < 4; ti++)
        for (int pi = 0; pi < 6; pi++)
            for (int w = 0; w < 3; w++) {
                rt_fill_random(re, N, &seed);
                rt_fill_random(im, N, &seed);
                re[where[w]] = NAN;
                case_norm(app, p, types[ti], N, 1, re, im, orders[pi], "auto", "nan");
                re[(where[w] + 1) % N] = INFINITY;
                case_norm(app, p, types[ti], N, 1, re, im, orders[pi], "auto", "nan+inf");
                re[where[w]] = 0.5;
                case_norm(app, p, types[ti], N, 1, re, im, orders[pi], "auto", "inf");
                im[where[w]] = NAN; /* NaN only in an imaginary part */
                case_norm(app, p, types[ti], N, 1, re, im, orders[pi], "auto", "nan-imag");
                memset(re, 0, sizeof re);
                memset(im, 0, sizeof im);
                case_norm(app, p, types[ti], N, 1, re, im, orders[pi], "auto", "zeros");
            }
}

/* A large finite p: from 1e9 on the norm is the largest modulus exactly (the others' p-th powers
 * vanish beside its), by either method; its own term must not underflow (41 with p = 1e10 gave
 * 0). 65, the smallest order past SCALE2's, against the reference. */
static void test_large_p(clip_app *app, clip_process *p) {
    static const double ps[] = {65, 1e9, 1e10, 1e20, 1e300};
    static const char *const methods[] = {"onepass", "twopass"};
    for (int ti = 0; ti < 4; ti++) {
        const double big = clip_type_is_double(types[ti]) ? 1e300 : 3e38;
        const double cases[][3] = {{41, 0, 0}, {49, 1, 0}, {1, 49, 48}, {big, 1, 0}};
        const size_t lens[] = {1, 2, 3, 2};
        for (size_t c = 0; c < 4; c++)
            for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++)
                for (int m = 0; m < 2; m++) {
                    double re[3], im[3] = {0, 0, 0}, got = -1;
                    memcpy(re, cases[c], sizeof re);
                    char ctx[160];
                    snprintf(ctx, sizeof ctx, "large p: %s %g (%zu values) p=%g %s",
                             clip_type_name(types[ti]), re[c == 2 ? 1 : 0], lens[c], ps[k],
                             methods[m]);
                    clip_data *x = rt_make(app, types[ti], lens[c], 1, re, im);
                    clip_status s = clip_process_set_choice(p, "method", methods[m]);
                    if (s == CLIP_OK) s = run_norm(p, x, ps[k], "auto", &got);
                    tu_checks++;
                    if (s != CLIP_OK) {
                        tu_failures++;
                        fprintf(stderr, "%s: %s (%s)\n", ctx, clip_status_str(s),
                                clip_app_last_error(app));
                    } else if (ps[k] < 1e9) {
                        check_value(got, ref_norm(types[ti], re, im, lens[c], ps[k]),
                                    !clip_type_is_double(types[ti]), ctx);
                    } else {
                        const double want = stored(types[ti], re[c == 2 ? 1 : 0]);
                        CHECK(got == want);
                        if (got != want) fprintf(stderr, "%s: got %.17g\n", ctx, got);
                    }
                    clip_data_destroy(x);
                }
    }
    clip_process_set_choice(p, "method", "auto");
}

/* Every variant gives the reference's answer, for real and complex, each path. */
static void test_variants(clip_app *app, clip_process *p) {
    static const char *const variants[] = {"scalar", "vector", "vector16"};
    const size_t N = quick ? 3001 : 100003;
    double *re = malloc(N * sizeof *re), *im = malloc(N * sizeof *im);
    unsigned long long seed = 5;
    rt_fill_random(re, N, &seed);
    rt_fill_random(im, N, &seed);
    for (int v = 0; v < 3; v++) {
        static const double ps[4] = {2, 2.5, -INFINITY, 1};
        for (int k = 0; k < 4; k++) {
            if (quick && (k + v) % 2) continue; /* quick: two of the orders per variant */
            case_norm(app, p, CLIP_F32, N, 1, re, im, ps[k], variants[v], "variant");
            case_norm(app, p, CLIP_C64, 1, N, re, im, ps[k], variants[v], "variant");
            case_norm(app, p, CLIP_C64, 1, 7, re, im, ps[k], variants[v], "variant-short");
        }
        if (!quick || v) {
            case_norm(app, p, CLIP_F64, N, 1, re, im, 3, variants[v], "variant");
            case_norm(app, p, CLIP_C32, N, 1, re, im, 3, variants[v], "variant");
        }
        CHECK(strstr(clip_process_variant(p), "vec") != NULL);
    }
    free(re);
    free(im);
}

/* Sets norm's method and tuning parameters (0: auto), which stay until set again. */
static void set_tuning(clip_app *app, clip_process *p, const char *method, long local, long unroll,
                       long groups) {
    CHECK_OK(app, clip_process_set_choice(p, "method", method));
    CHECK_OK(app, clip_process_set_int(p, "local", local));
    CHECK_OK(app, clip_process_set_int(p, "unroll", unroll));
    CHECK_OK(app, clip_process_set_int(p, "groups", groups));
}

/* The one-pass rescaling where it works hardest: a maximum that grows at every element
 * (ascending), only at the first (descending) or in bursts, across the whole exponent range,
 * with leading zeros, subnormal maxima, and NaN or Inf arriving after the maximum has grown.
 * Each through the GPU layout (local 256, strided, unrolled) and the CPU one (local 1), in one
 * and two passes; orders with integer, half-integer and exp2/log2 powers. */
static void test_onepass(clip_app *app, clip_process *p) {
    const int N = quick ? 601 : 3001;
    double *re = malloc(N * sizeof *re), *im = malloc(N * sizeof *im);
    static const double ps[4] = {3, 2.5, 2.7, 1.5};
    static const struct {
        const char *method;
        long local, unroll, groups;
    } cfg[4] = {{"onepass", 256, 2, 0},
                {"onepass", 1, 3, 0},
                {"onepass", 64, 8, 1},
                {"twopass", 256, 1, 0}};
    unsigned long long seed = 77;
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = types[ti];
        int dbl = clip_type_is_double(t);
        /* log10 of the smallest and largest magnitudes: subnormal to near overflow. */
        double lo = dbl ? -315 : -42, hi = dbl ? 300 : 37;
        for (int shape = 0; shape < 5; shape++) {
            for (int i = 0; i < N; i++) {
                double f = (double)i / (N - 1), e;
                switch (shape) {
                case 0: /* ascending over the whole range */
                    e = lo + f * (hi - lo);
                    break;
                case 1: /* descending */
                    e = hi - f * (hi - lo);
                    break;
                case 2: /* saw-tooth: the maximum grows in bursts, then rests */
                    e = lo + fmod(7 * f, 1.0) * (hi - lo) * (0.3 + 0.7 * f);
                    break;
                case 3: /* only subnormal (single) or tiny (double) magnitudes, ascending */
                    e = lo + f * 3;
                    break;
                default: /* random exponents, with leading zeros */
                    e = lo + (0.5 + 0.5 * tu_rand(&seed)) * (hi - lo);
                    break;
                }
                re[i] = pow(10, e) * (i % 3 ? 1 : -1);
                im[i] = re[i] * tu_rand(&seed);
            }
            if (shape == 4)
                for (int i = 0; i < 40; i++)
                    re[i] = im[i] = 0;
            /* Every order through the GPU layout; two (integer and exp2/log2 powers) through
             * the others, and complex data only through the GPU layout and two passes (kernel
             * builds dominate this test's time). */
            for (int c = 0; c < 4; c++) {
                if (clip_type_is_complex(t) && (c == 1 || c == 2)) continue;
                set_tuning(app, p, cfg[c].method, cfg[c].local, cfg[c].unroll, cfg[c].groups);
                for (int pi = 0; pi < (c ? 2 : 4); pi++) {
                    /* quick: one order per type and layout, each order on some type */
                    if (quick && pi != (ti + c) % (c ? 2 : 4)) continue;
                    case_norm(app, p, t, N, 1, re, im, ps[pi ? 3 - pi : 0], "auto",
                              "onepass-range");
                }
            }
            /* p > 64 scales by the maximum itself, not a power of two. */
            set_tuning(app, p, "onepass", 256, 2, 0);
            if (!quick || ti % 2) /* quick: f64 and c64 */
                case_norm(app, p, t, N, 1, re, im, 100.5, "auto", "onepass-range");
            /* NaN, then Inf, after the maximum has grown (ascending data: near the end). */
            if (shape == 0) {
                /* quick: all three at the order this type ran in this layout above */
                double q = ps[ti % 4 ? 3 - ti % 4 : 0];
                set_tuning(app, p, "onepass", 256, 2, 0);
                re[N - 40] = NAN;
                case_norm(app, p, t, N, 1, re, im, quick ? q : 3, "auto", "onepass-nan");
                re[N - 50] = INFINITY;
                case_norm(app, p, t, N, 1, re, im, quick ? q : 2.5, "auto", "onepass-nan+inf");
                re[N - 40] = 1;
                case_norm(app, p, t, N, 1, re, im, quick ? q : 2.7, "auto", "onepass-inf");
            }
        }
    }
    /* Magnitudes at the top of the range: the next power of two overflows, and the result
     * overflows or just does not. */
    for (int ti = 0; ti < 2; ti++) {
        double big = ti ? 1.7e308 : 3.3e38;
        double v3[3] = {big, -big / 3, big / 7}, v2[2] = {big / 9, big};
        static const double qs[4] = {3, 2.5, 2.7, 65};
        for (int k = 0; k < 4; k++) {
            if (quick && k % 2 != ti) continue; /* quick: two of the orders per type */
            set_tuning(app, p, "onepass", 0, 0, 0);
            case_norm(app, p, types[ti], 3, 1, v3, NULL, qs[k], "auto", "onepass-top");
            case_norm(app, p, types[ti], 2, 1, v2, NULL, qs[k], "scalar", "onepass-top");
        }
    }
    set_tuning(app, p, "auto", 0, 0, 0);
    free(re);
    free(im);
}

/* Work-group sizes, unrolls and group counts other than the defaults (which depend on the
 * device) give the same answers, for each kind of order, short and long. */
static void test_tuning(clip_app *app, clip_process *p) {
    const size_t N = quick ? 40009 : 100003; /* quick: still 8 groups of 256 at local 256 */
    double *re = malloc(N * sizeof *re), *im = malloc(N * sizeof *im);
    unsigned long long seed = 13;
    rt_fill_random(re, N, &seed);
    rt_fill_random(im, N, &seed);
    static const long cfg[4][3] = {{1, 4, 64}, {256, 1, 0}, {64, 3, 3}, {128, 8, 1}};
    static const double ps[4] = {1, 2, 3, INFINITY};
    for (int c = 0; c < 4; c++) {
        set_tuning(app, p, "auto", cfg[c][0], cfg[c][1], cfg[c][2]);
        clip_type t = c % 2 ? CLIP_C64 : CLIP_F32;
        for (int k = 0; k < 4; k++) {
            /* quick: two orders per layout, each order twice per type */
            if (quick && (k + c / 2) % 2 != c % 2) continue;
            case_norm(app, p, t, N, 1, re, im, ps[k], "auto", "tuning");
            case_norm(app, p, t, 1, 5, re, im, ps[k], "auto", "tuning-short");
        }
        char want[32];
        snprintf(want, sizeof want, " l%ld", cfg[c][0]);
        CHECK(strstr(clip_process_variant(p), want) != NULL);
    }
    set_tuning(app, p, "auto", 0, 0, 0);
    /* The automatic unroll: 1 on CPUs; on GPUs 4, but 2 for double half-integer powers. */
    int gpu = clip_app_device(app)->type == CLIP_DEVICE_GPU;
    static const struct {
        clip_type t;
        double p;
        const char *gpu, *cpu;
    } un[3] = {{CLIP_F64, 2.5, " u2 ", " u1 "},
               {CLIP_F32, 2.5, " u4 ", " u1 "},
               {CLIP_F64, 3, " u4 ", " u1 "}};
    for (int k = 0; k < 3; k++) {
        case_norm(app, p, un[k].t, 1000, 1, re, im, un[k].p, "auto", "auto-unroll");
        CHECK(strstr(clip_process_variant(p), gpu ? un[k].gpu : un[k].cpu) != NULL);
    }
    free(re);
    free(im);
}

/* Compensated single-precision sums stay within a few ulps where each work-item sums a
 * million terms alone (one group of one work-item per compute unit), where plain float sums
 * drift by ~1e-5; sum=plain still meets the ordinary tolerance in the default layout. */
static void test_compensated(clip_app *app, clip_process *p) {
    const size_t N = quick ? 40003 : 2000003;
    double *v = malloc(N * sizeof *v);
    unsigned long long seed = 17;
    for (size_t i = 0; i < N; i++)
        v[i] = 0.5 + 0.5 * tu_rand(&seed);
    clip_data *x = rt_make(app, CLIP_F32, N, 1, v, NULL);
    static const double ps[4] = {1, 2, 3, 2.5};
    for (int k = 0; k < 4; k++) {
        if (quick && k % 2 == 0) continue; /* quick: sum of squares and a half-integer power */
        double got = 0;
        set_tuning(app, p, "auto", 1, 1, 1);
        CHECK_OK(app, clip_process_set_choice(p, "sum", "compensated"));
        CHECK_OK(app, run_norm(p, x, ps[k], "vector", &got));
        double want = (double)(float)ref_norm(CLIP_F32, v, NULL, N, ps[k]);
        tu_checks++;
        if (!(fabs(got - want) <= 3e-7 * want)) {
            tu_failures++;
            fprintf(stderr, "compensated p=%g: got %.9g, want %.9g (rel %.3g)\n", ps[k], got, want,
                    fabs(got - want) / want);
        }
        CHECK(strstr(clip_process_variant(p), "-comp") != NULL);
        set_tuning(app, p, "auto", 0, 0, 0);
        CHECK_OK(app, clip_process_set_choice(p, "sum", "plain"));
        CHECK_OK(app, run_norm(p, x, ps[k], "auto", &got));
        check_value(got, ref_norm(CLIP_F32, v, NULL, N, ps[k]), 1, "plain");
        CHECK(strstr(clip_process_variant(p), "-comp") == NULL);
    }
    CHECK_OK(app, clip_process_set_choice(p, "sum", "auto"));
    clip_data_destroy(x);
    free(v);
}

/* Empty inputs of every shape, and N-D arrays with one non-singleton dimension. */
static void test_shapes(clip_app *app, clip_process *p) {
    static const size_t empties[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    double v[5] = {3, -4, 12, 0.5, -2};
    for (int e = 0; e < 3; e++)
        for (int pi = 0; pi < 6; pi++) {
            size_t dims[2] = {empties[e][0], empties[e][1]};
            clip_data *x = NULL;
            CHECK_OK(app, clip_data_create(app, CLIP_C32, 2, dims, &x));
            double got = -1;
            CHECK_OK(app, run_norm(p, x, orders[pi], "auto", &got));
            CHECK(got == 0);
            clip_data_destroy(x);
        }
    for (int axis = 2; axis < 4; axis++) {
        size_t dims[4] = {1, 1, 1, 1};
        dims[axis] = 5;
        float h[5];
        for (int i = 0; i < 5; i++)
            h[i] = (float)v[i];
        clip_data *x = NULL;
        CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 4, dims, h, &x));
        double got = 0;
        CHECK_OK(app, run_norm(p, x, 3, "auto", &got));
        check_value(got, ref_norm(CLIP_F32, v, NULL, 5, 3), 1, "N-D vector");
        clip_data_destroy(x);
    }
}

static void test_errors(clip_app *app, clip_process *p) {
    double v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, got = 0;
    clip_data *x = rt_make(app, CLIP_F32, 12, 1, v, NULL);
    clip_transfer_stats before, after;
    CHECK_OK(app, clip_app_transfer_stats(app, &before));
    static const double bad[] = {0, -0.0, -1, -2.5, -0.5};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(app, run_norm(p, x, bad[i], "auto", &got), CLIP_ERR_BAD_NORM_ORDER);
        CHECK_MSG(app, "norm: p must be > 0, Inf or -Inf");
    }
    CHECK_STATUS(app, run_norm(p, x, -0.5, "auto", &got), CLIP_ERR_BAD_NORM_ORDER);
    CHECK_MSG(app, "got -0.5");
    CHECK_STATUS(app, run_norm(p, x, NAN, "auto", &got), CLIP_ERR_BAD_NORM_ORDER);
    CHECK_MSG(app, "nan");
    /* A failed init enqueues nothing: the input was never uploaded. */
    CHECK_OK(app, clip_app_transfer_stats(app, &after));
    CHECK(after.to_device == before.to_device && after.to_host == before.to_host);
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    /* MATLAB's norm takes any positive p, 0 < p < 1 too (not a norm then, but defined). */
    static const double frac[] = {0.5, 0.25, 0.999};
    for (size_t i = 0; i < sizeof frac / sizeof frac[0]; i++) {
        CHECK_OK(app, run_norm(p, x, frac[i], "auto", &got));
        check_value(got, ref_norm(CLIP_F32, v, NULL, 12, frac[i]), 1, "0 < p < 1");
    }

    /* Orders MATLAB refuses for a matrix (test_norm_matrix.c checks the matrix norms), and
     * N-D arrays with two non-singleton dimensions. */
    clip_data *m = rt_make(app, CLIP_F32, 3, 4, v, NULL);
    CHECK_STATUS(app, run_norm(p, m, 3, "auto", &got), CLIP_ERR_BAD_NORM_ORDER);
    CHECK_MSG(app, "norm: p = 3 is not a matrix norm: MATLAB's norm(A, p) of a matrix (here 3x4) "
                   "takes 1, 2, Inf or 'fro'");
    clip_data_destroy(m);
    size_t d3[3] = {1, 3, 4};
    float h[12] = {0};
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 3, d3, h, &m));
    CHECK_STATUS(app, run_norm(p, m, 1, "auto", &got), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "1x3x4");
    clip_data_destroy(m);

    CHECK_STATUS(app, clip_process_set_choice(p, "variant", "bogus"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "bogus");
    CHECK_STATUS(app, clip_process_set_choice(p, "method", "threepass"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "threepass");
    CHECK_STATUS(app, clip_process_set_choice(p, "sum", "exact"), CLIP_ERR_BAD_CHOICE);
    CHECK_STATUS(app, clip_process_set_int(p, "unroll", 9), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_int(p, "groups", -1), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_int(p, "local", 2048), CLIP_ERR_PARAM_RANGE);
    /* In range for the table but no power of two: init refuses it, before any upload. */
    CHECK_OK(app, clip_process_set_int(p, "local", 96));
    CHECK_OK(app, clip_app_transfer_stats(app, &before));
    CHECK_STATUS(app, run_norm(p, x, 3, "auto", &got), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "norm: local must be a power of two");
    CHECK_MSG(app, "got 96");
    CHECK_OK(app, clip_app_transfer_stats(app, &after));
    CHECK(after.to_device == before.to_device);
    CHECK_OK(app, clip_process_set_int(p, "local", 0));
    CHECK_STATUS(app, clip_process_set_int(p, "q", 1), CLIP_ERR_UNKNOWN_PARAM);

    /* A user-supplied output must be 1x1 real of the input's precision. */
    clip_data *wrong = NULL;
    size_t one[2] = {1, 1}, two[2] = {2, 1};
    CHECK_OK(app, clip_data_create(app, CLIP_F64, 2, one, &wrong));
    CHECK_OK(app, clip_process_set_output(p, 0, wrong));
    CHECK_STATUS(app, run_norm(p, x, 2, "auto", &got), CLIP_ERR_TYPE);
    clip_data_destroy(wrong);
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, two, &wrong));
    CHECK_OK(app, clip_process_set_output(p, 0, wrong));
    CHECK_STATUS(app, run_norm(p, x, 2, "auto", &got), CLIP_ERR_SHAPE);
    clip_data_destroy(wrong);
    clip_data *right = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, one, &right));
    CHECK_OK(app, clip_process_set_output(p, 0, right));
    /* The app and the process stay usable after all of the above. */
    CHECK_OK(app, run_norm(p, x, 2, "auto", &got));
    check_value(got, ref_norm(CLIP_F32, v, NULL, 12, 2), 1, "after errors");
    const void *rh = NULL;
    CHECK_OK(app, clip_data_host(right, &rh));
    CHECK(rh && *(const float *)rh == (float)got);
    clip_data_destroy(right);
    clip_data_destroy(x);
}

/* f64 and c64 need fp64; single precision still works on such a device. */
static void test_no_fp64(void) {
    clip_app *app = rt_app_no_fp64();
    if (!app) return;
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "norm", &p));
    double v[3] = {1, 2, 2}, got = 0;
    for (int k = 0; k < 2; k++) {
        clip_data *x = rt_make(app, k ? CLIP_C64 : CLIP_F64, 3, 1, v, v);
        CHECK_STATUS(app, run_norm(p, x, 2, "auto", &got), CLIP_ERR_NO_FP64);
        CHECK_MSG(app, "fp64");
        clip_data_destroy(x);
    }
    clip_data *x = rt_make(app, CLIP_F32, 3, 1, v, NULL);
    CHECK_OK(app, run_norm(p, x, 2, "auto", &got));
    CHECK_NEAR(got, 3.0, 1e-6);
    clip_data_destroy(x);
    clip_process_destroy(p);
    clip_app_destroy(app);
}

/* scale's output feeds norm on the device: the only copy to the host is the final 1x1 read. */
static void test_chain(clip_app *app) {
    const size_t N = quick ? 3001 : 100003;
    double *v = malloc(N * sizeof *v), *sv = malloc(N * sizeof *sv);
    unsigned long long seed = 11;
    rt_fill_random(v, N, &seed);
    for (size_t i = 0; i < N; i++)
        sv[i] = (double)(float)(-3.0 * (double)(float)v[i]);
    clip_data *x = rt_make(app, CLIP_F32, N, 1, v, NULL), *y = NULL, *n = NULL;
    clip_process *sc = NULL, *nm = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &sc));
    CHECK_OK(app, clip_process_create(app, "norm", &nm));
    CHECK_OK(app, clip_process_set_real(sc, "a", -3));
    CHECK_OK(app, clip_process_set_input(sc, 0, x));
    CHECK_OK(app, clip_process_init(sc));
    CHECK_OK(app, clip_process_output(sc, 0, &y));
    CHECK_OK(app, clip_process_set_input(nm, 0, y));
    for (int k = 0; k < 2; k++) {
        double pv = k ? 2.5 : 2; /* one pass, and the two-pass path */
        CHECK_OK(app, clip_process_set_real(nm, "p", pv));
        CHECK_OK(app, clip_process_init(nm));
        CHECK_OK(app, clip_process_output(nm, 0, &n));
        clip_transfer_stats s0, s1, s2;
        tu_launch_all(app, (clip_process *[]){sc, nm}, 2, &s0, &s1);
        CHECK(s1.to_host == s0.to_host);
        CHECK(s1.to_device == s0.to_device + (k == 0)); /* x goes up once, on the first launch */
        const void *h = NULL;
        CHECK_OK(app, clip_data_host(n, &h));
        CHECK_OK(app, clip_app_transfer_stats(app, &s2));
        CHECK(s2.to_host == s0.to_host + 1);
        CHECK(s2.bytes_to_host == s0.bytes_to_host + sizeof(float));
        check_value(*(const float *)h, ref_norm(CLIP_F32, sv, NULL, N, pv), 1, "chain");
    }
    clip_process_destroy(sc);
    clip_process_destroy(nm);
    clip_data_destroy(x);
    free(v);
    free(sv);
}

static void test_cli(clip_app *app) {
    enum { N = 31 };
    double re[N], im[N];
    unsigned long long seed = 3;
    rt_fill_random(re, N, &seed);
    rt_fill_random(im, N, &seed);
    /* CFL needs no optional library; it holds complex single. */
    clip_data *v = rt_make(app, CLIP_C32, 1, N, re, im), *m = rt_make(app, CLIP_C32, 3, 4, re, im);
    CHECK_OK(app, clip_save(app, "norm_v.cfl", v));
    CHECK_OK(app, clip_save(app, "norm_m.cfl", m));
    char out[4096];
    CHECK(tu_run_tool("norm", "run norm norm_v.cfl --p 3") == 0);
    rt_read_file("norm_out.txt", out, sizeof out);
    check_value(strtod(out, NULL), ref_norm(CLIP_C32, re, im, N, 3), 1, "cli p=3");
    CHECK(tu_run_tool("norm", "run norm norm_v.cfl --p -inf") == 0);
    rt_read_file("norm_out.txt", out, sizeof out);
    check_value(strtod(out, NULL), ref_norm(CLIP_C32, re, im, N, -INFINITY), 1, "cli p=-inf");

    CHECK_TOOL_FAILS("norm", "run norm norm_v.cfl --p 0",
                     "norm: p must be > 0, Inf or -Inf, got 0");
    CHECK_TOOL_FAILS("norm", "run norm norm_v.cfl --p nan", "p must be > 0");
    CHECK_TOOL_FAILS("norm", "run norm norm_m.cfl --p 2.5", "p = 2.5 is not a matrix norm");
    CHECK_TOOL_FAILS("norm", "run norm norm_v.cfl --variant bogus", "bogus");
    CHECK_TOOL_FAILS("norm", "run norm norm_v.cfl --p 3 --local 12",
                     "local must be a power of two");
    CHECK(tu_run_tool("norm", "run norm norm_v.cfl --p 2.5 --method twopass --local 16 "
                              "--unroll 3 --groups 2") == 0);
    rt_read_file("norm_out.txt", out, sizeof out);
    check_value(strtod(out, NULL), ref_norm(CLIP_C32, re, im, N, 2.5), 1, "cli twopass");
    clip_data_destroy(v);
    clip_data_destroy(m);
}

int main(void) {
    quick = tu_quick();
    clip_app *app = tu_app();
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "norm", &p));
    test_values(app, p);
    test_range(app, p);
    test_special(app, p);
    test_large_p(app, p);
    test_variants(app, p);
    test_onepass(app, p);
    test_tuning(app, p);
    test_compensated(app, p);
    test_shapes(app, p);
    clip_process_destroy(p);
    p = NULL;
    CHECK_OK(app, clip_process_create(app, "norm", &p));
    test_errors(app, p);
    clip_process_destroy(p);
    test_no_fp64();
    test_chain(app);
    test_cli(app);
    clip_app_destroy(app);
    return tu_finish("test_norm");
}
