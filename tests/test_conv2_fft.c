/* conv2's FFT path (clFFT) against the plain double-precision reference (conv2_testutil.h), with
 * the error relative to norm(A) * norm(K) (a transform's error does not follow each output):
 * every type and mixed pair, shape, pad mode, orientation, normalize, 3-D A; Inf and NaN (the
 * device-side gate reruns the direct kernel: exact); auto through the tuning cache; a chain
 * without host transfers. Without clFFT in the build: the error. The cases share 12 x 12
 * transforms: each new size costs clFFT a kernel build (seconds under PoCL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2_testutil.h"

#include "clfft_sanitizer_hooks.h" /* clFFT's own findings, set aside (added to tests/lsan.supp's) */

/* Returns 0 when clip was built without clFFT (after checking the error). */
static int fft_available(clip_app *app) {
    host_arr ha, hk;
    clip_data *a = make_data(app, CLIP_F64, 9, 10, 1, 1, &ha);
    clip_data *k = make_data(app, CLIP_F64, 4, 3, 1, 2, &hk);
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_choice(p, "variant", "fft"));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    clip_status s = clip_process_init(p);
    if (s != CLIP_OK) {
        CHECK_STATUS(app, s, CLIP_ERR_UNSUPPORTED);
        CHECK_MSG(app, "conv2: built without clFFT; the fft variant is unavailable");
    }
    clip_process_destroy(p);
    free(ha.v), free(hk.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
    return s == CLIP_OK;
}

/* Each case's A size gives 12 x 12 transforms with a 4 x 3 filter: full 6x8, same 9x10,
 * valid 12x12. */
static void test_cases(clip_app *app) {
    static const size_t as[3][2] = {{6, 8}, {9, 10}, {12, 12}};
    unsigned long long seed = 3;
    for (int shape = FULL; shape <= VALID; shape++)
        for (int pad = ZERO; pad <= CIRCULAR; pad++)
            for (int corr = 0; corr < 2; corr++) {
                conv_case cc = {CLIP_F64, CLIP_F64,        {as[shape][0], as[shape][1], 1},
                                {4, 3},   shape,           pad,
                                corr,     pad == REPLICATE};
                run_case(app, &cc, "fft", seed++);
            }
    for (int ta = 0; ta < 4; ta++)
        for (int tk = 0; tk < 4; tk++) {
            conv_case cc = {all_types[ta], all_types[tk], {9, 10, 2}, {4, 3},
                            SAME,          SYMMETRIC,     tk % 2,     ta == 3};
            run_case(app, &cc, "fft", seed++);
        }
}

/* Inf and NaN in A, and Inf in K next to the zero padding: the same non-finite pattern as MATLAB
 * (the direct kernel recomputes), with the error relative to each output again. */
static void test_nonfinite(clip_app *app) {
    for (int which = 0; which < 2; which++) {
        host_arr ha, hk;
        clip_data *a = make_data(app, CLIP_F64, 9, 10, 1, 11, &ha);
        clip_data *k = make_data(app, CLIP_F64, 4, 3, 1, 12, &hk);
        double *h = NULL;
        if (which == 0) {
            CHECK_OK(app, clip_data_host_write(a, (void **)&h));
            h[2 + 9 * 3] = INFINITY, ha.v[2 + 9 * 3] = INFINITY;
            h[7 + 9 * 8] = NAN, ha.v[7 + 9 * 8] = NAN;
        } else {
            CHECK_OK(app, clip_data_host_write(k, (void **)&h));
            h[0] = -INFINITY, hk.v[0] = -INFINITY;
        }
        conv_case cc = {CLIP_F64, CLIP_F64, {9, 10, 1}, {4, 3}, SAME, ZERO, 0, 0};
        clip_process_destroy(c2_run(app, a, &ha, k, &hk, &cc, "fft", "off", 0));
        free(ha.v), free(hk.v);
        clip_data_destroy(a);
        clip_data_destroy(k);
    }
}

/* A tuning-cache entry "fft" makes auto take the path with accuracy normwise, and only then. */
static void test_tuned(clip_app *app) {
    const char *path = "conv2_fft_tuning.txt";
    remove(path);
    tu_tuning_line(app, path, "conv2", "f32-k4x3", "fft");
    setenv("CLIP_TUNING_CACHE", path, 1);
    host_arr ha, hk;
    clip_data *a = make_data(app, CLIP_F32, 9, 10, 1, 21, &ha);
    clip_data *k = make_data(app, CLIP_F32, 4, 3, 1, 22, &hk);
    conv_case cc = {CLIP_F32, CLIP_F32, {9, 10, 1}, {4, 3}, SAME, ZERO, 1, 0};
    clip_process *p = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 1);
    CHECK(!strcmp(clip_process_variant(p), "fft 12x12"));
    clip_process_destroy(p);
    p = c2_run(app, a, &ha, k, &hk, &cc, "auto", "off", 0);
    CHECK(strncmp(clip_process_variant(p), "fft", 3) != 0);
    clip_process_destroy(p);
    unsetenv("CLIP_TUNING_CACHE");
    remove(path);
    free(ha.v), free(hk.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* fft conv2 -> fft conv2 on the device: A and K go up once, nothing comes back until the read. */
static void test_chain(clip_app *app) {
    host_arr ha, hk;
    clip_data *a = make_data(app, CLIP_F32, 6, 8, 1, 31, &ha);
    clip_data *k = make_data(app, CLIP_F32, 4, 3, 1, 32, &hk);
    clip_data *y1 = NULL, *y2 = NULL; /* y1: 9 x 10 */
    clip_process *c1 = c2_chain_conv2(app, a, k, (const char *[]){"variant", "fft", NULL}, &y1);
    clip_process *c2 =
        c2_chain_conv2(app, y1, k, (const char *[]){"variant", "fft", "shape", "same", NULL}, &y2);
    clip_transfer_stats t0, t1;
    tu_launch_all(app, (clip_process *[]){c1, c2}, 2, &t0, &t1);
    CHECK(t1.to_host == t0.to_host);
    CHECK(t1.to_device - t0.to_device == 2);
    double ms = 0;
    CHECK_OK(app, clip_process_time_ms(c2, &ms)); /* includes the transforms' events */
    CHECK(ms > 0);
    host_arr r1 = ref_conv2(&ha, &hk, FULL, ZERO, 0, 0);
    host_arr r2 = ref_conv2(&r1, &hk, SAME, ZERO, 0, 0);
    tu_checks++;
    tu_failures +=
        compare_scaled(app, y2, CLIP_F32, &r2, "fft chain", fro(&ha) * fro(&hk) * fro(&hk));
    free(r1.v), free(r2.v), free(ha.v), free(hk.v);
    clip_process_destroy(c1);
    clip_process_destroy(c2);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

int main(void) {
    clip_app *app = tu_app();
    if (fft_available(app)) {
        test_cases(app);
        test_nonfinite(app);
        test_tuned(app);
        test_chain(app);
    } else if (!tu_failures) {
        clip_app_destroy(app);
        return tu_skip("test_conv2_fft", "built without clFFT (CLIP_WITH_CLFFT)");
    }
    clip_app_destroy(app);
    return tu_finish("test_conv2_fft");
}
