/* conv2 against a plain double-precision loop that implements MATLAB's conv2 and imfilter's
 * padding from their definitions; every type, shape, pad mode, orientation and variant; empty
 * inputs, errors through the API and the CLI, and a device-only chain. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { FULL, SAME, VALID };
enum { ZERO, REPLICATE, SYMMETRIC, CIRCULAR };
static const char *const shape_name[] = {"full", "same", "valid"};
static const char *const pad_name[] = {"zero", "replicate", "symmetric", "circular"};
static const clip_type all_types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};

/* A host copy of test data as complex doubles (the values the device sees, after rounding). */
typedef struct host_arr {
    size_t dims[3];
    double complex *v;
} host_arr;

/* re + i*im without the multiplication by I, which turns an infinite part into NaNs (CMPLX is
 * missing from some compilers' complex.h). C11 lays a complex out as two reals. */
static double complex mkc(double re, double im) {
    double complex z = re;
    ((double *)&z)[1] = im;
    return z;
}

static size_t numel3(const size_t *d) { return d[0] * d[1] * d[2]; }

/* Random data of type t with dims (r, c, s); fills h with the exact stored values. */
static clip_data *make_data(clip_app *app, clip_type t, size_t r, size_t c, size_t s,
                            unsigned long long seed, host_arr *h) {
    size_t dims[3] = {r, c, s}, n = r * c * s;
    int cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    double *buf = malloc((n ? n : 1) * 2 * sizeof(double));
    float *fbuf = malloc((n ? n : 1) * 2 * sizeof(float));
    h->v = malloc((n ? n : 1) * sizeof(double complex));
    memcpy(h->dims, dims, sizeof dims);
    for (size_t i = 0; i < n; i++) {
        double re = tu_rand(&seed), im = cx ? tu_rand(&seed) : 0.0;
        if (!dbl) re = (float)re, im = (float)im;
        h->v[i] = mkc(re, im);
        if (cx) {
            buf[2 * i] = re, buf[2 * i + 1] = im;
            fbuf[2 * i] = (float)re, fbuf[2 * i + 1] = (float)im;
        } else {
            buf[i] = re;
            fbuf[i] = (float)re;
        }
    }
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create_from(app, t, s == 1 ? 2 : 3, dims, dbl ? (void *)buf : (void *)fbuf, &d));
    free(buf);
    free(fbuf);
    return d;
}

/* Index x of the padded line of length n, by the definitions of padarray: -1 for a zero. */
static long ref_map(long x, long n, int pad) {
    if (x >= 0 && x < n) return x;
    if (pad == ZERO || n == 0) return -1;
    if (pad == REPLICATE) return x < 0 ? 0 : n - 1;
    if (pad == CIRCULAR) return ((x % n) + n) % n;
    while (x < 0 || x >= n) x = x < 0 ? -1 - x : 2 * n - 1 - x; /* mirror, edge repeated */
    return x;
}

static size_t ref_size(int shape, size_t m, size_t k, long *off) {
    if (shape == SAME) return *off = (long)(k / 2), m;
    if (shape == VALID) return *off = (long)k - 1, (m + 1 > k ? m + 1 - k : 0);
    return *off = 0, (m + k > 0 ? m + k - 1 : 0);
}

/* C(i,j) = sum_{k,l} Aext(i+oi-k, j+oj-l) * K(k,l), K rotated by 180 degrees when correlating:
 * MATLAB's conv2 definition with the offset of the shape in the full result. */
static host_arr ref_conv2(const host_arr *a, const host_arr *k, int shape, int pad, int corr,
                          int normalize) {
    host_arr c;
    long oi, oj;
    size_t mk = k->dims[0], nk = k->dims[1];
    c.dims[0] = ref_size(shape, a->dims[0], mk, &oi);
    c.dims[1] = ref_size(shape, a->dims[1], nk, &oj);
    c.dims[2] = a->dims[2];
    size_t n = numel3(c.dims);
    c.v = malloc((n ? n : 1) * sizeof(double complex));
    double complex sum = 0;
    for (size_t e = 0; e < mk * nk; e++) sum += k->v[e];
    long ma = (long)a->dims[0], na = (long)a->dims[1];
    for (size_t s = 0; s < c.dims[2]; s++)
        for (size_t j = 0; j < c.dims[1]; j++)
            for (size_t i = 0; i < c.dims[0]; i++) {
                double complex acc = 0;
                for (size_t l = 0; l < nk; l++)
                    for (size_t q = 0; q < mk; q++) {
                        long x = ref_map((long)i + oi - (long)q, ma, pad);
                        long y = ref_map((long)j + oj - (long)l, na, pad);
                        if (x < 0 || y < 0) continue;
                        size_t kq = corr ? mk - 1 - q : q, kl = corr ? nk - 1 - l : l;
                        acc += a->v[(size_t)x + (size_t)ma * ((size_t)y + (size_t)na * s)] *
                               k->v[kq + mk * kl];
                    }
                if (normalize) {
                    if (cimag(sum) == 0)
                        acc = mkc(creal(acc) / creal(sum), cimag(acc) / creal(sum));
                    else
                        acc /= sum;
                }
                c.v[i + c.dims[0] * (j + c.dims[1] * s)] = acc;
            }
    return c;
}

/* Compares the device result with the reference: class, size, then relative error of the whole
 * array (single 1e-5, double 1e-12, as the Octave checks); non-finite values must match. */
static int compare(clip_app *app, clip_data *out, clip_type want, const host_arr *ref, const char *what) {
    int bad = 0;
    if (clip_data_type(out) != want) {
        fprintf(stderr, "%s: type %s, want %s\n", what, clip_type_name(clip_data_type(out)), clip_type_name(want));
        return 1;
    }
    for (int i = 0; i < 3; i++)
        if (clip_data_dim(out, i) != ref->dims[i]) {
            fprintf(stderr, "%s: dim %d is %zu, want %zu\n", what, i, clip_data_dim(out, i), ref->dims[i]);
            return 1;
        }
    const void *h = NULL;
    if (clip_data_host(out, &h) != CLIP_OK) {
        fprintf(stderr, "%s: read failed: %s\n", what, clip_app_last_error(app));
        return 1;
    }
    int cx = clip_type_is_complex(want), dbl = clip_type_is_double(want);
    double num = 0, den = 0;
    size_t n = numel3(ref->dims);
    for (size_t i = 0; i < n; i++) {
        size_t re = cx ? 2 * i : i;
        double xr = dbl ? ((const double *)h)[re] : ((const float *)h)[re];
        double xi = cx ? (dbl ? ((const double *)h)[re + 1] : ((const float *)h)[re + 1]) : 0.0;
        double rr = creal(ref->v[i]), ri = cimag(ref->v[i]);
        if (!isfinite(rr) || !isfinite(ri) || !isfinite(xr) || !isfinite(xi)) {
            int same = (isnan(rr) == isnan(xr)) && (isnan(ri) == isnan(xi) || !cx) &&
                       (!isinf(rr) || xr == rr) && (!cx || !isinf(ri) || xi == ri);
            if (!same && !bad++)
                fprintf(stderr, "%s: element %zu is %g%+gi, want %g%+gi\n", what, i, xr, xi, rr, ri);
            continue;
        }
        num += (xr - rr) * (xr - rr) + (xi - ri) * (xi - ri);
        den += rr * rr + ri * ri;
    }
    double tol = dbl ? 1e-12 : 1e-5, err = den > 0 ? sqrt(num / den) : sqrt(num);
    if (!(err <= tol)) {
        fprintf(stderr, "%s: relative error %g > %g\n", what, err, tol);
        bad++;
    }
    return bad != 0;
}

typedef struct conv_case {
    clip_type ta, tk;
    size_t a[3], k[2];
    int shape, pad, corr, normalize;
} conv_case;

/* Runs one case with the variant forced to `variant` ("auto", "local", "global"); checks values
 * and, when forced, that the variant reported is the one asked for. */
static void run_case(clip_app *app, const conv_case *cc, const char *variant, unsigned long long seed) {
    host_arr ha, hk;
    clip_data *a = make_data(app, cc->ta, cc->a[0], cc->a[1], cc->a[2], seed, &ha);
    clip_data *k = make_data(app, cc->tk, cc->k[0], cc->k[1], 1, seed * 7 + 1, &hk);
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_choice(p, "shape", shape_name[cc->shape]));
    CHECK_OK(app, clip_process_set_choice(p, "pad", pad_name[cc->pad]));
    CHECK_OK(app, clip_process_set_bool(p, "correlate", cc->corr));
    CHECK_OK(app, clip_process_set_bool(p, "normalize", cc->normalize));
    CHECK_OK(app, clip_process_set_choice(p, "variant", variant));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_data *out = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &out));
    host_arr ref = ref_conv2(&ha, &hk, cc->shape, cc->pad, cc->corr, cc->normalize);
    char what[256];
    snprintf(what, sizeof what, "conv2 %s(%zux%zux%zu)*%s(%zux%zu) %s pad=%s corr=%d norm=%d variant=%s[%s]",
             clip_type_name(cc->ta), cc->a[0], cc->a[1], cc->a[2],
             clip_type_name(cc->tk), cc->k[0], cc->k[1], shape_name[cc->shape], pad_name[cc->pad],
             cc->corr, cc->normalize, variant, clip_process_variant(p));
    tu_checks++;
    if (out) tu_failures += compare(app, out, clip_type_promote(cc->ta, cc->tk), &ref, what);
    int empty_in = !ha.dims[0] || !ha.dims[1] || !ha.dims[2] || !hk.dims[0] || !hk.dims[1];
    if (strcmp(variant, "auto") && numel3(ref.dims) && !empty_in) {
        tu_checks++;
        if (strcmp(clip_process_variant(p), variant)) {
            tu_failures++;
            fprintf(stderr, "%s: variant reported '%s'\n", what, clip_process_variant(p));
        }
    }
    free(ref.v);
    free(ha.v);
    free(hk.v);
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

static void run_both_variants(clip_app *app, const conv_case *cc, unsigned long long seed) {
    run_case(app, cc, "local", seed);
    run_case(app, cc, "global", seed);
}

/* Every shape, orientation and variant for each filter size, on f64 with zero padding (one
 * program per filter size). */
static void test_sizes(clip_app *app) {
    static const size_t ks[][2] = {{1, 1}, {2, 2}, {3, 3}, {4, 3}, {1, 7}, {7, 1}, {5, 5}, {8, 6}, {19, 37}};
    static const size_t as[][2] = {{1, 1}, {17, 31}, {64, 64}};
    unsigned long long seed = 11;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (size_t ai = 0; ai < sizeof as / sizeof as[0]; ai++)
            for (int shape = FULL; shape <= VALID; shape++)
                for (int corr = 0; corr < 2; corr++) {
                    conv_case cc = {CLIP_F64, CLIP_F64, {as[ai][0], as[ai][1], 1}, {ks[ki][0], ks[ki][1]},
                                    shape, ZERO, corr, 0};
                    run_both_variants(app, &cc, seed++);
                }
}

/* Every pad mode with both orientations and shapes, including filters larger than A (the
 * padding then wraps or mirrors more than once). Unrolled builds of large filters cost seconds
 * on PoCL, so 8x6 runs with one pad mode only. */
static void test_pads(clip_app *app) {
    static const size_t ks[][2] = {{3, 3}, {4, 3}, {19, 37}, {8, 6}};
    unsigned long long seed = 101;
    for (int pad = REPLICATE; pad <= CIRCULAR; pad++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (int shape = FULL; shape <= VALID; shape++)
                for (int corr = 0; corr < 2; corr++) {
                    if (ks[ki][0] == 8 && pad != SYMMETRIC) continue;
                    conv_case cc = {CLIP_F64, CLIP_F64, {17, 31, 1}, {ks[ki][0], ks[ki][1]}, shape, pad, corr, 0};
                    run_both_variants(app, &cc, seed++);
                }
}

/* f32, c32, c64 and every mixed pair, with 3-D A (each slice filtered alike); then each type
 * with both variants (reusing those programs) and zero padding for the complex types. */
static void test_types(clip_app *app) {
    unsigned long long seed = 501;
    for (int ta = 0; ta < 4; ta++)
        for (int tk = 0; tk < 4; tk++) {
            conv_case cc = {all_types[ta], all_types[tk], {9, 11, 3}, {4, 3}, SAME, SYMMETRIC, tk % 2, 0};
            run_case(app, &cc, "auto", seed++);
        }
    for (int t = 0; t < 4; t++) {
        conv_case cc = {all_types[t], all_types[t], {64, 64, 1}, {4, 3}, FULL, SYMMETRIC, 1, 0};
        run_both_variants(app, &cc, seed++);
        cc.a[0] = 17, cc.a[1] = 31, cc.a[2] = 2, cc.shape = VALID, cc.corr = 0;
        run_both_variants(app, &cc, seed++);
        if (clip_type_is_complex(all_types[t])) {
            cc.shape = FULL, cc.pad = ZERO;
            run_both_variants(app, &cc, seed++);
        }
    }
}

static void test_normalize(clip_app *app) {
    unsigned long long seed = 901;
    for (int t = 0; t < 4; t++) {
        conv_case cc = {CLIP_F64, all_types[t], {17, 31, 1}, {3, 3}, SAME, REPLICATE, 0, 1};
        run_both_variants(app, &cc, seed++);
    }
    /* A zero-sum filter (a derivative): Inf where the result is non-zero, NaN where it is 0. */
    double k[6] = {1, 0, -1, 2, 0, -2}, av[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    size_t kd[2] = {3, 2}, ad[2] = {4, 3};
    clip_data *a = NULL, *kk = NULL, *out = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, ad, av, &a));
    CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, kd, k, &kk));
    host_arr ha = {{4, 3, 1}, malloc(12 * sizeof(double complex))}, hk = {{3, 2, 1}, malloc(6 * sizeof(double complex))};
    for (int i = 0; i < 12; i++) ha.v[i] = av[i];
    for (int i = 0; i < 6; i++) hk.v[i] = k[i];
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_bool(p, "normalize", 1));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, kk));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &out));
    host_arr ref = ref_conv2(&ha, &hk, FULL, ZERO, 0, 1);
    int nans = 0, infs = 0;
    for (size_t i = 0; i < numel3(ref.dims); i++) nans += isnan(creal(ref.v[i])) != 0, infs += isinf(creal(ref.v[i])) != 0;
    CHECK(nans > 0 && infs > 0); /* the case exercises both */
    tu_checks++;
    tu_failures += compare(app, out, CLIP_F64, &ref, "normalize by a zero sum");
    free(ref.v), free(ha.v), free(hk.v);
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(kk);
}

/* Inf and NaN in A spread as in MATLAB's sums; the kernels must never multiply a value of A by a
 * filter position past the end of K (0 * Inf would add a NaN). */
static void test_nonfinite(clip_app *app) {
    static const size_t ks[][2] = {{3, 3}, {19, 37}};
    for (size_t ki = 0; ki < 2; ki++)
        for (int pad = ZERO; pad <= SYMMETRIC; pad += 2)
            for (int v = 0; v < 2; v++) {
                host_arr ha, hk;
                clip_data *a = make_data(app, CLIP_F64, 23, 45, 1, 77 + ki, &ha);
                clip_data *k = make_data(app, CLIP_F64, ks[ki][0], ks[ki][1], 1, 78 + ki, &hk);
                double *h = NULL;
                CHECK_OK(app, clip_data_host_write(a, (void **)&h));
                h[4 + 23 * 6] = INFINITY, ha.v[4 + 23 * 6] = INFINITY;
                h[20 + 23 * 40] = NAN, ha.v[20 + 23 * 40] = NAN;
                clip_process *p = NULL;
                CHECK_OK(app, clip_process_create(app, "conv2", &p));
                CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
                CHECK_OK(app, clip_process_set_choice(p, "pad", pad_name[pad]));
                CHECK_OK(app, clip_process_set_choice(p, "variant", v ? "global" : "local"));
                CHECK_OK(app, clip_process_set_input(p, 0, a));
                CHECK_OK(app, clip_process_set_input(p, 1, k));
                CHECK_OK(app, clip_process_init(p));
                CHECK_OK(app, clip_process_launch(p));
                clip_data *out = NULL;
                CHECK_OK(app, clip_process_output(p, 0, &out));
                host_arr ref = ref_conv2(&ha, &hk, SAME, pad, 0, 0);
                char what[128];
                snprintf(what, sizeof what, "Inf/NaN in A, K %zux%zu pad %s %s", ks[ki][0], ks[ki][1],
                         pad_name[pad], v ? "global" : "local");
                tu_checks++;
                if (out) tu_failures += compare(app, out, CLIP_F64, &ref, what);
                free(ref.v), free(ha.v), free(hk.v);
                clip_process_destroy(p);
                clip_data_destroy(a);
                clip_data_destroy(k);
            }
}

/* Empty A or K: sizes by MATLAB's formulas; an empty sum is 0 (NaN when normalized). */
static void test_empty(clip_app *app) {
    const conv_case cases[] = {
        {CLIP_F64, CLIP_F64, {0, 5, 1}, {3, 3}, FULL, ZERO, 0, 0},
        {CLIP_F64, CLIP_F64, {0, 5, 1}, {3, 3}, SAME, REPLICATE, 0, 0},
        {CLIP_F32, CLIP_F64, {4, 5, 1}, {0, 2}, SAME, SYMMETRIC, 0, 0},
        {CLIP_F64, CLIP_F64, {4, 5, 1}, {0, 2}, FULL, ZERO, 0, 1},
        {CLIP_F64, CLIP_F64, {2, 2, 1}, {3, 3}, VALID, ZERO, 0, 0},
        {CLIP_F64, CLIP_F64, {2, 5, 1}, {3, 3}, VALID, CIRCULAR, 1, 0},
        {CLIP_F64, CLIP_F64, {3, 4, 0}, {2, 2}, FULL, ZERO, 0, 0},
        {CLIP_C64, CLIP_F64, {5, 0, 2}, {3, 3}, FULL, REPLICATE, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(app, &cases[i], "auto", 1000 + i);
        run_case(app, &cases[i], "local", 1000 + i);
    }
}

static clip_process *conv2_with(clip_app *app, clip_data *a, clip_data *k) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    return p;
}

static void test_errors(clip_app *app) {
    host_arr ha, hk, hk3;
    clip_data *a = make_data(app, CLIP_F32, 6, 5, 1, 3, &ha);
    clip_data *k = make_data(app, CLIP_F32, 3, 3, 1, 4, &hk);
    clip_data *k3 = make_data(app, CLIP_F32, 3, 3, 2, 5, &hk3);
    clip_process *p = conv2_with(app, a, k3);
    CHECK_STATUS(app, clip_process_set_choice(p, "shape", "middle"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "'middle' is not one of");
    CHECK_STATUS(app, clip_process_set_choice(p, "pad", "mirror"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "mirror");
    CHECK_STATUS(app, clip_process_set_choice(p, "variant", "fft"), CLIP_ERR_BAD_CHOICE);
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "conv2: K must be 2-D, got 3x3x2");
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    /* The process and the app stay usable: fix the input and run. */
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_data *out = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &out));
    host_arr ref = ref_conv2(&ha, &hk, SAME, ZERO, 0, 0);
    tu_checks++;
    tu_failures += compare(app, out, CLIP_F32, &ref, "after a failed init");
    free(ref.v);
    clip_process_destroy(p);

    /* Forcing local where the tile cannot fit local memory is refused at init, before any build. */
    const clip_device_info *dev = clip_app_device(app);
    size_t side = 16;
    while (side * side * 8 <= dev->local_mem && side < 8192) side *= 2;
    if (side * side * 8 > dev->local_mem) {
        size_t kd[2] = {side, side}, ad[2] = {2, 2};
        clip_data *big = NULL, *small = NULL;
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, kd, &big));
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, ad, &small));
        p = conv2_with(app, small, big);
        CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
        CHECK_OK(app, clip_process_set_choice(p, "variant", "local"));
        CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_UNSUPPORTED);
        CHECK_MSG(app, "variant local");
        clip_process_destroy(p);
        clip_data_destroy(big);
        clip_data_destroy(small);
    }
    free(ha.v), free(hk.v), free(hk3.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
    clip_data_destroy(k3);

    /* Double precision on a device without fp64 (simulated). */
    clip_criteria crit = {0};
    crit.disable_fp64 = 1;
    clip_app *app32 = NULL;
    if (clip_app_create(&app32, &crit) == CLIP_OK) {
        host_arr h1, h2;
        clip_data *a64 = make_data(app32, CLIP_F64, 4, 4, 1, 8, &h1);
        clip_data *k32 = make_data(app32, CLIP_F32, 2, 2, 1, 9, &h2);
        p = conv2_with(app32, a64, k32); /* single wins: the output is f32, but A must convert */
        CHECK_STATUS(app32, clip_process_init(p), CLIP_ERR_NO_FP64);
        CHECK_MSG(app32, "fp64");
        clip_process_destroy(p);
        p = conv2_with(app32, a64, a64);
        CHECK_STATUS(app32, clip_process_init(p), CLIP_ERR_NO_FP64);
        clip_process_destroy(p);
        free(h1.v), free(h2.v);
        clip_data_destroy(a64);
        clip_data_destroy(k32);
        clip_app_destroy(app32);
    }
}

static int run_cli(const char *args) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run conv2 %s 2>conv2_err.txt >conv2_out.txt", CLIP_TOOL, args);
    return system(cmd);
}

static int file_has(const char *path, const char *needle) {
    char buf[4096] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

/* The CLI on CFL files (always built in; complex single). */
static void test_cli(clip_app *app) {
    host_arr ha, hk, hk3;
    clip_data *a = make_data(app, CLIP_C32, 13, 10, 2, 21, &ha);
    clip_data *k = make_data(app, CLIP_C32, 4, 3, 1, 22, &hk);
    clip_data *k3 = make_data(app, CLIP_C32, 2, 2, 2, 23, &hk3);
    CHECK_OK(app, clip_save(app, "conv2_a.cfl", a));
    CHECK_OK(app, clip_save(app, "conv2_k.cfl", k));
    CHECK_OK(app, clip_save(app, "conv2_k3.cfl", k3));

    CHECK(run_cli("conv2_a.cfl conv2_k.cfl -o conv2_c.cfl --shape same --pad circular --correlate --time") == 0);
    CHECK(file_has("conv2_err.txt", "time conv2 "));
    CHECK(file_has("conv2_err.txt", "variant conv2 "));
    clip_data *c = NULL;
    CHECK_OK(app, clip_load(app, "conv2_c.cfl", &c));
    host_arr ref = ref_conv2(&ha, &hk, SAME, CIRCULAR, 1, 0);
    tu_checks++;
    if (c) tu_failures += compare(app, c, CLIP_C32, &ref, "CLI same circular corr");
    free(ref.v);
    clip_data_destroy(c);

    CHECK(run_cli("conv2_a.cfl conv2_k.cfl --shape middle") != 0);
    CHECK(file_has("conv2_err.txt", "shape 'middle' is not one of full|same|valid"));
    CHECK(run_cli("conv2_a.cfl conv2_k.cfl --pad mirror") != 0);
    CHECK(file_has("conv2_err.txt", "pad 'mirror' is not one of"));
    CHECK(run_cli("conv2_a.cfl conv2_k3.cfl -o conv2_c.cfl") != 0);
    CHECK(file_has("conv2_err.txt", "K must be 2-D, got 2x2x2"));
    free(ha.v), free(hk.v), free(hk3.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
    clip_data_destroy(k3);
}

/* conv2 -> scale -> conv2 on the device: after the inputs go up once, nothing comes back to the
 * host until the final result is read. */
static void test_chain(clip_app *app) {
    host_arr ha, hk;
    clip_data *a = make_data(app, CLIP_F32, 40, 33, 1, 31, &ha);
    clip_data *k = make_data(app, CLIP_F32, 3, 5, 1, 32, &hk);
    clip_process *c1 = conv2_with(app, a, k), *sc = NULL, *c2 = NULL;
    CHECK_OK(app, clip_process_set_choice(c1, "shape", "same"));
    CHECK_OK(app, clip_process_init(c1));
    clip_data *y1 = NULL, *y2 = NULL, *y3 = NULL;
    CHECK_OK(app, clip_process_output(c1, 0, &y1));
    CHECK_OK(app, clip_process_create(app, "scale", &sc));
    CHECK_OK(app, clip_process_set_real(sc, "a", 0.5));
    CHECK_OK(app, clip_process_set_real(sc, "b", 1.0));
    CHECK_OK(app, clip_process_set_input(sc, 0, y1));
    CHECK_OK(app, clip_process_init(sc));
    CHECK_OK(app, clip_process_output(sc, 0, &y2));
    c2 = conv2_with(app, y2, k);
    CHECK_OK(app, clip_process_set_choice(c2, "pad", "replicate"));
    CHECK_OK(app, clip_process_init(c2));
    CHECK_OK(app, clip_process_output(c2, 0, &y3));

    clip_transfer_stats t0, t1, t2;
    CHECK_OK(app, clip_app_transfer_stats(app, &t0));
    CHECK_OK(app, clip_process_launch(c1));
    CHECK_OK(app, clip_process_launch(sc));
    CHECK_OK(app, clip_process_launch(c2));
    CHECK_OK(app, clip_app_finish(app));
    CHECK_OK(app, clip_app_transfer_stats(app, &t1));
    CHECK(t1.to_host == t0.to_host);
    CHECK(t1.to_device - t0.to_device == 2); /* A and K, once each */
    host_arr r1 = ref_conv2(&ha, &hk, SAME, ZERO, 0, 0);
    for (size_t i = 0; i < numel3(r1.dims); i++) r1.v[i] = (float)(0.5 * creal(r1.v[i]) + 1.0);
    host_arr r2 = ref_conv2(&r1, &hk, FULL, REPLICATE, 0, 0);
    tu_checks++;
    tu_failures += compare(app, y3, CLIP_F32, &r2, "chain conv2 -> scale -> conv2");
    CHECK_OK(app, clip_app_transfer_stats(app, &t2));
    CHECK(t2.to_host - t1.to_host == 1); /* only the final read */
    free(r1.v), free(r2.v), free(ha.v), free(hk.v);
    clip_process_destroy(c1);
    clip_process_destroy(sc);
    clip_process_destroy(c2);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

int main(void) {
    clip_app *app = tu_app();
    test_errors(app);
    test_sizes(app);
    test_pads(app);
    test_types(app);
    test_normalize(app);
    test_nonfinite(app);
    test_empty(app);
    test_cli(app);
    test_chain(app);
    clip_app_destroy(app);
    return tu_finish("test_conv2");
}
