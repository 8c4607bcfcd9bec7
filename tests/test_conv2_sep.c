/* conv2's separable path (two 1-D passes for a rank-one K) against the plain double-precision
 * reference (conv2_testutil.h) of the full 2-D filter: every type, shape, pad mode, orientation
 * and pass kernel; the rank-one test's tolerance (single accepts what double rejects); auto's
 * choice; errors through the API and the CLI; the transfers of a chain. Then conv2sep, MATLAB's
 * conv2(u, v, A), on the same passes, against the reference with K = u(:)*v(:).'. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2_testutil.h"

/* tu_quick(): every filter shape, pad mode, type pair and pass kernel still runs, with fewer
 * builds (each pass program costs about a second under valgrind even from PoCL's cache): two pad
 * modes per filter shape, two of the six shape and orientation pairs per filter and pad mode,
 * and each forced pass kernel on one real and one complex type (test_conv2 runs each direct
 * kernel on every type). */
static int quick;

/* K = col * row.' + eps2 * x * y.' (rank one when eps2 = 0) of type t, complex factors for complex
 * types; h holds the stored (rounded) values. */
static clip_data *make_k(clip_app *app, clip_type t, size_t mk, size_t nk, double eps2,
                         unsigned long long seed, host_arr *h) {
    int cx = clip_type_is_complex(t);
    double complex *f = malloc((2 * mk + 2 * nk) * sizeof *f);
    for (size_t i = 0; i < 2 * (mk + nk); i++) {
        double re = tu_rand(&seed), im = cx ? tu_rand(&seed) : 0.0;
        f[i] = mkc(re, im);
    }
    const double complex *col = f, *row = f + mk, *x = row + nk, *y = x + mk;
    h->dims[0] = mk, h->dims[1] = nk, h->dims[2] = 1;
    h->v = malloc((mk * nk > 0 ? mk * nk : 1) * sizeof(double complex));
    for (size_t j = 0; j < nk; j++)
        for (size_t i = 0; i < mk; i++)
            h->v[i + j * mk] = col[i] * row[j] + eps2 * x[i] * y[j];
    free(f);
    return c2_upload(app, t, h);
}

static void run_sep(clip_app *app, const conv_case *cc, const char *variant, const char *sep,
                    unsigned long long seed) {
    host_arr ha, hk;
    clip_data *a = make_data(app, cc->ta, cc->a[0], cc->a[1], cc->a[2], seed, &ha);
    clip_data *k = make_k(app, cc->tk, cc->k[0], cc->k[1], 0, seed * 3 + 1, &hk);
    clip_process_destroy(c2_run(app, a, &ha, k, &hk, cc, variant, sep, 0));
    free(ha.v), free(hk.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* Shapes, pads, orientations, normalize and filter shapes (wider and taller than A too), f64. */
static void test_geometry(clip_app *app) {
    static const size_t ks[][2] = {{3, 3}, {1, 6}, {7, 1}, {6, 9}, {19, 37}};
    unsigned long long seed = 5;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int pad = ZERO; pad <= CIRCULAR; pad++)
            for (int shape = FULL; shape <= VALID; shape++)
                for (int corr = 0; corr < 2; corr++) {
                    /* each filter size and pad mode is two more programs: 19x37 with two pads */
                    if (ks[ki][0] == 19 && (pad == REPLICATE || pad == CIRCULAR)) continue;
                    if (quick && ((shape + corr + pad + (int)ki) % 3 ||
                                  (ki < 4 ? pad != (int)ki % 4 && pad != ((int)ki + 1) % 4
                                          : pad == REPLICATE || pad == CIRCULAR)))
                        continue;
                    conv_case cc = {CLIP_F64, CLIP_F64, {17, 31, 1}, {ks[ki][0], ks[ki][1]},
                                    shape,    pad,      corr,        shape == SAME && corr};
                    run_sep(app, &cc, "auto", "on", seed++);
                }
}

/* Every type pair (3-D A: each slice), and each kind of pass kernel forced. */
static void test_types(clip_app *app) {
    unsigned long long seed = 77;
    for (int ta = 0; ta < 4; ta++)
        for (int tk = 0; tk < 4; tk++) {
            conv_case cc = {all_types[ta], all_types[tk], {20, 13, 2}, {5, 4},
                            SAME,          SYMMETRIC,     tk % 2,      ta == tk};
            run_sep(app, &cc, "auto", "on", seed++);
        }
    static const char *const kinds[] = {"local", "global", "block"};
    for (int v = 0; v < 3; v++)
        for (int t = 0; t < 4; t++) {
            if (quick && (t + v) % 2) continue;
            conv_case cc = {all_types[t], all_types[t], {33, 17, 1}, {4, 6}, FULL, REPLICATE, 1, 0};
            run_sep(app, &cc, kinds[v], "on", seed++);
        }
}

/* All-zero K is rank zero: zeros (and the separable path takes it). */
static void test_zero_k(clip_app *app) {
    host_arr ha, hk = {{4, 5, 1}, calloc(20, sizeof(double complex))};
    clip_data *a = make_data(app, CLIP_F32, 9, 8, 1, 3, &ha);
    clip_data *k = c2_upload(app, CLIP_F32, &hk);
    conv_case cc = {CLIP_F32, CLIP_F32, {9, 8, 1}, {4, 5}, FULL, ZERO, 0, 0};
    clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, "auto", "on", 0));
    free(ha.v), free(hk.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* The rank-one tolerance follows the output's precision (MATLAB's rank with max(size) * eps * s1):
 * a second singular value of ~1e-9 * s1 is rank one for single, not for double. */
static void test_tolerance(clip_app *app) {
    host_arr ha32, ha64, hk;
    clip_data *a32 = make_data(app, CLIP_F32, 30, 25, 1, 11, &ha32);
    clip_data *a64 = make_data(app, CLIP_F64, 30, 25, 1, 11, &ha64);
    clip_data *k = make_k(app, CLIP_F64, 7, 6, 1e-9, 12, &hk);
    conv_case cc = {CLIP_F32, CLIP_F64, {30, 25, 1}, {7, 6}, SAME, ZERO, 0, 0};
    clip_process_destroy(c2_run(app, a32, &ha32, k, &hk, &cc, "auto", "on", 0));
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_choice(p, "separable", "on"));
    CHECK_OK(app, clip_process_set_input(p, 0, a64));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "conv2: separable on: K is not rank one (second singular value");
    /* auto falls back to the direct path and stays exact */
    CHECK_OK(app, clip_process_set_choice(p, "separable", "auto"));
    clip_process_destroy(p);
    cc.ta = CLIP_F64;
    p = c2_run(app, a64, &ha64, k, &hk, &cc, "auto", "auto", 0);
    CHECK(!variant_is(clip_process_variant(p), "separable"));
    clip_process_destroy(p);
    free(ha32.v), free(ha64.v), free(hk.v);
    clip_data_destroy(a32);
    clip_data_destroy(a64);
    clip_data_destroy(k);
}

/* auto takes the two passes where the cost model favours them, never for a K that is not rank
 * one, never with separable off. The sizes make the two passes clearly cheaper on the device:
 * CPUs 400^2 by 15x15 (30 against 225 multiply-adds per output; larger filters would go to the
 * FFT path, whose clFFT build takes long under PoCL), GPUs 2000^2 by 31x31 (smaller images are
 * launch-bound there). Only the choice is checked (init): the values of the path are above. */
static void test_auto(clip_app *app) {
    host_arr hk, hr;
    const int cpu = clip_app_device(app)->type == CLIP_DEVICE_CPU;
    const size_t side = cpu ? 400 : 2000, ks = cpu ? 15 : 31;
    size_t ad[2] = {side, side};
    clip_data *a = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, ad, &a));
    clip_data *k = make_k(app, CLIP_F32, ks, ks, 0, 22, &hk);
    clip_data *r = make_data(app, CLIP_F32, ks, ks, 1, 23, &hr);
    static const struct {
        int rank_one;
        const char *sep;
        int want;
    } cases[] = {{1, "auto", 1}, {1, "off", 0}, {0, "auto", 0}};
    for (int i = 0; i < 3; i++) {
        clip_process *p = NULL;
        CHECK_OK(app, clip_process_create(app, "conv2", &p));
        CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
        CHECK_OK(app, clip_process_set_choice(p, "separable", cases[i].sep));
        CHECK_OK(app, clip_process_set_input(p, 0, a));
        CHECK_OK(app, clip_process_set_input(p, 1, cases[i].rank_one ? k : r));
        CHECK_OK(app, clip_process_init(p));
        CHECK(variant_is(clip_process_variant(p), "separable") == cases[i].want);
        clip_process_destroy(p);
    }
    free(hk.v), free(hr.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
    clip_data_destroy(r);
}

static void test_errors(clip_app *app) {
    host_arr ha, hk;
    clip_data *a = make_data(app, CLIP_F64, 10, 9, 1, 31, &ha);
    clip_data *k = make_data(app, CLIP_F64, 3, 4, 1, 32, &hk);
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_choice(p, "separable", "on"));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "conv2: separable on: K is not rank one");
    CHECK_MSG(app, "exceeds max(size(K))*eps*s1");
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    double *h = NULL;
    CHECK_OK(app, clip_data_host_write(k, (void **)&h));
    for (int i = 0; i < 12; i++)
        h[i] = 1.0;
    h[5] = INFINITY;
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "K is not rank one (K holds Inf or NaN)");
    CHECK_OK(app, clip_process_set_choice(p, "variant", "fft"));
    h[5] = 1.0;
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "excludes variant fft");
    /* Usable again: K of ones is rank one. */
    CHECK_OK(app, clip_process_set_choice(p, "variant", "auto"));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK(variant_is(clip_process_variant(p), "separable"));
    for (int i = 0; i < 12; i++)
        hk.v[i] = 1.0;
    clip_data *out = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &out));
    host_arr ref = ref_conv2(&ha, &hk, FULL, ZERO, 0, 0);
    tu_checks++;
    tu_failures += compare(app, out, CLIP_F64, &ref, "ones after failed inits");
    free(ref.v), free(ha.v), free(hk.v);
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

static int run_cli_as(const char *process, const char *args) {
    return c2_run_tool("conv2s", process, args);
}

static int run_cli(const char *args) {
    return run_cli_as("conv2", args);
}

/* The CLI on CFL files (complex single): --separable on reports the passes, or the reason. */
static void test_cli(clip_app *app) {
    host_arr ha, hk, hr;
    clip_data *a = make_data(app, CLIP_C32, 21, 12, 1, 41, &ha);
    clip_data *k = make_k(app, CLIP_C32, 5, 3, 0, 42, &hk);
    clip_data *r = make_data(app, CLIP_C32, 5, 3, 1, 43, &hr);
    CHECK_OK(app, clip_save(app, "conv2s_a.cfl", a));
    CHECK_OK(app, clip_save(app, "conv2s_k.cfl", k));
    CHECK_OK(app, clip_save(app, "conv2s_r.cfl", r));
    CHECK(run_cli("conv2s_a.cfl conv2s_k.cfl -o conv2s_c.cfl --shape same --pad replicate "
                  "--separable on --time") == 0);
    CHECK(tu_file_has("conv2s_err.txt", "variant conv2 separable "));
    host_arr ref = ref_conv2(&ha, &hk, SAME, REPLICATE, 0, 0);
    c2_check_file(app, "conv2s_c.cfl", &ref, "CLI separable");
    free(ref.v);
    CHECK_TOOL_FAILS("conv2s", "run conv2 conv2s_a.cfl conv2s_r.cfl --separable on",
                     "K is not rank one");
    CHECK_TOOL_FAILS("conv2s", "run conv2 conv2s_a.cfl conv2s_k.cfl --separable maybe",
                     "separable 'maybe' is not one of auto|on|off");
    free(ha.v), free(hk.v), free(hr.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
    clip_data_destroy(r);
}

/* separable conv2 -> conv2 on the device: K is read on the host in init, so the launches upload A
 * and the two factors (K itself is not needed without normalize), and nothing comes back to the
 * host until the final read. */
static void test_chain(clip_app *app) {
    host_arr ha, hk;
    clip_data *a = make_data(app, CLIP_F32, 40, 33, 1, 51, &ha);
    clip_data *k = make_k(app, CLIP_F32, 5, 3, 0, 52, &hk);
    clip_data *y1 = NULL, *y2 = NULL;
    clip_process *c1 =
        c2_chain_conv2(app, a, k, (const char *[]){"separable", "on", "shape", "same", NULL}, &y1);
    clip_process *c2 = c2_chain_conv2(
        app, y1, k, (const char *[]){"separable", "on", "pad", "circular", NULL}, &y2);
    clip_transfer_stats t0, t1;
    tu_launch_all(app, (clip_process *[]){c1, c2}, 2, &t0, &t1);
    CHECK(t1.to_host == t0.to_host);
    CHECK(t1.to_device - t0.to_device == 5); /* A, then u and v of each process */
    host_arr r1 = ref_conv2(&ha, &hk, SAME, ZERO, 0, 0);
    host_arr r2 = ref_conv2(&r1, &hk, FULL, CIRCULAR, 0, 0);
    tu_checks++;
    tu_failures += compare(app, y2, CLIP_F32, &r2, "separable chain");
    free(r1.v), free(r2.v), free(ha.v), free(hk.v);
    clip_process_destroy(c1);
    clip_process_destroy(c2);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* ---- conv2sep: conv2(u, v, A) ---------------------------------------------------------- */

/* A vector of length n of type t, a column or (row) a row; h holds the stored values. */
static clip_data *make_vec(clip_app *app, clip_type t, size_t n, int row, unsigned long long seed,
                           host_arr *h) {
    return make_data(app, t, row ? 1 : n, row ? n : 1, 1, seed, h);
}

/* conv2sep of random u (length mu, a row when urow), v (nv, vrow) and A (ma x na x s) of the
 * given types, with the case's options. */
static void run_uv(clip_app *app, const clip_type ty[3], size_t mu, int urow, size_t nv, int vrow,
                   const size_t a[3], const conv_case *cc, const char *variant,
                   unsigned long long seed) {
    host_arr hu, hv, ha;
    clip_data *u = make_vec(app, ty[0], mu, urow, seed, &hu);
    clip_data *v = make_vec(app, ty[1], nv, vrow, seed * 5 + 3, &hv);
    clip_data *A = make_data(app, ty[2], a[0], a[1], a[2], seed * 11 + 7, &ha);
    c2sep_run(app, u, &hu, v, &hv, A, &ha, cc, variant);
    free(hu.v), free(hv.v), free(ha.v);
    clip_data_destroy(u), clip_data_destroy(v), clip_data_destroy(A);
}

/* Every shape, pad mode and orientation on odd sizes (filters longer than A too, length-1
 * filters, row and column vectors), normalize, 3-D A; f64. */
static void test_uv_geometry(clip_app *app) {
    static const clip_type f64[3] = {CLIP_F64, CLIP_F64, CLIP_F64};
    static const size_t geo[][5] = {
        /* ma, na, slices, mu, nv */
        {17, 33, 1, 5, 4}, {1, 1, 1, 3, 1}, {3, 65, 1, 1, 7}, {4, 3, 2, 7, 9}, {33, 17, 1, 2, 3}};
    unsigned long long seed = 1000;
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++)
        for (int shape = 0; shape < 3; shape++)
            for (int pad = 0; pad < 4; pad++) {
                if (quick && (pad + shape) % 2) continue;
                conv_case cc = {CLIP_F64, CLIP_F64, {0}, {0}, shape, pad, (int)(g + pad) % 2,
                                pad == 1 && shape != VALID};
                const size_t a[3] = {geo[g][0], geo[g][1], geo[g][2]};
                run_uv(app, f64, geo[g][3], (int)g % 2, geo[g][4], (int)(g / 2) % 2, a, &cc, "auto",
                       seed++);
            }
}

/* Every type, the three inputs alike and mixed (promoted as MATLAB), and each pass kernel forced
 * on a real and a complex type. */
static void test_uv_types(clip_app *app) {
    static const size_t a[3] = {19, 23, 1};
    unsigned long long seed = 2000;
    for (int t = 0; t < 4; t++) {
        const clip_type ty[3] = {all_types[t], all_types[t], all_types[t]};
        conv_case cc = {all_types[t], all_types[t], {0}, {0}, SAME, t % 4, t % 2, 0};
        run_uv(app, ty, 5, 0, 3, 1, a, &cc, "auto", seed++);
    }
    static const clip_type mixed[][3] = {{CLIP_C64, CLIP_F64, CLIP_F64},
                                         {CLIP_F64, CLIP_C64, CLIP_F32},
                                         {CLIP_F32, CLIP_F64, CLIP_C64},
                                         {CLIP_C32, CLIP_F32, CLIP_F64}};
    for (int m = 0; m < 4; m++) {
        conv_case cc = {CLIP_F64, CLIP_F64, {0}, {0}, m % 3, ZERO, 0, m == 1};
        run_uv(app, mixed[m], 4, m % 2, 5, 1, a, &cc, "auto", seed++);
    }
    static const char *const kernels[] = {"local", "global", "block"};
    static const clip_type kt[2] = {CLIP_F32, CLIP_C64};
    for (int k = 0; k < 3; k++)
        for (int t = 0; t < 2; t++) {
            const clip_type ty[3] = {kt[t], kt[t], kt[t]};
            conv_case cc = {kt[t], kt[t], {0}, {0}, k, k == 2 ? SYMMETRIC : ZERO, t, 0};
            const size_t a3[3] = {37, 29, 2};
            run_uv(app, ty, 7, t, 5, !t, a3, &cc, kernels[k], seed++);
        }
}

/* Empty u, v or A: the sizes of the formulas for K = u(:)*v(:).' with zeros, NaN when
 * normalizing by an empty K's zero sum; an Inf in u next to the zero padding gives Inf, as
 * Octave, on every pass kernel. */
static void test_uv_empty_nonfinite(clip_app *app) {
    static const size_t cases[][5] = {
        /* ma, na, mu, nv, shape */
        {5, 6, 0, 4, FULL}, {5, 6, 3, 0, SAME}, {0, 3, 2, 2, FULL}, {0, 3, 2, 2, SAME},
        {4, 0, 2, 3, VALID}, {2, 2, 3, 3, VALID}};
    static const clip_type ty[3] = {CLIP_F32, CLIP_F32, CLIP_C32};
    unsigned long long seed = 3000;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int norm = 0; norm < 2; norm++) {
            conv_case cc = {CLIP_F32, CLIP_F32, {0}, {0}, (int)cases[c][4], ZERO, 0, norm};
            const size_t a[3] = {cases[c][0], cases[c][1], 1};
            run_uv(app, ty, cases[c][2], 0, cases[c][3], 1, a, &cc, "auto", seed++);
        }
    static const char *const kernels[] = {"auto", "local", "global", "block"};
    for (int k = 0; k < 4; k++) {
        host_arr hu = {{2, 1, 1}, NULL}, hv = {{1, 2, 1}, NULL}, ha;
        hu.v = malloc(2 * sizeof(double complex)), hv.v = malloc(2 * sizeof(double complex));
        hu.v[0] = INFINITY, hu.v[1] = 1, hv.v[0] = hv.v[1] = 1;
        clip_data *u = c2_upload(app, CLIP_F64, &hu), *v = c2_upload(app, CLIP_F64, &hv);
        clip_data *A = make_data(app, CLIP_F64, 2, 2, 1, 77, &ha);
        for (size_t i = 0; i < 4; i++) ha.v[i] = 1;
        clip_data_destroy(A);
        A = c2_upload(app, CLIP_F64, &ha);
        conv_case cc = {CLIP_F64, CLIP_F64, {0}, {0}, FULL, ZERO, 0, 0};
        c2sep_run(app, u, &hu, v, &hv, A, &ha, &cc, kernels[k]);
        free(hu.v), free(hv.v), free(ha.v);
        clip_data_destroy(u), clip_data_destroy(v), clip_data_destroy(A);
    }
}

/* Errors: u or v not a vector, a variant conv2sep has not, a missing input; the CLI runs the
 * three-input form and names its errors. */
static void test_uv_errors_cli(clip_app *app) {
    size_t d32[2] = {3, 2}, d3[2] = {3, 1}, d222[3] = {2, 2, 2};
    clip_data *m = NULL, *u = NULL, *cube = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, d32, &m));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, d3, &u));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 3, d222, &cube));
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2sep", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, m));
    CHECK_OK(app, clip_process_set_input(p, 1, u));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    CHECK_OK(app, clip_process_set_input(p, 2, m));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "conv2sep: u must be a vector, got 3x2");
    CHECK_OK(app, clip_process_set_input(p, 0, u));
    CHECK_OK(app, clip_process_set_input(p, 1, cube));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "conv2sep: v must be a vector, got 2x2x2");
    CHECK_STATUS(app, clip_process_set_choice(p, "variant", "fft"), CLIP_ERR_BAD_CHOICE);
    clip_process_destroy(p);
    clip_data_destroy(m), clip_data_destroy(u), clip_data_destroy(cube);

    host_arr hu, hv, ha;
    clip_data *cu = make_data(app, CLIP_C32, 1, 5, 1, 61, &hu);
    clip_data *cv = make_data(app, CLIP_C32, 4, 1, 1, 62, &hv);
    clip_data *ca = make_data(app, CLIP_C32, 21, 12, 1, 63, &ha);
    CHECK_OK(app, clip_save(app, "conv2s_u.cfl", cu));
    CHECK_OK(app, clip_save(app, "conv2s_v.cfl", cv));
    CHECK_OK(app, clip_save(app, "conv2s_a.cfl", ca));
    CHECK(run_cli_as("conv2sep", "conv2s_u.cfl conv2s_v.cfl conv2s_a.cfl -o conv2s_c.cfl --shape "
                                 "same --correlate --time") == 0);
    CHECK(tu_file_has("conv2s_err.txt", "variant conv2sep separable "));
    host_arr k = ref_outer(&hu, &hv), ref = ref_conv2(&ha, &k, SAME, ZERO, 1, 0);
    c2_check_file(app, "conv2s_c.cfl", &ref, "CLI conv2sep");
    CHECK_TOOL_FAILS("conv2s", "run conv2sep conv2s_u.cfl conv2s_a.cfl -o conv2s_c.cfl",
                     "conv2sep takes 3 inputs, got 2");
    CHECK_TOOL_FAILS("conv2s", "run conv2sep conv2s_a.cfl conv2s_v.cfl conv2s_a.cfl",
                     "u must be a vector, got 21x12");
    free(hu.v), free(hv.v), free(ha.v), free(k.v), free(ref.v);
    clip_data_destroy(cu), clip_data_destroy(cv), clip_data_destroy(ca);
}

int main(void) {
    quick = tu_quick();
    clip_app *app = tu_app();
    test_errors(app);
    test_geometry(app);
    test_types(app);
    test_zero_k(app);
    test_tolerance(app);
    test_auto(app);
    test_cli(app);
    test_chain(app);
    test_uv_geometry(app);
    test_uv_types(app);
    test_uv_empty_nonfinite(app);
    test_uv_errors_cli(app);
    clip_app_destroy(app);
    return tu_finish("test_conv2_sep");
}
