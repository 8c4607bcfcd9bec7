/* conv2's direct kernels against a plain double-precision loop that implements MATLAB's conv2
 * and imfilter's padding from their definitions (conv2_testutil.h): every type, shape, pad mode,
 * orientation and direct variant (local, global, block, rblock), each output within the
 * accuracy contract's bound; high-dynamic-range images; Inf and NaN in A and in K next to the
 * zero padding; empty inputs; errors through the API and the CLI; the tuning cache; a
 * device-only chain. The separable and FFT paths have their own programs. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2_testutil.h"

/* tu_quick(): every variant, pad mode, type and section still runs, on fewer filter sizes: each
 * size is a kernel build of its own per variant and pad mode, about a second under valgrind
 * even from PoCL's cache. 3x3 gives way to 4x3 (built for test_sizes and test_pads already),
 * 5x5 and 8x6 to the other 2-D unrolls; no 64x64 image past the small filters (the host
 * reference costs seconds there); two of the six shape and orientation pairs per pad mode and
 * filter. */
static int quick;

/* local, global and rblock; block too where `block` (each filter size is one more unrolled
 * program). */
static void run_variants(clip_app *app, const conv_case *cc, unsigned long long seed, int block) {
    run_case(app, cc, "local", seed);
    run_case(app, cc, "global", seed);
    run_case(app, cc, "rblock", seed);
    if (block) run_case(app, cc, "block", seed);
}

static void run_both_variants(clip_app *app, const conv_case *cc, unsigned long long seed) {
    run_variants(app, cc, seed, 0);
}

/* Every shape, orientation and variant for each filter size, on f64 with zero padding (one
 * program per filter size). */
static void test_sizes(clip_app *app) {
    static const size_t ks[][2] = {{1, 1}, {2, 2}, {3, 3}, {4, 3},  {1, 7},
                                   {7, 1}, {5, 5}, {8, 6}, {19, 37}};
    static const size_t as[][2] = {{1, 1}, {17, 31}, {64, 64}};
    unsigned long long seed = 11;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (size_t ai = 0; ai < sizeof as / sizeof as[0]; ai++)
            for (int shape = FULL; shape <= VALID; shape++)
                for (int corr = 0; corr < 2; corr++) {
                    /* quick: no 3x3, 5x5, 8x6 (2x2 and 4x3 are the 2-D unrolls) */
                    if (quick && (ki == 2 || ki == 6 || ki == 7 || (ai == 2 && ki > 3))) continue;
                    conv_case cc = {CLIP_F64,
                                    CLIP_F64,
                                    {as[ai][0], as[ai][1], 1},
                                    {ks[ki][0], ks[ki][1]},
                                    shape,
                                    ZERO,
                                    corr,
                                    0};
                    run_variants(app, &cc, seed++, 1);
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
                    /* quick: 4x3 and 19x37, two shape and orientation pairs each */
                    if (quick && (ki == 0 || ki == 3 || (shape + corr + pad + (int)ki) % 3))
                        continue;
                    conv_case cc = {CLIP_F64, CLIP_F64, {17, 31, 1}, {ks[ki][0], ks[ki][1]},
                                    shape,    pad,      corr,        0};
                    run_variants(app, &cc, seed++, ks[ki][0] == 19);
                }
}

/* f32, c32, c64 and every mixed pair, with 3-D A (each slice filtered alike); then each type
 * with both variants (reusing those programs) and zero padding for the complex types. */
static void test_types(clip_app *app) {
    unsigned long long seed = 501;
    for (int ta = 0; ta < 4; ta++)
        for (int tk = 0; tk < 4; tk++) {
            conv_case cc = {all_types[ta], all_types[tk], {9, 11, 3}, {4, 3},
                            SAME,          SYMMETRIC,     tk % 2,     0};
            run_case(app, &cc, "auto", seed++);
        }
    for (int t = 0; t < 4; t++) {
        conv_case cc = {all_types[t], all_types[t], {64, 64, 1}, {4, 3}, FULL, SYMMETRIC, 1, 0};
        run_variants(app, &cc, seed++, 1);
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
        conv_case cc = {CLIP_F64, all_types[t], {17, 31, 1}, {quick ? 4 : 3, 3},
                        SAME,     REPLICATE,    0,           1};
        run_variants(app, &cc, seed++, t == 1);
    }
    /* A zero-sum filter (a derivative): Inf where the result is non-zero, NaN where it is 0. */
    double k[6] = {1, 0, -1, 2, 0, -2}, av[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    size_t kd[2] = {3, 2}, ad[2] = {4, 3};
    clip_data *a = NULL, *kk = NULL, *out = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, ad, av, &a));
    CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, kd, k, &kk));
    host_arr ha = {{4, 3, 1}, malloc(12 * sizeof(double complex))},
             hk = {{3, 2, 1}, malloc(6 * sizeof(double complex))};
    for (int i = 0; i < 12; i++)
        ha.v[i] = av[i];
    for (int i = 0; i < 6; i++)
        hk.v[i] = k[i];
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
    for (size_t i = 0; i < numel3(ref.dims); i++)
        nans += isnan(creal(ref.v[i])) != 0, infs += isinf(creal(ref.v[i])) != 0;
    CHECK(nans > 0 && infs > 0); /* the case exercises both */
    tu_checks++;
    tu_failures += compare(app, out, CLIP_F64, &ref, "normalize by a zero sum");
    free(ref.v), free(ha.v), free(hk.v);
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(kk);
}

/* Inf and NaN in A spread as in MATLAB's sums; the kernels must never multiply a value of A by a
 * filter position past the end of K (0 * Inf would add a NaN). An Inf in K next to the zero
 * padding gives +-Inf as MATLAB (which sums over the overlap only), not the NaN of Inf * 0: the
 * groups whose window reaches the padding take the exact path (conv_skip), which the reference
 * checks on every border output, in every variant, for each shape. */
static void test_nonfinite(clip_app *app) {
    const size_t ks[][2] = {{quick ? 4 : 3, 3}, {19, 37}};
    static const char *const variants[] = {"local", "global", "block", "rblock"};
    for (size_t ki = 0; ki < 2; ki++)
        for (int pad = ZERO; pad <= SYMMETRIC; pad += 2)
            for (int v = 0; v < 4; v++) {
                host_arr ha, hk;
                clip_data *a = make_data(app, CLIP_F64, 23, 45, 1, 77 + ki, &ha);
                clip_data *k = make_data(app, CLIP_F64, ks[ki][0], ks[ki][1], 1, 78 + ki, &hk);
                double *h = NULL;
                CHECK_OK(app, clip_data_host_write(a, (void **)&h));
                h[4 + 23 * 6] = INFINITY, ha.v[4 + 23 * 6] = INFINITY;
                h[20 + 23 * 40] = NAN, ha.v[20 + 23 * 40] = NAN;
                conv_case cc = {CLIP_F64, CLIP_F64, {23, 45, 1}, {ks[ki][0], ks[ki][1]},
                                SAME,     pad,      0,           0};
                clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, variants[v], "off", 0));
                c2_release(&ha, &hk, a, k);
            }
    /* Inf and -Inf in K, A without zeros: the reference has +-Inf along the borders and no NaN
     * there; normalize divides those by an infinite sum (NaN, as MATLAB). */
    for (size_t ki = 0; ki < 2; ki++)
        for (int shape = FULL; shape <= VALID; shape++)
            for (int v = 0; v < 4; v++) {
                host_arr ha, hk;
                clip_data *a = make_data(app, CLIP_F64, 23, 45, 1, 91 + ki, &ha);
                for (size_t i = 0; i < numel3(ha.dims); i++)
                    ha.v[i] = 1.5 + creal(ha.v[i]);
                clip_data_destroy(a);
                a = c2_upload(app, CLIP_F64, &ha);
                clip_data *k = make_data(app, CLIP_F64, ks[ki][0], ks[ki][1], 1, 92 + ki, &hk);
                double *h = NULL;
                CHECK_OK(app, clip_data_host_write(k, (void **)&h));
                h[0] = INFINITY, hk.v[0] = INFINITY;
                if (ki) h[40] = -INFINITY, hk.v[40] = -INFINITY;
                for (int norm = 0; norm < 2; norm++) {
                    conv_case cc = {CLIP_F64, CLIP_F64, {23, 45, 1}, {ks[ki][0], ks[ki][1]},
                                    shape,    ZERO,     v % 2,       norm};
                    if (norm && (v != 0 || shape != SAME)) continue;
                    if (!norm && !ki && v == 0 && shape == FULL) {
                        host_arr ref = ref_conv2(&ha, &hk, FULL, ZERO, 0, 0);
                        int infs = 0, nans = 0;
                        for (size_t i = 0; i < numel3(ref.dims); i++)
                            infs += isinf(creal(ref.v[i])) != 0,
                                nans += isnan(creal(ref.v[i])) != 0;
                        CHECK(infs > 0 && nans == 0); /* the case exercises the border */
                        free(ref.v);
                    }
                    clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, variants[v], "off", 0));
                }
                c2_release(&ha, &hk, a, k);
            }
}

static clip_process *conv2_with(clip_app *app, clip_data *a, clip_data *k) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    return p;
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
    /* The sizes themselves, from MATLAB's documented rules (full: max([ma+mk-1, ma, mk]),
     * valid: max(ma-max(0, mk-1), 0)), written out rather than taken from ref_size. */
    static const struct {
        size_t a[2], k[2];
        const char *shape;
        size_t c[2];
    } sizes[] = {
        {{0, 5}, {3, 3}, "full", {3, 7}},  {{4, 5}, {0, 2}, "full", {4, 6}},
        {{0, 3}, {2, 2}, "full", {2, 4}},  {{0, 0}, {0, 0}, "full", {0, 0}},
        {{4, 5}, {0, 0}, "valid", {4, 5}}, {{4, 5}, {0, 3}, "valid", {4, 3}},
        {{0, 5}, {3, 3}, "valid", {0, 3}}, {{4, 5}, {0, 2}, "same", {4, 5}},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        clip_data *a = NULL, *k = NULL, *out = NULL;
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, sizes[i].a, &a));
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, sizes[i].k, &k));
        clip_process *p = conv2_with(app, a, k);
        CHECK_OK(app, clip_process_set_choice(p, "shape", sizes[i].shape));
        CHECK_OK(app, clip_process_init(p));
        CHECK_OK(app, clip_process_launch(p));
        CHECK_OK(app, clip_process_output(p, 0, &out));
        tu_checks++;
        if (clip_data_dim(out, 0) != sizes[i].c[0] || clip_data_dim(out, 1) != sizes[i].c[1]) {
            fprintf(stderr, "FAIL empty sizes: %zux%zu by %zux%zu %s gave %zux%zu, want %zux%zu\n",
                    sizes[i].a[0], sizes[i].a[1], sizes[i].k[0], sizes[i].k[1], sizes[i].shape,
                    clip_data_dim(out, 0), clip_data_dim(out, 1), sizes[i].c[0], sizes[i].c[1]);
            tu_failures++;
        }
        clip_process_destroy(p);
        clip_data_destroy(a), clip_data_destroy(k);
    }
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
    CHECK_STATUS(app, clip_process_set_choice(p, "variant", "fast"), CLIP_ERR_BAD_CHOICE);
    CHECK_MSG(app, "'fast' is not one of auto|local|global|block|fft");
    CHECK_STATUS(app, clip_process_set_choice(p, "separable", "yes"), CLIP_ERR_BAD_CHOICE);
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
    while (side * side * 8 <= dev->local_mem && side < 8192)
        side *= 2;
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
        CHECK_OK(app, clip_process_set_choice(p, "variant", "block"));
        CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_UNSUPPORTED);
        CHECK_MSG(app, "variant block: a ");
        CHECK_MSG(app, "does not fit");
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
    return c2_run_tool("conv2", "conv2", args);
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

    CHECK(run_cli("conv2_a.cfl conv2_k.cfl -o conv2_c.cfl --shape same --pad circular --correlate "
                  "--time") == 0);
    CHECK(tu_file_has("conv2_err.txt", "time conv2 "));
    CHECK(tu_file_has("conv2_err.txt", "variant conv2 "));
    CHECK(run_cli("conv2_a.cfl conv2_k.cfl -o conv2_d.cfl --variant block --time") == 0);
    CHECK(tu_file_has("conv2_err.txt", "variant conv2 block "));
    CHECK_TOOL_FAILS("conv2", "run conv2 conv2_a.cfl conv2_k.cfl --variant fast",
                     "variant 'fast' is not one of auto|local|global|block|fft");
    host_arr ref = ref_conv2(&ha, &hk, SAME, CIRCULAR, 1, 0);
    c2_check_file(app, "conv2_c.cfl", &ref, "CLI same circular corr");
    free(ref.v);

    CHECK_TOOL_FAILS("conv2", "run conv2 conv2_a.cfl conv2_k.cfl --shape middle",
                     "shape 'middle' is not one of full|same|valid");
    CHECK_TOOL_FAILS("conv2", "run conv2 conv2_a.cfl conv2_k.cfl --pad mirror",
                     "pad 'mirror' is not one of");
    CHECK_TOOL_FAILS("conv2", "run conv2 conv2_a.cfl conv2_k3.cfl -o conv2_c.cfl",
                     "K must be 2-D, got 2x2x2");
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
    tu_launch_all(app, (clip_process *[]){c1, sc, c2}, 3, &t0, &t1);
    CHECK(t1.to_host == t0.to_host);
    CHECK(t1.to_device - t0.to_device == 2); /* A and K, once each */
    host_arr r1 = ref_conv2(&ha, &hk, SAME, ZERO, 0, 0);
    for (size_t i = 0; i < numel3(r1.dims); i++)
        r1.v[i] = (float)(0.5 * creal(r1.v[i]) + 1.0);
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

/* The tuning cache steers auto: an entry for this device, driver, type and filter size names the
 * variant and its tile (the reported variant shows both), an exact-size key wins over the
 * largest-side one, and values that do not parse or cannot run are ignored (auto's own choice,
 * correct results either way). */
static void test_tuning(clip_app *app) {
    const char *path = "conv2_tuning.txt";
    static const char *const entries[][2] = {
        {"f64-k5", "global:2,1,4,1"},   {"f64-k5x4", "block:16,2,1,4"},
        {"f64-k6x6", "block:16,2,9,9"}, {"f64-k7x7", "local:32,8"},
        {"f32-k5x4", "local:16,4,4"},   {"f32-k3x5", "rblock:2,4,4"},
        {"f32-k6x6", "rblock:8,8"}};
    remove(path);
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
        tu_tuning_line(app, path, "conv2", entries[i][0], entries[i][1]);
    setenv("CLIP_TUNING_CACHE", path, 1);
    static const struct {
        clip_type t;
        size_t mk, nk;
        const char *want; /* the reported variant's start, or NULL for auto's own choice */
    } cases[] = {
        {CLIP_F64, 5, 4, "block 16x2 1x4 k5x4"}, /* exact key */
        {CLIP_F64, 5, 3, "global 2x1 1x4 k5x3"}, /* largest-side key */
        {CLIP_F64, 6, 6, NULL},                  /* 81 accumulators: refused */
        {CLIP_F64, 7, 7, NULL},                  /* malformed: refused */
        {CLIP_F32, 5, 4, "local 16x4 1x4 k5x4"},
        {CLIP_F32, 3, 5, "rblock 2x4x4 k3x5"}, /* ri, rj, vw */
        {CLIP_F32, 6, 6, NULL},                /* 64 vector accumulators: refused */
    };
    char auto_variant[64] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        conv_case cc = {cases[i].t, cases[i].t, {30, 20, 1}, {cases[i].mk, cases[i].nk},
                        SAME,       REPLICATE,  0,           0};
        host_arr ha, hk;
        clip_data *a = make_data(app, cc.ta, 30, 20, 1, 300 + i, &ha);
        clip_data *k = make_data(app, cc.tk, cc.k[0], cc.k[1], 1, 400 + i, &hk);
        clip_process *p = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 0);
        const char *v = clip_process_variant(p);
        if (cases[i].want) {
            CHECK(!strcmp(v, cases[i].want));
        } else {
            /* auto's own choice: the same as without the cache */
            unsetenv("CLIP_TUNING_CACHE");
            clip_process *q = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 0);
            snprintf(auto_variant, sizeof auto_variant, "%s", clip_process_variant(q));
            CHECK(!strcmp(v, auto_variant));
            clip_process_destroy(q);
            setenv("CLIP_TUNING_CACHE", path, 1);
        }
        if (strcmp(v, cases[i].want ? cases[i].want : auto_variant))
            fprintf(stderr, "tuning case %zu: variant '%s'\n", i, v);
        clip_process_destroy(p);
        c2_release(&ha, &hk, a, k);
    }
    unsetenv("CLIP_TUNING_CACHE");
    remove(path);
}

/* On a CPU, row filters of up to 7 taps run global where the image and the result outgrow the
 * device's cache and rblock within it; 11 taps stay on rblock (processes/conv2_choose.c,
 * cpu_direct). The image's side is the smallest whose two f32 copies fill the cache; at twice
 * that area every row filter goes to global (15 and 31 taps here; 31 stays on rblock at a
 * quarter of the cache). A 512^2 f64 image with a 1x63 filter runs rblock (its border copies
 * cost what f32's do). Outside quick mode each case also runs and is checked against the
 * reference. */
static void test_row_stream(clip_app *app) {
    const clip_device_info *dev = clip_app_device(app);
    if (dev->type != CLIP_DEVICE_CPU || !dev->global_cache || dev->global_cache > (64u << 20))
        return;
    size_t big = 1;
    while (2 * big * big * sizeof(float) < dev->global_cache)
        big++;
    static const struct {
        clip_type t;
        size_t side; /* 0: big, 1: big / 2, 2: far (twice the cache), else the side itself */
        size_t taps;
        const char *want;
    } cases[] = {{CLIP_F32, 0, 3, "global"},  {CLIP_F32, 0, 7, "global"},
                 {CLIP_F32, 0, 11, "rblock"}, {CLIP_F32, 1, 3, "rblock"},
                 {CLIP_F32, 2, 15, "global"}, {CLIP_F32, 2, 31, "global"},
                 {CLIP_F32, 1, 31, "rblock"}, {CLIP_F64, 512, 63, "rblock"}};
    const size_t far = (size_t)ceil(big * sqrt(2.0));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const size_t side = cases[i].side;
        const size_t n = side == 0 ? big : side == 1 ? big / 2 : side == 2 ? far : side;
        const clip_type t = cases[i].t;
        conv_case cc = {t, t, {n, n, 1}, {1, cases[i].taps}, SAME, ZERO, 0, 0};
        host_arr ha, hk;
        clip_data *a = make_data(app, t, n, n, 1, 500 + i, &ha);
        clip_data *k = make_data(app, t, 1, cases[i].taps, 1, 600 + i, &hk);
        clip_process *p = NULL;
        if (quick) {
            p = c2_process(app, "conv2", &cc, "auto");
            CHECK_OK(app, clip_process_set_input(p, 0, a));
            CHECK_OK(app, clip_process_set_input(p, 1, k));
            CHECK_OK(app, clip_process_init(p));
        } else {
            p = c2_run(app, a, &ha, k, &hk, &cc, "auto", "auto", 0);
        }
        const char *v = clip_process_variant(p);
        const int ok = v && !strncmp(v, cases[i].want, strlen(cases[i].want));
        if (!ok)
            fprintf(stderr, "%zux%zu %s 1x%zu: variant '%s', want %s\n", n, n, clip_type_name(t),
                    cases[i].taps, v ? v : "(none)", cases[i].want);
        CHECK(ok);
        clip_process_destroy(p);
        c2_release(&ha, &hk, a, k);
    }
}

/* The accuracy contract (processes/conv2.c, "accuracy"): a 1e-3-scale single image with one
 * bright 1e6 block, a random filter, 'same'. Every output of the default auto must be within
 * 16 * eps * (|A| conv |K|) of the exact result, even beside the block's 1e6 values; variant fft
 * (normwise errors) must miss that bound far from the block, or this image would not tell the two
 * apart. The case is 600^2 with a 40^2 block and 31x31; quick mode shrinks it. */
static void test_accuracy_contract(clip_app *app) {
    const size_t n = quick ? 96 : 600, blk = quick ? 8 : 40, kn = quick ? 9 : 31;
    host_arr ha, hk, habs, hkabs;
    unsigned long long seed = 2027;
    ha.dims[0] = ha.dims[1] = n, ha.dims[2] = 1;
    ha.v = malloc(n * n * sizeof *ha.v);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            int bright = i >= n / 4 && i < n / 4 + blk && j >= n / 4 && j < n / 4 + blk;
            ha.v[i + j * n] = bright ? 1e6 : 1e-3 * (1.5 + tu_rand(&seed));
        }
    clip_data *a = c2_upload(app, CLIP_F32, &ha);
    clip_data *k = make_data(app, CLIP_F32, kn, kn, 1, 77, &hk);
    /* |A| conv |K|: the direct-summation error scale at each output. */
    habs = ha, hkabs = hk;
    habs.v = malloc(n * n * sizeof *habs.v), hkabs.v = malloc(kn * kn * sizeof *hkabs.v);
    for (size_t i = 0; i < n * n; i++) habs.v[i] = cabs(ha.v[i]);
    for (size_t i = 0; i < kn * kn; i++) hkabs.v[i] = cabs(hk.v[i]);
    host_arr ref = ref_conv2(&ha, &hk, SAME, ZERO, 0, 0);
    host_arr bound = ref_conv2(&habs, &hkabs, SAME, ZERO, 0, 0);
    /* fft last: the only one expected to miss the bound */
    const char *variants[] = {"auto", "rblock", "global", "fft"};
    const int nv = 4, fft = 3;
    for (int v = 0; v < nv; v++) {
        clip_process *p = NULL;
        CHECK_OK(app, clip_process_create(app, "conv2", &p));
        CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
        CHECK_OK(app, clip_process_set_choice(p, "variant", variants[v]));
        CHECK_OK(app, clip_process_set_input(p, 0, a));
        CHECK_OK(app, clip_process_set_input(p, 1, k));
        clip_status st = clip_process_init(p);
        if (v == fft && st == CLIP_ERR_UNSUPPORTED) { /* built without clFFT */
            clip_process_destroy(p);
            break;
        }
        CHECK_OK(app, st);
        CHECK_OK(app, clip_process_launch(p));
        clip_data *out = NULL;
        const float *c = NULL;
        CHECK_OK(app, clip_process_output(p, 0, &out));
        CHECK_OK(app, clip_data_host(out, (const void **)&c));
        double worst = 0; /* largest error in units of eps * (|A| conv |K|) */
        for (size_t i = 0; c && i < n * n; i++) {
            double e = fabs(c[i] - creal(ref.v[i])) / (FLT_EPSILON * creal(bound.v[i]));
            if (!(e <= worst)) worst = e;
        }
        printf("test_conv2: accuracy %zu^2 with a %zu^2 block of 1e6, %zux%zu same, %s (%s): "
               "worst error %.3g eps * (|A| conv |K|)\n",
               n, blk, kn, kn, variants[v], clip_process_variant(p), worst);
        tu_checks++;
        if (v != fft ? !(worst <= 16) : !(worst > 16)) {
            tu_failures++;
            fprintf(stderr, "accuracy contract: %s worst %.3g, want %s 16\n", variants[v], worst,
                    v != fft ? "<=" : ">");
        }
        clip_process_destroy(p);
    }
    free(ha.v), free(hk.v), free(habs.v), free(hkabs.v), free(ref.v), free(bound.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* Issue 14's high-dynamic-range images, where an error relative to the image's largest values
 * would swamp the small outputs: a block of 1e6 on a 1e-3 background, impulses of +-1e6 on it, a
 * checkerboard of 1e6 and 1e-6, and a star field (background about 5, stars of 60000) under a
 * Gaussian. Each direct variant on each, every shape, pad, orientation and normalize, f64 and f32,
 * odd sizes, against the double reference output by output (c2_run: compare_elementwise, the
 * bound eps * (|A| conv |K|) at each output). Quick: rblock and global, a third of the pad,
 * shape and orientation combinations. */
static void test_dynamic_range(clip_app *app) {
    static const char *const variants[] = {"rblock", "global", "local", "block"};
    const size_t mk = 9, nk = 7;
    unsigned long long seed = 1401;
    for (int ti = 0; ti < 2; ti++)
        for (int kind = 0; kind < HDR_KINDS; kind++) {
            const clip_type t = ti ? CLIP_F32 : CLIP_F64;
            host_arr ha = {{61, 47, 1}, NULL}, hk = {{mk, nk, 1}, NULL};
            clip_data *a = NULL, *k = NULL;
            c2_hdr_data(app, t, kind, mk, nk, &seed, &ha, &hk, &a, &k);
            for (int pad = ZERO; pad <= CIRCULAR; pad++)
                for (int shape = FULL; shape <= VALID; shape++)
                    for (int corr = 0; corr < 2; corr++)
                        for (int norm = 0; norm < 2; norm++) {
                            if (quick && (pad + shape + corr + norm + kind) % 3) continue;
                            const conv_case cc = {t, t, {61, 47, 1}, {mk, nk}, shape, pad, corr, norm};
                            /* f32 and quick: the CPU kernels; f64 every variant */
                            const int nv = quick || ti ? 2 : 4;
                            for (int v = 0; v < nv; v++)
                                clip_process_destroy(
                                    c2_run(app, a, &ha, k, &hk, &cc, variants[v], "off", 0));
                        }
            c2_release(&ha, &hk, a, k);
        }
}

int main(void) {
    quick = tu_quick();
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
    test_tuning(app);
    test_row_stream(app);
    test_accuracy_contract(app);
    test_dynamic_range(app);
    clip_app_destroy(app);
    return tu_finish("test_conv2");
}
