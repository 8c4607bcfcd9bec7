/* conv2's tensor-core kernel (variant tensor: NVIDIA sm_90, f32) against the double-precision
 * reference of conv2_testutil.h, each output within the accuracy contract's bound (c2_run:
 * compare_elementwise): filter sizes across the kernel's ring widths (8, 16, 32 columns) and
 * column blocks (wider than 32), rows up to 64 (past 32 rows with a ring of 32, the Toeplitz
 * operand read from local memory), images of one and of several groups, every shape,
 * orientation, pad mode and normalize, N-D slices, Inf and NaN in A and in K (the NaN outputs'
 * exact recomputation), the high-dynamic-range images, subnormal and tiny operands (outside the
 * split's range: the groups' recomputation), auto's choice at a size where the
 * kernel pays, and the group shapes a tuning value chooses. Elsewhere it checks the refusal
 * (which names the reason) and reports itself skipped. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2_testutil.h"
#ifdef CLIP_FAULT_INJECTION
#include "../lib/fault.h"
#endif

static int quick;

/* Every shape and orientation of an f32 image r x c (x s) with an mk x nk filter. */
static void sizes_case(clip_app *app, size_t r, size_t c, size_t s, size_t mk, size_t nk, int pad,
                       int normalize, unsigned long long seed) {
    for (int shape = FULL; shape <= VALID; shape++)
        for (int corr = 0; corr < 2; corr++) {
            if (quick && (shape + corr) % 2) continue;
            const conv_case cc = {CLIP_F32, CLIP_F32, {r, c, s}, {mk, nk},
                                  shape,    pad,      corr,      normalize};
            run_case(app, &cc, "tensor", seed++);
        }
}

/* Filter widths 1..8 (ring 8), 9..16 (ring 16), 17..32 (ring 32), past 32 (blocks of 32); rows
 * 1..64 (K of the products 8..64; past 32 rows with a ring of 32 the operand in local memory,
 * rows in pairs); images smaller than a group, and of several groups with partial last ones
 * (groups are 64 or 128 rows by 256 columns). */
static void test_sizes(clip_app *app) {
    static const size_t ks[][2] = {{1, 1},   {3, 3},   {2, 7},   {7, 9},  {15, 15},
                                   {16, 17}, {31, 31}, {5, 33},  {33, 5}, {40, 47},
                                   {48, 40}, {64, 64}, {63, 65}, {1, 31}, {31, 1}};
    static const size_t as[][2] = {{1, 1}, {20, 37}, {131, 300}};
    unsigned long long seed = 21;
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (size_t ai = 0; ai < sizeof as / sizeof *as; ai++) {
            if (quick && ai == 2 && ks[ki][0] * ks[ki][1] > 300) continue;
            sizes_case(app, as[ai][0], as[ai][1], 1, ks[ki][0], ks[ki][1], ZERO, 0, seed);
            seed += 8;
        }
}

/* Groups wholly inside A, whose columns are fetched along another path than those of groups at
 * an edge (conv2_tensor.cl, TC_FETCH; 'valid' makes the first groups such): rows in pairs, 64
 * rows, from local memory. */
static void test_interior(clip_app *app) {
    static const size_t ks[][2] = {{15, 15}, {31, 31}, {24, 30}, {47, 40}};
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
        const conv_case cc = {CLIP_F32, CLIP_F32, {200, 300, 1}, {ks[ki][0], ks[ki][1]},
                              VALID,    ZERO,     (int)ki % 2,   (int)ki / 2 % 2};
        run_case(app, &cc, "tensor", 1201 + ki);
    }
}

/* The padding rules, normalize and slices of an N-D image. */
static void test_pads(clip_app *app) {
    unsigned long long seed = 301;
    for (int pad = ZERO; pad <= CIRCULAR; pad++)
        for (int norm = 0; norm < 2; norm++) {
            sizes_case(app, 70, 90, 1, 9, 12, pad, norm, seed);
            sizes_case(app, 67, 41, 3, 21, 35, pad, norm, seed + 8);
            sizes_case(app, 50, 70, 2, 33, 34, pad, norm, seed + 12);
            seed += 16;
        }
}

/* Inf and NaN in A and K: the outputs they reach come out NaN from the split products and are
 * recomputed by a direct sum with MATLAB's rules (over the overlap only, so an Inf in K next to
 * the zero padding gives +-Inf there; the reference checks every output). */
static void test_nonfinite(clip_app *app) {
    static const size_t ks[][2] = {{5, 7}, {31, 33}, {47, 40}};
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (int pad = ZERO; pad <= CIRCULAR; pad += 3)
            for (int shape = FULL; shape <= VALID; shape++) {
                host_arr ha, hk;
                clip_data *a = make_data(app, CLIP_F32, 80, 70, 1, 501 + ki, &ha);
                ha.v[4 + 80 * 6] = INFINITY, ha.v[50 + 80 * 40] = NAN, ha.v[79] = -INFINITY;
                clip_data_destroy(a);
                a = c2_upload(app, CLIP_F32, &ha);
                const conv_case cc = {CLIP_F32, CLIP_F32, {80, 70, 1}, {ks[ki][0], ks[ki][1]},
                                      shape,    pad,      0,           0};
                clip_data *k = make_data(app, CLIP_F32, ks[ki][0], ks[ki][1], 1, 601 + ki, &hk);
                clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, "tensor", "off", 0));
                clip_data_destroy(k);
                /* an Inf in K's corner and a FLT_MAX (its TF32 rounding overflows) in A */
                hk.v[0] = INFINITY;
                k = c2_upload(app, CLIP_F32, &hk);
                for (size_t i = 0; i < 80 * 70; i++)
                    if (isnan(creal(ha.v[i])) || isinf(creal(ha.v[i]))) ha.v[i] = 0.5;
                ha.v[30 + 80 * 30] = FLT_MAX;
                clip_data_destroy(a);
                a = c2_upload(app, CLIP_F32, &ha);
                clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, "tensor", "off", 0));
                c2_release(&ha, &hk, a, k);
            }
}

/* The high-dynamic-range images (a 1e6 block on a 1e-3 background, impulses, a checkerboard of
 * 1e6 and 1e-6, a star field under a Gaussian), 'same' and 'full', each output within the
 * contract's bound of the double reference. */
static void test_dynamic_range(clip_app *app) {
    static const size_t ks[][2] = {{9, 7}, {31, 31}, {40, 33}};
    unsigned long long seed = 1401;
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (int kind = 0; kind < HDR_KINDS; kind++) {
            const size_t mk = ks[ki][0], nk = ks[ki][1];
            host_arr ha = {{150, 290, 1}, NULL}, hk;
            clip_data *a = NULL, *k = NULL;
            c2_hdr_data(app, CLIP_F32, kind, mk, nk, &seed, &ha, &hk, &a, &k);
            for (int shape = FULL; shape <= SAME; shape++)
                for (int norm = 0; norm < 2; norm++) {
                    const conv_case cc = {CLIP_F32, CLIP_F32, {150, 290, 1}, {mk, nk},
                                          shape,    ZERO,     (int)ki % 2,   norm};
                    clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, "tensor", "off", 0));
                }
            c2_release(&ha, &hk, a, k);
        }
}

/* Values under the 3xTF32 split's range (kernels/tf32.cl: subnormals, and normals under 2^-112
 * whose small parts are subnormal): a subnormal image (~1e-39) against a filter ~1e10, an image
 * ~1e10 against a subnormal filter, an image ~1e-36, and a subnormal block in an image in range
 * against a filter ~1e12 (outputs of subnormal size have no relative accuracy in any fp32 sum);
 * the second pass, on A and K scaled into the split's range, computes the outputs of the groups
 * that hold them, each output within the contract's bound (issue 45: 16.5M of 16.8M outputs were
 * past it at 4096^2, 31x31). Filters of each kernel form (ring 8, 16, 32 from registers, 63x63
 * from local memory), 'full' with zero padding and 'same' with replicate padding, convolution and
 * correlation. */
static void test_subnormal(clip_app *app) {
    static const size_t ks[][2] = {{7, 9}, {15, 15}, {31, 31}, {63, 63}};
    static const struct {
        int ea, eb, block;
    } kinds[] = {{-130, 33, 0}, {33, -130, 0}, {-120, 30, 0}, {0, 40, 1}};
    unsigned long long seed = 1701;
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
        for (size_t d = 0; d < sizeof kinds / sizeof *kinds; d++) {
            /* (a smaller image past 31 taps: few groups, each recomputing by the plain sum) */
            const size_t mk = ks[ki][0], nk = ks[ki][1], r = mk > 31 ? 100 : 150,
                         c = mk > 31 ? 140 : 290;
            host_arr ha, hk;
            clip_data *a = make_data(app, CLIP_F32, r, c, 1, seed++, &ha);
            clip_data *k = make_data(app, CLIP_F32, mk, nk, 1, seed++, &hk);
            clip_data_destroy(a), clip_data_destroy(k);
            for (size_t i = 0; i < r * c; i++) {
                const int in_block = i % r >= 40 && i % r < 60 && i / r >= 100 && i / r < 130;
                const int e = kinds[d].block ? (in_block ? -135 : 0) : kinds[d].ea;
                ha.v[i] = (float)ldexp(creal(ha.v[i]), e);
            }
            for (size_t i = 0; i < mk * nk; i++)
                hk.v[i] = (float)ldexp(creal(hk.v[i]), kinds[d].eb);
            a = c2_upload(app, CLIP_F32, &ha);
            k = c2_upload(app, CLIP_F32, &hk);
            /* One kernel build a filter size (the builds are most of the part's time on the GPU,
             * which ran past 110 s with two): 'full' with zero padding for 7x9 and 31x31, 'same'
             * with replicate padding for 15x15 and 63x63 */
            const int shape = ki % 2 ? SAME : FULL;
            const conv_case cc = {CLIP_F32,      CLIP_F32, {r, c, 1},
                                  {mk, nk},      shape,    ki % 2 ? REPLICATE : ZERO,
                                  (int)(ki / 2), 0};
            clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, "tensor", "off", 0));
            printf("subnormal/tiny operands %zux%zu kind %zu: checked\n", mk, nk, d);
            c2_release(&ha, &hk, a, k);
        }
}

/* init of conv2 'same' on random data of type t (an r x c image, an mk x nk filter), `variant`,
 * separable off; what init took is copied to got (when it succeeds), and the status returned. */
static clip_status init_only(clip_app *app, clip_type t, size_t r, size_t c, size_t mk, size_t nk,
                             const char *variant, char *got, size_t cap) {
    host_arr ha, hk;
    clip_data *a = make_data(app, t, r, c, 1, 31, &ha);
    clip_data *k = make_data(app, t, mk, nk, 1, 32, &hk);
    const conv_case cc = {t, t, {r, c, 1}, {mk, nk}, SAME, ZERO, 0, 0};
    clip_process *p = c2_process(app, "conv2", &cc, variant);
    CHECK_OK(app, clip_process_set_choice(p, "separable", "off"));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    const clip_status s = clip_process_init(p);
    if (s == CLIP_OK) snprintf(got, cap, "%s", clip_process_variant(p));
    clip_process_destroy(p);
    c2_release(&ha, &hk, a, k);
    return s;
}

/* What the kernel refuses, with the reason: other types and filters past 64 rows. */
static void test_refusals(clip_app *app) {
    static const struct {
        clip_type t;
        size_t mk, nk;
        const char *why;
    } cases[] = {{CLIP_F64, 5, 5, "f32"}, {CLIP_C32, 5, 5, "f32"}, {CLIP_F32, 65, 3, "64 rows"}};
    char got[128];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_STATUS(
            app,
            init_only(app, cases[i].t, 90, 20, cases[i].mk, cases[i].nk, "tensor", got, sizeof got),
            CLIP_ERR_UNSUPPORTED);
        CHECK_MSG(app, cases[i].why);
    }
}

/* The tuning cache's tensor values choose the group's columns and rows (processes/conv2.c):
 * groups of 64 rows for a filter that takes its rows in pairs by default, pairs named where they
 * are the default, wider groups, pairs past 32 rows (the operand in local memory); a value the
 * kernel cannot run (groups of 256 rows) is ignored. Results checked as everywhere. */
static void test_tuned_rows(clip_app *app) {
    const char *path = "conv2_tc_tuning.txt";
    static const struct {
        size_t mk, nk;
        const char *value, *want; /* want: the reported variant's start; NULL: auto's own */
    } cases[] = {{31, 31, "tensor:256,64", "tensor 64x256 k31x31"},
                 {15, 13, "tensor:512,128", "tensor 128x512 k15x13"},
                 {15, 15, "tensor:256,128", "tensor 128x256 k15x15"},
                 {16, 16, "tensor:256,128", "tensor 128x256 k16x16"},
                 {40, 47, "tensor:256,128", "tensor 128x256 k40x47"},
                 {13, 7, "tensor:256,256", NULL}};
    remove(path);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char key[32];
        snprintf(key, sizeof key, "f32-k%zux%zu", cases[i].mk, cases[i].nk);
        tu_tuning_line(app, path, "conv2", key, cases[i].value);
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const conv_case cc = {CLIP_F32, CLIP_F32, {150, 290, 1}, {cases[i].mk, cases[i].nk},
                              SAME,     ZERO,     (int)(i % 2),  0};
        host_arr ha, hk;
        clip_data *a = make_data(app, CLIP_F32, 150, 290, 1, 701 + i, &ha);
        clip_data *k = make_data(app, CLIP_F32, cases[i].mk, cases[i].nk, 1, 801 + i, &hk);
        clip_process *q = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 0);
        char own[128];
        snprintf(own, sizeof own, "%s", clip_process_variant(q));
        clip_process_destroy(q);
        setenv("CLIP_TUNING_CACHE", path, 1);
        clip_process *p = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 0);
        unsetenv("CLIP_TUNING_CACHE");
        const char *v = clip_process_variant(p), *want = cases[i].want ? cases[i].want : own;
        tu_checks++;
        if (strncmp(v, want, strlen(want))) {
            tu_failures++;
            fprintf(stderr, "tuning '%s' for %zux%zu: variant '%s', wanted '%s'\n", cases[i].value,
                    cases[i].mk, cases[i].nk, v, want);
        }
        clip_process_destroy(p);
        c2_release(&ha, &hk, a, k);
    }
    remove(path);
}

/* The spans of both forms (conv2_tensor.cl, TC_SPAN): a tuning value of 64 columns lets a span
 * be that short, so that on a 3-band image of 2 slices 292 columns wide the spans of 31x31
 * 'full' and 'valid' start inside bands and cross their ends (two segments, each with its own
 * ring), and 'same' and 21x25's split whole bands into pieces (conv2_tensor_spans), through every
 * shape and orientation, with an Inf and a NaN in A whose outputs the producer mends. */
static void test_spans(clip_app *app) {
    const char *path = "conv2_tc_spans.txt";
    /* (the last two run the first form: 40x47, its operand in local memory, walks spans; 15x15
     * walks groups of 64 columns, spans only under CLIP_CONV2_TC_SPANS=1) */
    static const size_t ks[][2] = {{31, 31}, {21, 25}, {15, 15}, {40, 47}};
    remove(path);
    for (size_t ki = 0; ki < 4; ki++) {
        char key[32];
        snprintf(key, sizeof key, "f32-k%zux%zu", ks[ki][0], ks[ki][1]);
        tu_tuning_line(app, path, "conv2", key, "tensor:64,128");
    }
    setenv("CLIP_TUNING_CACHE", path, 1);
    for (size_t ki = 0; ki < 4; ki++)
        for (int shape = FULL; shape <= VALID; shape++) {
            if (quick && shape == VALID) continue;
            const conv_case cc = {CLIP_F32, CLIP_F32, {600, 292, 2}, {ks[ki][0], ks[ki][1]},
                                  shape,    ZERO,     (int)ki % 2,   0};
            host_arr ha, hk;
            clip_data *a = make_data(app, CLIP_F32, 600, 292, 2, 901 + ki, &ha);
            ha.v[300 + 600 * 100] = NAN, ha.v[5 + 600 * 280 + 600 * 292] = INFINITY;
            clip_data_destroy(a);
            a = c2_upload(app, CLIP_F32, &ha);
            clip_data *k = make_data(app, CLIP_F32, ks[ki][0], ks[ki][1], 1, 911 + ki, &hk);
            clip_process *p = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 0);
            tu_checks++;
            if (!variant_is(clip_process_variant(p), "tensor 128x64") ||
                (ki < 2) != (strstr(clip_process_variant(p), "ws") != NULL)) {
                tu_failures++;
                fprintf(stderr, "spans: variant '%s'\n", clip_process_variant(p));
            }
            clip_process_destroy(p);
            c2_release(&ha, &hk, a, k);
        }
    unsetenv("CLIP_TUNING_CACHE");
    remove(path);
}

/* auto takes the tensor kernel for a large filter on an image that fills the device (f32), and
 * block for f64 (init only: nothing is launched). */
static void test_auto(clip_app *app) {
    for (int ti = 0; ti < 2; ti++) {
        const clip_type t = ti ? CLIP_F64 : CLIP_F32;
        char got[128] = "";
        CHECK_OK(app, init_only(app, t, 4096, 4096, 31, 31, "auto", got, sizeof got));
        tu_checks++;
        if (!variant_is(got, ti ? "block" : "tensor")) {
            tu_failures++;
            fprintf(stderr, "auto on %s 4096^2 31x31 took '%s'\n", clip_type_name(t), got);
        }
    }
}

#ifdef CLIP_FAULT_INJECTION
/* A driver that held the sm_90a kernels to the 48 KB OpenCL reports (a fault build fails the
 * first clBuildProgram, the second call of its kind after clCreateProgramWithSource, as such a
 * driver would refuse the tensor kernel's larger arrays): under
 * auto a filter whose tensor build passes 48 KB (63x63: 81 KB; 31x31's second form, 86 KB)
 * takes another variant; a forced tensor, or a tensor build within 48 KB (15x15), reports the
 * build's own error. Fresh apps, so that no program is cached. */
static void test_local_fallback(void) {
    static const struct {
        size_t mk;
        const char *variant;
        clip_status want;
    } cases[] = {{63, "auto", CLIP_OK},
                 {63, "tensor", CLIP_ERR_BUILD},
                 {31, "auto", CLIP_OK},
                 {15, "auto", CLIP_ERR_BUILD}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        clip_app *app = tu_app();
        char got[128] = "";
        clip_fault_arm(CLIP_FAULT_BUILD, 2);
        const clip_status s = init_only(app, CLIP_F32, 4096, 4096, cases[i].mk, cases[i].mk,
                                        cases[i].variant, got, sizeof got);
        clip_fault_arm(0, 0);
        CHECK_STATUS(app, s, cases[i].want);
        if (s == CLIP_OK) {
            tu_checks++;
            if (variant_is(got, "tensor")) {
                tu_failures++;
                fprintf(stderr, "48 KB fallback: auto kept '%s'\n", got);
            }
            printf("48 KB fallback, %zux%zu auto: '%s'\n", cases[i].mk, cases[i].mk, got);
        } else {
            CHECK_MSG(app, "build failed");
        }
        clip_app_destroy(app);
    }
}
#endif

int main(void) {
    quick = tu_quick();
    clip_app *app = tu_app();
    /* Probe: the kernel on this device, or the refusal that says why not. */
    char got[128];
    const clip_status s = init_only(app, CLIP_F32, 8, 8, 3, 3, "tensor", got, sizeof got);
    if (s != CLIP_OK) {
        CHECK(s == CLIP_ERR_UNSUPPORTED);
        CHECK_MSG(app, "compute capability 9.0");
        const int failed = tu_failures;
        clip_app_destroy(app);
        if (failed) return tu_finish("test_conv2_tc");
        return tu_skip("test_conv2_tc", "variant tensor needs an NVIDIA GPU of compute "
                                        "capability 9.0 (the refusal was checked)");
    }
    TU_PART(test_refusals(app));
    TU_PART(test_sizes(app));
    TU_PART(test_interior(app));
    TU_PART(test_pads(app));
    TU_PART(test_nonfinite(app));
    TU_PART(test_dynamic_range(app));
    TU_PART(test_subnormal(app));
    TU_PART(test_auto(app));
    TU_PART(test_tuned_rows(app));
    TU_PART(test_spans(app));
    clip_app_destroy(app);
#ifdef CLIP_FAULT_INJECTION
    test_local_fallback();
#endif
    return tu_finish("test_conv2_tc");
}
