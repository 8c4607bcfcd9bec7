/* dot: values against long-double references for every pair of types (promotion on the device),
 * awkward lengths and orientations; conjugation of the first argument; NaN and Inf; empty and
 * N-D inputs; each kernel variant and tuning; compensated sums' accuracy; every error through the C
 * API and the CLI; fp64-less devices; and a scale -> dot chain that copies nothing to the host in
 * between. */
#define _POSIX_C_SOURCE 200809L
#include "reduce_testutil.h"

static const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};

/* tu_quick(): under valgrind each distinct kernel build costs about a second, even from PoCL's
 * kernel cache, while a case on a built kernel costs milliseconds. So quick mode keeps every
 * type pair at every awkward length and every special case, runs the variants and tunings in
 * rotation (each still on real and complex data), and cuts long vectors to a few thousand
 * elements (still several groups and a tail). */
static int quick;

/* A value as stored in type `in`, then converted to type `to` (what the kernel reads). */
static long double as_type(double v, clip_type in, clip_type to) {
    if (!clip_type_is_double(in)) v = (float)v;
    if (!clip_type_is_double(to)) v = (float)v;
    return v;
}

typedef struct ref_t {
    long double re, im; /* sum(conj(a).*b) */
    long double scale;  /* sum(|a|.*|b|), the size of the rounding errors' bound */
} ref_t;

/* The reference in long double. A real operand contributes no imaginary terms at all (MATLAB
 * multiplies real by complex without a made-up 0 imaginary part, so Inf or NaN there never
 * meets a 0). */
static ref_t ref_dot(clip_type ta, clip_type tb, const double *are, const double *aim,
                     const double *bre, const double *bim, size_t n) {
    clip_type t = clip_type_promote(ta, tb);
    ref_t r = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        long double ar = as_type(are[i], ta, t), br = as_type(bre[i], tb, t);
        long double ai = clip_type_is_complex(ta) ? as_type(aim[i], ta, t) : 0;
        long double bi = clip_type_is_complex(tb) ? as_type(bim[i], tb, t) : 0;
        int acx = clip_type_is_complex(ta), bcx = clip_type_is_complex(tb);
        r.re += ar * br + (acx && bcx ? ai * bi : 0);
        r.im += (bcx ? ar * bi : 0) - (acx ? ai * br : 0);
        /* Inf and NaN parts are compared exactly. Classified as a double: valgrind stores a
         * long double Inf as the largest finite one (reduce_testutil.h). */
        long double m = rt_hypotl((double)ar, (double)ai) * rt_hypotl((double)br, (double)bi);
        if (isfinite((double)m)) r.scale += m;
    }
    return r;
}

/* Runs dot(a, b) with a variant; the result's components as doubles. */
static clip_status run_dot(clip_process *p, clip_data *a, clip_data *b, const char *variant,
                           double *re, double *im) {
    clip_status s = clip_process_set_input(p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, b);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "variant", variant);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    clip_data *y = NULL;
    if (s == CLIP_OK) s = clip_process_output(p, 0, &y);
    const void *h = NULL;
    if (s == CLIP_OK) s = clip_data_host(y, &h);
    if (s != CLIP_OK) return s;
    clip_type t = clip_type_promote(clip_data_type(a), clip_data_type(b));
    if (clip_data_type(y) != t || clip_data_dim(y, 0) != 1 || clip_data_dim(y, 1) != 1 ||
        clip_data_ndims(y) != 2) {
        fprintf(stderr, "dot output is %s %zux%zu, want %s 1x1\n",
                clip_type_name(clip_data_type(y)), clip_data_dim(y, 0), clip_data_dim(y, 1),
                clip_type_name(t));
        return CLIP_ERR_TYPE;
    }
    int dbl = clip_type_is_double(t);
    *re = dbl ? ((const double *)h)[0] : ((const float *)h)[0];
    *im = 0;
    if (clip_type_is_complex(t)) *im = dbl ? ((const double *)h)[1] : ((const float *)h)[1];
    return CLIP_OK;
}

/* One component against the reference rounded to the output precision. Rounding errors of a
 * sum are bounded relative to sum(|a||b|), not to the (possibly cancelling) result. */
static int close_to(double got, long double want, long double scale, int single) {
    double w = single ? (double)(float)want : (double)want;
    if (isnan(w)) return isnan(got);
    if (isinf(w)) return got == w;
    return fabs(got - w) <= (single ? 1e-5 : 1e-12) * (double)scale;
}

static void case_dot(clip_app *app, clip_process *p, clip_type ta, clip_type tb, size_t n,
                     int orient, const double *are, const double *aim, const double *bre,
                     const double *bim, const char *variant, const char *what) {
    /* orient: 0 both columns, 1 row and column, 2 column and row, 3 both rows */
    clip_data *a = orient & 1 ? rt_make(app, ta, 1, n, are, aim) : rt_make(app, ta, n, 1, are, aim);
    clip_data *b = orient & 2 ? rt_make(app, tb, 1, n, bre, bim) : rt_make(app, tb, n, 1, bre, bim);
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s: dot(%s, %s) n=%zu orient=%d variant=%s", what,
             clip_type_name(ta), clip_type_name(tb), n, orient, variant);
    double re = 0, im = 0;
    clip_status s = run_dot(p, a, b, variant, &re, &im);
    tu_checks++;
    if (s != CLIP_OK) {
        tu_failures++;
        fprintf(stderr, "%s: %s (%s)\n", ctx, clip_status_str(s), clip_app_last_error(app));
    } else {
        ref_t r = ref_dot(ta, tb, are, aim, bre, bim, n);
        clip_type t = clip_type_promote(ta, tb);
        int single = !clip_type_is_double(t);
        int cx = clip_type_is_complex(t);
        if (!close_to(re, r.re, r.scale, single) ||
            !(cx ? close_to(im, r.im, r.scale, single) : im == 0)) {
            tu_failures++;
            fprintf(stderr, "%s: got %.17g%+.17gi, want %.17Lg%+.17Lgi (scale %.3Lg)\n", ctx, re,
                    im, r.re, r.im, r.scale);
        }
    }
    clip_data_destroy(a);
    clip_data_destroy(b);
}

static void test_values(clip_app *app, clip_process *p) {
    static const size_t lengths[] = {0, 1, 2, 3, 17, 31, 257, 1029, 1000003};
    size_t nmax = 1000003, nlen = sizeof lengths / sizeof lengths[0] - (quick ? 1 : 0);
    double *v[4];
    for (int k = 0; k < 4; k++)
        v[k] = malloc(nmax * sizeof *v[k]);
    unsigned long long seed = 17;
    for (size_t li = 0; li < nlen; li++) {
        size_t n = lengths[li];
        for (int k = 0; k < 4; k++)
            rt_fill_random(v[k], n, &seed);
        for (int ta = 0; ta < 4; ta++)
            for (int tb = 0; tb < 4; tb++) {
                /* Every mixture at the awkward lengths; the long one for same-type pairs. */
                if (n > 100000 && ta != tb) continue;
                case_dot(app, p, types[ta], types[tb], n, (int)((li + ta + tb) % 4), v[0], v[1],
                         v[2], v[3], "auto", "random");
            }
    }
    for (int k = 0; k < 4; k++)
        free(v[k]);
}

/* MATLAB conjugates the first argument: dot(a, b) = conj(dot(b, a)), and dot(a, a) is
 * sum(|a|.^2) with an imaginary part of exactly 0. */
static void test_conjugation(clip_app *app, clip_process *p) {
    enum { N = 257 };
    double are[N], aim[N], bre[N], bim[N];
    unsigned long long seed = 23;
    rt_fill_random(are, N, &seed);
    rt_fill_random(aim, N, &seed);
    rt_fill_random(bre, N, &seed);
    rt_fill_random(bim, N, &seed);
    for (int k = 0; k < 2; k++) {
        clip_type t = k ? CLIP_C64 : CLIP_C32;
        int single = !k;
        clip_data *a = rt_make(app, t, N, 1, are, aim), *b = rt_make(app, t, 1, N, bre, bim);
        double r1 = 0, i1 = 0, r2 = 0, i2 = 0, r3 = 0, i3 = 0;
        CHECK_OK(app, run_dot(p, a, b, "auto", &r1, &i1));
        CHECK_OK(app, run_dot(p, b, a, "auto", &r2, &i2));
        ref_t r = ref_dot(t, t, are, aim, bre, bim, N);
        CHECK(close_to(r1, r.re, r.scale, single) && close_to(i1, r.im, r.scale, single));
        CHECK(close_to(r2, r.re, r.scale, single) && close_to(i2, -r.im, r.scale, single));
        /* Without the conjugation the imaginary part would be sum(ar.*bi + ai.*br). */
        long double unconj = 0;
        for (int i = 0; i < N; i++)
            unconj += (long double)are[i] * bim[i] + (long double)aim[i] * bre[i];
        CHECK(fabsl((long double)i1 - unconj) > 1e-3L * r.scale);
        CHECK_OK(app, run_dot(p, a, a, "auto", &r3, &i3));
        ref_t rr = ref_dot(t, t, are, aim, are, aim, N);
        CHECK(close_to(r3, rr.re, rr.scale, single));
        CHECK(i3 == 0);
        clip_data_destroy(a);
        clip_data_destroy(b);
    }
}

/* NaN anywhere gives NaN; Inf*0 gives NaN; Inf alone gives Inf; large values overflow to Inf
 * only when the sum does. */
static void test_special(clip_app *app, clip_process *p) {
    enum { N = 1029 };
    double are[N], aim[N], bre[N], bim[N];
    unsigned long long seed = 31;
    static const size_t where[3] = {0, N / 2, N - 1};
    for (int ti = 0; ti < 4; ti++)
        for (int w = 0; w < 3; w++) {
            rt_fill_random(are, N, &seed);
            rt_fill_random(aim, N, &seed);
            for (int i = 0; i < N; i++)
                bre[i] = 0.5 + 0.25 * tu_rand(&seed), bim[i] = 0;
            are[where[w]] = NAN;
            case_dot(app, p, types[ti], types[ti], N, w, are, aim, bre, bim, "auto", "nan-a");
            are[where[w]] = INFINITY;
            case_dot(app, p, types[ti], types[ti], N, w, are, aim, bre, bim, "auto", "inf");
            bre[where[w]] = 0;
            case_dot(app, p, types[ti], types[ti], N, w, are, aim, bre, bim, "auto", "inf*0");
            are[where[w]] = 0.5;
            bre[where[w]] = NAN;
            case_dot(app, p, types[ti], types[ti], N, w, are, aim, bre, bim, "auto", "nan-b");
        }
    /* Mixed real and complex: NaN or Inf in one part of the complex operand, or in the real
     * one, spoils only the parts of the result it reaches, as in MATLAB. */
    static const clip_type mixed[4][2] = {
        {CLIP_C32, CLIP_F32}, {CLIP_F32, CLIP_C64}, {CLIP_C64, CLIP_F64}, {CLIP_F64, CLIP_C64}};
    for (int k = 0; k < 4; k++) {
        rt_fill_random(are, N, &seed);
        rt_fill_random(aim, N, &seed);
        rt_fill_random(bre, N, &seed);
        rt_fill_random(bim, N, &seed);
        are[5] = NAN;
        case_dot(app, p, mixed[k][0], mixed[k][1], N, k, are, aim, bre, bim, "auto", "mixed-nan");
        are[5] = INFINITY;
        case_dot(app, p, mixed[k][0], mixed[k][1], N, k, are, aim, bre, bim, "auto", "mixed-inf");
        are[5] = 1;
        bim[9] = INFINITY;
        aim[9] = NAN;
        case_dot(app, p, mixed[k][0], mixed[k][1], N, k, are, aim, bre, bim, "auto", "mixed-imag");
    }
    double big[2] = {3e38, 3e38}, one[2] = {1, 1};
    case_dot(app, p, CLIP_F32, CLIP_F32, 2, 0, big, NULL, big, NULL, "auto", "overflow");
    case_dot(app, p, CLIP_F32, CLIP_F32, 2, 0, big, NULL, one, NULL, "auto", "near-max");
}

/* Each variant, real and complex, long and shorter than one vector load. */
static void test_variants(clip_app *app, clip_process *p) {
    static const char *const variants[] = {"scalar", "vector", "vector16"};
    const size_t N = quick ? 3001 : 100003;
    double *v[4];
    unsigned long long seed = 41;
    for (int k = 0; k < 4; k++) {
        v[k] = malloc(N * sizeof *v[k]);
        rt_fill_random(v[k], N, &seed);
    }
    for (int vi = 0; vi < 3; vi++)
        for (int ti = 0; ti < 4; ti++) {
            if (quick && ti % 2 != vi % 2) continue; /* quick: a real and a complex type each */
            case_dot(app, p, types[ti], types[ti], N, 1, v[0], v[1], v[2], v[3], variants[vi],
                     "variant");
            case_dot(app, p, types[ti], types[ti], 7, 2, v[0], v[1], v[2], v[3], variants[vi],
                     "variant-short");
        }
    case_dot(app, p, CLIP_F64, CLIP_C64, N, 0, v[0], v[1], v[2], v[3], "scalar", "variant-mixed");
    for (int k = 0; k < 4; k++)
        free(v[k]);
}

/* Work-group sizes (the GPU layout, strided, and the CPU one), unrolls and group counts other
 * than the device's defaults give the same answers, with and without NaN in the data. */
static void test_tuning(clip_app *app, clip_process *p) {
    const size_t N = quick ? 40009 : 100003; /* quick: still 8 groups of 256 at local 256 */
    double *v[4];
    unsigned long long seed = 43;
    for (int k = 0; k < 4; k++) {
        v[k] = malloc(N * sizeof *v[k]);
        rt_fill_random(v[k], N, &seed);
    }
    static const long cfg[4][3] = {{1, 4, 64}, {256, 1, 0}, {64, 3, 3}, {128, 8, 1}};
    static const clip_type pair[4][2] = {
        {CLIP_F32, CLIP_F32}, {CLIP_C64, CLIP_C64}, {CLIP_F64, CLIP_C64}, {CLIP_C32, CLIP_F32}};
    for (int c = 0; c < 4; c++) {
        CHECK_OK(app, clip_process_set_int(p, "local", cfg[c][0]));
        CHECK_OK(app, clip_process_set_int(p, "unroll", cfg[c][1]));
        CHECK_OK(app, clip_process_set_int(p, "groups", cfg[c][2]));
        for (int k = 0; k < (quick ? 1 : 2); k++) { /* quick: each pair in one layout */
            clip_type ta = pair[(c + k) % 4][0], tb = pair[(c + k) % 4][1];
            case_dot(app, p, ta, tb, N, c, v[0], v[1], v[2], v[3], "auto", "tuning");
            case_dot(app, p, ta, tb, 5, c, v[0], v[1], v[2], v[3], "auto", "tuning-short");
        }
        v[0][N / 3] = NAN;
        if (!quick || c == 0) /* quick: where f32 ran above */
            case_dot(app, p, CLIP_F32, CLIP_F32, N, c, v[0], v[1], v[2], v[3], "auto",
                     "tuning-nan");
        v[0][N / 3] = 0.5;
        char want[32];
        snprintf(want, sizeof want, " l%ld", cfg[c][0]);
        CHECK(strstr(clip_process_variant(p), want) != NULL);
    }
    CHECK_OK(app, clip_process_set_int(p, "local", 0));
    CHECK_OK(app, clip_process_set_int(p, "unroll", 0));
    CHECK_OK(app, clip_process_set_int(p, "groups", 0));
    for (int k = 0; k < 4; k++)
        free(v[k]);
}

/* Compensated single-precision sums stay within a few ulps of sum(|a||b|) where each
 * work-item sums a million products alone (one group of one work-item per compute unit), where
 * plain float sums drift by ~1e-5; sum=plain still meets the ordinary tolerance by default. */
static void test_compensated(clip_app *app, clip_process *p) {
    const size_t N = quick ? 40003 : 2000003;
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    unsigned long long seed = 19;
    for (size_t i = 0; i < N; i++)
        a[i] = 0.5 + 0.5 * tu_rand(&seed), b[i] = 0.5 + 0.5 * tu_rand(&seed);
    ref_t r = ref_dot(CLIP_F32, CLIP_F32, a, NULL, b, NULL, N);
    double re = 0, im = 0;
    clip_data *da = rt_make(app, CLIP_F32, N, 1, a, NULL),
              *db = rt_make(app, CLIP_F32, 1, N, b, NULL);
    CHECK_OK(app, clip_process_set_int(p, "local", 1));
    CHECK_OK(app, clip_process_set_int(p, "groups", 1));
    CHECK_OK(app, clip_process_set_choice(p, "sum", "compensated"));
    CHECK_OK(app, run_dot(p, da, db, "vector", &re, &im));
    tu_checks++;
    if (!(fabs(re - (double)(float)r.re) <= 3e-7 * (double)r.scale)) {
        tu_failures++;
        fprintf(stderr, "compensated dot: got %.9g, want %.9Lg\n", re, r.re);
    }
    CHECK(strstr(clip_process_variant(p), "comp") != NULL);
    CHECK_OK(app, clip_process_set_int(p, "local", 0));
    CHECK_OK(app, clip_process_set_int(p, "groups", 0));
    CHECK_OK(app, clip_process_set_choice(p, "sum", "plain"));
    CHECK_OK(app, run_dot(p, da, db, "auto", &re, &im));
    CHECK(close_to(re, r.re, r.scale, 1));
    CHECK(strstr(clip_process_variant(p), "comp") == NULL);
    CHECK_OK(app, clip_process_set_choice(p, "sum", "auto"));
    clip_data_destroy(da);
    clip_data_destroy(db);
    free(a);
    free(b);
}

/* Empty inputs give 0 of the promoted type; N-D arrays with one non-singleton dim are vectors. */
static void test_shapes(clip_app *app, clip_process *p) {
    static const size_t empties[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    for (int ea = 0; ea < 3; ea++)
        for (int eb = 0; eb < 3; eb++) {
            clip_data *a = NULL, *b = NULL;
            CHECK_OK(app, clip_data_create(app, types[ea], 2, empties[ea], &a));
            CHECK_OK(app, clip_data_create(app, types[eb + 1], 2, empties[eb], &b));
            double re = -1, im = -1;
            CHECK_OK(app, run_dot(p, a, b, "auto", &re, &im));
            CHECK(re == 0 && im == 0);
            clip_data_destroy(a);
            clip_data_destroy(b);
        }
    double va[5] = {1, -2, 3, 0.5, 4}, vb[5] = {2, 1, -1, 8, 0.25};
    size_t da[3] = {1, 1, 5}, db[4] = {1, 5, 1, 1};
    float ha[5], hb[5];
    for (int i = 0; i < 5; i++)
        ha[i] = (float)va[i], hb[i] = (float)vb[i];
    clip_data *a = NULL, *b = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 3, da, ha, &a));
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 4, db, hb, &b));
    double re = 0, im = 0;
    CHECK_OK(app, run_dot(p, a, b, "auto", &re, &im));
    ref_t r = ref_dot(CLIP_F32, CLIP_F32, va, NULL, vb, NULL, 5);
    CHECK(close_to(re, r.re, r.scale, 1));
    clip_data_destroy(a);
    clip_data_destroy(b);
}

static void test_errors(clip_app *app, clip_process *p) {
    double v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, re = 0, im = 0;
    clip_data *a3 = rt_make(app, CLIP_F32, 3, 1, v, NULL), *b4 = rt_make(app, CLIP_C64, 1, 4, v, v);
    clip_data *m = rt_make(app, CLIP_F32, 3, 4, v, NULL),
              *m2 = rt_make(app, CLIP_F32, 2, 2, v, NULL);
    clip_data *e = NULL;
    size_t zero[2] = {0, 0};
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, zero, &e));

    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    CHECK_OK(app, clip_process_set_input(p, 0, a3));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    clip_transfer_stats before, after;
    CHECK_OK(app, clip_app_transfer_stats(app, &before));
    CHECK_STATUS(app, run_dot(p, a3, b4, "auto", &re, &im), CLIP_ERR_LENGTH_MISMATCH);
    CHECK_MSG(app, "dot: vectors differ in length: a has 3 elements, b has 4");
    CHECK_STATUS(app, run_dot(p, b4, a3, "auto", &re, &im), CLIP_ERR_LENGTH_MISMATCH);
    CHECK_MSG(app, "a has 4 elements, b has 3");
    CHECK_STATUS(app, run_dot(p, e, a3, "auto", &re, &im), CLIP_ERR_LENGTH_MISMATCH);
    CHECK_MSG(app, "a has 0 elements, b has 3");
    /* A non-vector needs an array of its size (test_dot_dim.c checks dot of arrays). */
    CHECK_STATUS(app, run_dot(p, m, a3, "auto", &re, &im), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "dot: A is 3x4 and B is 3x1: MATLAB's dot of arrays needs equal sizes");
    CHECK_STATUS(app, run_dot(p, b4, m2, "auto", &re, &im), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "dot: A is 1x4 and B is 2x2");
    /* A failed init enqueues nothing: no input was uploaded. */
    CHECK_OK(app, clip_app_transfer_stats(app, &after));
    CHECK(after.to_device == before.to_device && after.to_host == before.to_host);
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    CHECK_STATUS(app, clip_process_set_choice(p, "variant", "wide"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "'wide' is not one of");
    CHECK_STATUS(app, clip_process_set_int(p, "unroll", -1), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_int(p, "groups", 65), CLIP_ERR_PARAM_RANGE);
    /* In the table's range but no power of two: init refuses it, before any upload. */
    CHECK_OK(app, clip_process_set_int(p, "local", 48));
    CHECK_STATUS(app, run_dot(p, a3, a3, "auto", &re, &im), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "dot: local must be a power of two");
    CHECK_MSG(app, "got 48");
    CHECK_OK(app, clip_app_transfer_stats(app, &after));
    CHECK(after.to_device == before.to_device);
    CHECK_OK(app, clip_process_set_int(p, "local", 0));

    /* A user-supplied output must be 1x1 of the promoted type. */
    clip_data *wrong = NULL, *right = NULL;
    size_t one[2] = {1, 1};
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, one, &wrong));
    CHECK_OK(app, clip_process_set_output(p, 0, wrong));
    clip_data *a4 = rt_make(app, CLIP_F32, 4, 1, v, NULL);
    CHECK_STATUS(app, run_dot(p, a4, b4, "auto", &re, &im), CLIP_ERR_TYPE); /* f32.c64 -> c32 */
    CHECK_OK(app, clip_data_create(app, CLIP_C32, 2, one, &right));
    CHECK_OK(app, clip_process_set_output(p, 0, right));
    /* Usable after every failure above. */
    CHECK_OK(app, run_dot(p, a4, b4, "auto", &re, &im));
    ref_t r = ref_dot(CLIP_F32, CLIP_C64, v, NULL, v, v, 4);
    CHECK(close_to(re, r.re, r.scale, 1) && close_to(im, r.im, r.scale, 1));
    clip_data *a3b = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &a3b));
    CHECK(a3b == right);
    clip_data_destroy(wrong);
    clip_data_destroy(right);
    clip_data_destroy(a3);
    clip_data_destroy(a4);
    clip_data_destroy(b4);
    clip_data_destroy(m);
    clip_data_destroy(m2);
    clip_data_destroy(e);
}

/* f64/c64 inputs need fp64, even when promotion would make the result single. */
static void test_no_fp64(void) {
    clip_app *app = rt_app_no_fp64();
    if (!app) return;
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "dot", &p));
    double v[3] = {1, 2, 2}, re = 0, im = 0;
    static const clip_type pairs[4][2] = {
        {CLIP_F64, CLIP_F64}, {CLIP_C64, CLIP_C64}, {CLIP_F64, CLIP_F32}, {CLIP_C32, CLIP_C64}};
    for (int k = 0; k < 4; k++) {
        clip_data *a = rt_make(app, pairs[k][0], 3, 1, v, v),
                  *b = rt_make(app, pairs[k][1], 3, 1, v, v);
        CHECK_STATUS(app, run_dot(p, a, b, "auto", &re, &im), CLIP_ERR_NO_FP64);
        CHECK_MSG(app, "fp64");
        clip_data_destroy(a);
        clip_data_destroy(b);
    }
    clip_data *a = rt_make(app, CLIP_F32, 3, 1, v, NULL), *b = rt_make(app, CLIP_C32, 1, 3, v, v);
    CHECK_OK(app, run_dot(p, a, b, "auto", &re, &im));
    CHECK(re == 9 && im == 9);
    clip_data_destroy(a);
    clip_data_destroy(b);
    clip_process_destroy(p);
    clip_app_destroy(app);
}

/* scale's output feeds dot on the device: the only copy to the host is the final 1x1 read. */
static void test_chain(clip_app *app) {
    const size_t N = quick ? 3001 : 100003;
    double *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w), *sv = malloc(N * sizeof *sv);
    unsigned long long seed = 13;
    rt_fill_random(v, N, &seed);
    rt_fill_random(w, N, &seed);
    for (size_t i = 0; i < N; i++)
        sv[i] = (double)(float)(2.0 * (double)(float)v[i]);
    clip_data *x = rt_make(app, CLIP_F32, N, 1, v, NULL),
              *b = rt_make(app, CLIP_F32, 1, N, w, NULL);
    clip_data *y = NULL, *d = NULL;
    clip_process *sc = NULL, *dt = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &sc));
    CHECK_OK(app, clip_process_create(app, "dot", &dt));
    CHECK_OK(app, clip_process_set_real(sc, "a", 2));
    CHECK_OK(app, clip_process_set_input(sc, 0, x));
    CHECK_OK(app, clip_process_init(sc));
    CHECK_OK(app, clip_process_output(sc, 0, &y));
    CHECK_OK(app, clip_process_set_input(dt, 0, y));
    CHECK_OK(app, clip_process_set_input(dt, 1, b));
    CHECK_OK(app, clip_process_init(dt));
    CHECK_OK(app, clip_process_output(dt, 0, &d));
    clip_transfer_stats s0, s1, s2;
    tu_launch_all(app, (clip_process *[]){sc, dt}, 2, &s0, &s1);
    CHECK(s1.to_host == s0.to_host);
    CHECK(s1.to_device == s0.to_device + 2); /* x and b, once each */
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(d, &h));
    CHECK_OK(app, clip_app_transfer_stats(app, &s2));
    CHECK(s2.to_host == s0.to_host + 1);
    CHECK(s2.bytes_to_host == s0.bytes_to_host + sizeof(float));
    ref_t r = ref_dot(CLIP_F32, CLIP_F32, sv, NULL, w, NULL, N);
    CHECK(close_to(*(const float *)h, r.re, r.scale, 1));
    clip_process_destroy(sc);
    clip_process_destroy(dt);
    clip_data_destroy(x);
    clip_data_destroy(b);
    free(v);
    free(w);
    free(sv);
}

static void test_cli(clip_app *app) {
    enum { N = 31 };
    double v[4][N];
    unsigned long long seed = 3;
    for (int k = 0; k < 4; k++)
        rt_fill_random(v[k], N, &seed);
    /* CFL needs no optional library; it holds complex single. */
    clip_data *a = rt_make(app, CLIP_C32, 1, N, v[0], v[1]),
              *b = rt_make(app, CLIP_C32, N, 1, v[2], v[3]);
    clip_data *c = rt_make(app, CLIP_C32, 4, 1, v[0], v[1]),
              *m = rt_make(app, CLIP_C32, 3, 4, v[0], v[1]);
    CHECK_OK(app, clip_save(app, "dot_a.cfl", a));
    CHECK_OK(app, clip_save(app, "dot_b.cfl", b));
    CHECK_OK(app, clip_save(app, "dot_c.cfl", c));
    CHECK_OK(app, clip_save(app, "dot_m.cfl", m));
    char out[4096];
    CHECK(tu_run_tool("dot", "run dot dot_a.cfl dot_b.cfl") == 0);
    rt_read_file("dot_out.txt", out, sizeof out);
    char *end = NULL;
    double re = strtod(out, &end), im = strtod(end, NULL);
    ref_t r = ref_dot(CLIP_C32, CLIP_C32, v[0], v[1], v[2], v[3], N);
    CHECK(close_to(re, r.re, r.scale, 1) && close_to(im, r.im, r.scale, 1));

    CHECK_TOOL_FAILS("dot", "run dot dot_a.cfl dot_c.cfl",
                     "dot: vectors differ in length: a has 31 elements, b has 4");
    CHECK_TOOL_FAILS("dot", "run dot dot_m.cfl dot_c.cfl",
                     "dot: A is 3x4 and B is 4x1: MATLAB's dot of arrays needs equal sizes");
    CHECK_TOOL_FAILS("dot", "run dot dot_a.cfl", "dot takes 2 inputs");
    CHECK_TOOL_FAILS("dot", "run dot dot_a.cfl dot_b.cfl --local 5",
                     "local must be a power of two");
    CHECK(tu_run_tool("dot", "run dot dot_a.cfl dot_b.cfl --local 8 --unroll 2 --groups 1") == 0);
    rt_read_file("dot_out.txt", out, sizeof out);
    re = strtod(out, &end), im = strtod(end, NULL);
    CHECK(close_to(re, r.re, r.scale, 1) && close_to(im, r.im, r.scale, 1));
    clip_data_destroy(a);
    clip_data_destroy(b);
    clip_data_destroy(c);
    clip_data_destroy(m);
}

int main(void) {
    quick = tu_quick();
    clip_app *app = tu_app();
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "dot", &p));
    test_values(app, p);
    test_conjugation(app, p);
    test_special(app, p);
    test_variants(app, p);
    test_tuning(app, p);
    test_compensated(app, p);
    test_shapes(app, p);
    clip_process_destroy(p);
    p = NULL;
    CHECK_OK(app, clip_process_create(app, "dot", &p));
    test_errors(app, p);
    clip_process_destroy(p);
    test_no_fp64();
    test_chain(app);
    test_cli(app);
    clip_app_destroy(app);
    return tu_finish("test_dot");
}
