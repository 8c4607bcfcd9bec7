/* `clip tune` and the GEMM tuning cache: a tiny tune stores a set per size class, matmul and
 * matpow then use it (the variant names it) with correct results, explicit tile parameters
 * override it, and a corrupt cache, a malformed value or a set that does not fit the device is
 * ignored (with a warning for the corrupt file) while results stay correct. */
#include <string.h>

#include "../processes/gemm.h"
#include "gemm_testutil.h"

#define CACHE "tune_test/cache.txt"

/* A*B through matmul with optional integer overrides; checks the values and copies the variant. */
static void run_matmul(clip_app *app, size_t m, size_t k, size_t n, const char *param, long value,
                       char *variant, size_t cap, unsigned long long *seed) {
    gt_mat A = gt_random(CLIP_F32, m, k, 1.0, seed), B = gt_random(CLIP_F32, k, n, 1.0, seed),
           bound;
    gt_mat R = gt_product(&A, &B, CLIP_F32, &bound);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B), *c = NULL;
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "matmul", &p));
    if (param) CHECK_OK(app, clip_process_set_int(p, param, value));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, b));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c));
    snprintf(variant, cap, "%s", clip_process_variant(p));
    gt_check(c, CLIP_F32, &R, &bound, (double)k, variant);
    clip_process_destroy(p);
    clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
}

int main(void) {
    setenv("CLIP_TUNING_CACHE", CACHE, 1);
    remove(CACHE);
    clip_app *app = tu_app();
    unsigned long long seed = 0x51ed2701a3c4f9e5ULL;
    /* a missed lookup leaves value as it was: empty, so the checks below fail cleanly */
    char key[96], sq_key[96], value[256] = "", variant[256];
    /* The keys as the tool makes them on this device ("-tc" where the tensor family runs). */
    const int arch = clip_app_device(app)->nv_arch;
    clip_gemm_tuning_key(arch, CLIP_F32, 48, 40, 36, key, sizeof key);
    clip_gemm_tuning_key(arch, CLIP_F32, 40, 40, 40, sq_key, sizeof sq_key);

    /* The tool's errors. */
    CHECK(gt_system(CLIP_TOOL " tune --process fft2 2>tune_err.txt") == 2);
    CHECK(gt_file_has("tune_err.txt", "only matmul and matpow"));
    CHECK(gt_system(CLIP_TOOL " tune --budget 2 --shapes 4x4 2>tune_err.txt") == 2);
    CHECK(gt_file_has("tune_err.txt", "clip: tune: --shapes expects MxNxK"));

    /* A tiny tune: two size classes. It ends when the candidates do; the budget is room for
     * slow builds (asan), as in test_tune_conv2. */
    CHECK(gt_system(CLIP_TOOL " tune --budget 40 --types f32 --shapes 48x40x36,40x40x40 "
                              ">tune_out.txt 2>&1") == 0);
    CHECK(gt_file_has("tune_out.txt", "stored 2 of 2"));
    CHECK(gt_file_has("tune_out.txt", key));
    CHECK(clip_tuning_lookup(app, "matmul", key, value, sizeof value) == 1);
    clip_gemm_params prm;
    CHECK(clip_gemm_parse(value, &prm) == 0);

    /* matmul on a product of that class (not the same shape) uses the stored set. */
    run_matmul(app, 48, 33, 41, NULL, 0, variant, sizeof variant, &seed);
    CHECK(strstr(variant, value) == variant && strstr(variant, " tuned") != NULL);
    if (!strstr(variant, value)) fprintf(stderr, "variant '%s', cache '%s'\n", variant, value);
    /* An explicit parameter overrides the cached one, checked on a fixed cached set: the tuned
     * one follows the timings, and with vw 1 it may not fit (32x16 tiles hold 512 accumulators,
     * past the limit: CI once failed so), and under valgrind its build would be new to PoCL's
     * kernel cache in each run, minutes of LLVM. */
    tu_tuning_line(app, CACHE, "matmul", key, "direct 16x4x16 wg 1x1 vw 8");
    run_matmul(app, 48, 33, 41, "vw", 1, variant, sizeof variant, &seed);
    CHECK(strstr(variant, "direct 16x4x16 wg 1x1 vw 1") == variant);

    /* A set with K split and summed by K groups (the tool's split sweep times the fastest sets
     * with their groups) runs as it was timed: the split does not drop its groups. */
    const char *split_groups = "tiled 16x16x8 wg 4x4 vw 2 vwn 2 wm 4 ks 2 st 2 kg 2";
    tu_tuning_line(app, CACHE, "matmul", key, split_groups);
    run_matmul(app, 48, 33, 41, NULL, 0, variant, sizeof variant, &seed);
    CHECK(strstr(variant, split_groups) == variant && strstr(variant, " tuned") != NULL);
    if (strstr(variant, split_groups) != variant) fprintf(stderr, "variant '%s'\n", variant);
    tu_tuning_line(app, CACHE, "matmul", key, "direct 16x4x16 wg 1x1 vw 8"); /* as before */

    /* A transposed product (A.'*B') of the class takes the plain key's set: the tiles do the same
     * work, only the loads change direction. Values checked against the reference. */
    CHECK(clip_tuning_lookup(app, "matmul", key, value, sizeof value) == 1);
    {
        gt_mat At = gt_random(CLIP_F32, 33, 48, 1.0, &seed),
               Bt = gt_random(CLIP_F32, 41, 33, 1.0, &seed);
        gt_mat opA = gt_op(&At, 1), opB = gt_op(&Bt, 2), bound;
        gt_mat R = gt_product(&opA, &opB, CLIP_F32, &bound);
        clip_data *a = gt_data(app, &At), *b = gt_data(app, &Bt), *c = NULL;
        clip_process *p = NULL;
        CHECK_OK(app, clip_process_create(app, "matmul", &p));
        CHECK_OK(app, clip_process_set_choice(p, "transa", "t"));
        CHECK_OK(app, clip_process_set_choice(p, "transb", "c"));
        CHECK_OK(app, clip_process_set_input(p, 0, a));
        CHECK_OK(app, clip_process_set_input(p, 1, b));
        CHECK_OK(app, clip_process_init(p));
        CHECK_OK(app, clip_process_launch(p));
        CHECK_OK(app, clip_process_output(p, 0, &c));
        CHECK(strstr(clip_process_variant(p), value) == clip_process_variant(p) &&
              strstr(clip_process_variant(p), " tuned") != NULL);
        gt_check(c, CLIP_F32, &R, &bound, 33, "tuned A.'*B'");
        clip_process_destroy(p);
        clip_data_destroy(a), clip_data_destroy(b);
        gt_free(&At), gt_free(&Bt), gt_free(&opA), gt_free(&opB), gt_free(&R), gt_free(&bound);
    }

    /* matpow shares the cache: a 40x40 power runs its class's set. */
    CHECK(clip_tuning_lookup(app, "matmul", sq_key, value, sizeof value) == 1);
    gt_mat A = gt_random(CLIP_F32, 40, 40, 1.0 / 40, &seed);
    clip_data *a = gt_data(app, &A);
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "matpow", &p));
    CHECK_OK(app, clip_process_set_real(p, "power", 3));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_init(p));
    CHECK(strstr(clip_process_variant(p), value) != NULL);
    clip_process_destroy(p);
    clip_data_destroy(a);
    gt_free(&A);

    /* A value that is not a set, and a set that cannot run here: ignored, defaults used. */
    tu_tuning_line(app, CACHE, "matmul", key, "fastest please");
    CHECK(clip_tuning_lookup(app, "matmul", key, value, sizeof value) == 1);
    run_matmul(app, 48, 33, 41, NULL, 0, variant, sizeof variant, &seed);
    CHECK(strstr(variant, "tuned") == NULL);
    const char *huge = "tiled 4096x4096x16 wg 4096x4096 vw 4 vwn 4 wm 4096 ks 1 st 2";
    CHECK(clip_gemm_parse(huge, &prm) == 0); /* well formed: rejected for the device alone */
    /* wgmma sets (sm_90) round-trip through the cache's text, the pipe flag and precision with
     * them, wherever the cache is read. */
    const char *const wg_sets[] = {"tensor 128x128x32 wg 2x1 vw 4 st 6 wgmma bf16 pipe sk 1",
                                   "tensor 64x128x16 wg 1x1 vw 4 st 4 wgmma pipe sk 2",
                                   "tensor 64x128x16 wg 1x1 vw 4 st 2 wgmma sk 3"};
    for (int i = 0; i < 3; i++) {
        char back[128];
        CHECK(clip_gemm_parse(wg_sets[i], &prm) == 0);
        CHECK(prm.wgmma == 1 && prm.pipe == (i < 2) && prm.precision == (i ? 0 : CLIP_GEMM_BF16));
        clip_gemm_describe(&prm, back, sizeof back);
        CHECK(strcmp(back, wg_sets[i]) == 0);
    }
    /* A wgmma set may pass the 48 KB a device reports, up to a Hopper block's 227 KB
     * (CLIP_GEMM_WG_LOCAL); an mma.sync set may not. Host logic, checked on a described H100. */
    clip_device_info h100;
    memset(&h100, 0, sizeof h100);
    h100.local_mem = 48 * 1024;
    h100.max_work_group = 1024;
    h100.compute_units = 132;
    h100.nv_arch = 90;
    char why[200];
    /* tf32's default: 6 stages of 256 rows of 4 slices of 32 bytes, 192 KB */
    CHECK(clip_gemm_parse("tensor 128x128x32 wg 2x1 vw 4 st 6 wgmma tf32 pipe sk 1", &prm) == 0);
    CHECK(clip_gemm_check(&prm, &h100, CLIP_F32, why, sizeof why) == 0);
    prm.nwg = 256; /* 6 x 384 x 128 bytes: 288 KB */
    CHECK(clip_gemm_check(&prm, &h100, CLIP_F32, why, sizeof why) != 0);
    CHECK(strstr(why, "294912 bytes") && strstr(why, "the sm_90a kernels have 232192"));
    CHECK(clip_gemm_parse("tensor 128x128x32 wg 2x2 vw 4 st 2 tf32", &prm) == 0);
    prm.aligned = 1;
    CHECK(clip_gemm_check(&prm, &h100, CLIP_F32, why, sizeof why) != 0); /* 2 stages: 70 KB */
    CHECK(strstr(why, "the device has 49152") != NULL);
    tu_tuning_line(app, CACHE, "matmul", key, huge);
    run_matmul(app, 48, 33, 41, NULL, 0, variant, sizeof variant, &seed);
    CHECK(strstr(variant, "tuned") == NULL && strstr(variant, "4096") == NULL);
    CHECK(clip_tuning_warning()[0] == '\0');

    /* A corrupt file: every entry is ignored, with a warning naming the line. */
    FILE *f = fopen(CACHE, "a");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "clip-tuning-1\tonly three\tfields\n");
        fclose(f);
    }
    run_matmul(app, 48, 33, 41, NULL, 0, variant, sizeof variant, &seed);
    CHECK(strstr(variant, "tuned") == NULL);
    CHECK(strstr(clip_tuning_warning(), "malformed") != NULL);
    /* clip tune moves such a file aside before it stores. (Its budget counts from before the
     * device opens, which took most of 3 s under asan.) */
    CHECK(gt_system(CLIP_TOOL
                    " tune --budget 15 --types f32 --shapes 40x40x40 >tune_out.txt 2>&1") == 0);
    CHECK(gt_file_has("tune_out.txt", "moved to"));
    CHECK(clip_tuning_lookup(app, "matmul", sq_key, value, sizeof value) == 1);
    remove(CACHE);
    remove(CACHE ".corrupt");
    clip_app_destroy(app);
    return tu_finish("test_tune");
}
