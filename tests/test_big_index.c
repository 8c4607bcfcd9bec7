/* Sizes near the kernels' 32-bit index limits: matmul's split-K chunks (gemm_tiled, skinny)
 * whose last chunk ends past INT_MAX, and the init limits of matmul (rows) and conv2 (the
 * filter's element count).
 *
 * The products read a K-vector of 2^31 - 4096 floats (8 GiB) that is zero but for its last
 * ONES elements: A.' * A is then exactly ONES, and a chunk of K left out shows as a missing
 * tail. The vector is wrapped anonymous memory that is never written but at its tail, so its
 * zero pages cost no memory where the device works in place (PoCL); elsewhere the device
 * needs the 8 GiB, and the products are skipped on a device whose largest allocation is
 * smaller. PoCL sizes its CPU device from hwloc's view of the machine (a sandbox may show 5
 * GiB, a 1 GiB largest allocation): unless the caller chose a topology, this test gives hwloc
 * a synthetic one of 64 GiB and 4 cores, enough for the buffer and for the skinny plan's split
 * of K (more chunks with more compute units) to reach past INT_MAX. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, setenv */

#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#include "testutil.h"

enum { ONES = 1000 };

/* numel floats of zero pages, the last `ones` of them 1; NULL where it cannot be mapped. */
static float *zero_pages(size_t numel, size_t ones) {
    void *m = mmap(NULL, numel * sizeof(float), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    float *x = m;
    for (size_t i = numel - ones; i < numel; i++)
        x[i] = 1;
    return x;
}

/* A.' * A of the K x 1 vector x, with matmul's parameters set by `set`; its 1x1 result. */
static float dot_by_matmul(clip_app *app, float *x, size_t k,
                           void (*set)(clip_app *, clip_process *)) {
    size_t dims[2] = {k, 1};
    clip_data *a = NULL, *c = NULL;
    clip_process *p = NULL;
    float r = -1;
    CHECK_OK(app, clip_data_wrap(app, CLIP_F32, 2, dims, x, &a));
    CHECK_OK(app, clip_process_create(app, "matmul", &p));
    if (!a || !p) goto out;
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, a));
    CHECK_OK(app, clip_process_set_choice(p, "transa", "t"));
    set(app, p);
    CHECK_OK(app, clip_process_init(p));
    printf("  K %zu: %s\n", k, clip_process_variant(p));
    CHECK_OK(app, clip_process_launch(p));
    const void *h = NULL;
    if (clip_process_output(p, 0, &c) == CLIP_OK && clip_data_host(c, &h) == CLIP_OK)
        r = *(const float *)h;
out:
    clip_process_destroy(p);
    clip_data_destroy(a);
    return r;
}

/* gemm_tiled in 64 chunks of K: with K = INT_MAX - 1024 (the largest the GEMM takes) and a
 * slice of 256, each chunk is rounded up to 2^25 and the last one ends at 2^31. A 1x1 tile
 * keeps a CPU's run short. */
static void set_tiled(clip_app *app, clip_process *p) {
    static const char *const names[] = {"mwg", "nwg", "kwg", "mdimc",  "ndimc",
                                        "vw",  "vwn", "wm",  "ksplit", "stages"};
    static const long vals[] = {1, 1, 256, 1, 1, 1, 1, 1, 64, 1};
    CHECK_OK(app, clip_process_set_choice(p, "variant", "tiled"));
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        CHECK_OK(app, clip_process_set_int(p, names[i], vals[i]));
}

/* The skinny dot-product kernel: on 4 compute units K = INT_MAX - 4096 (the largest it takes)
 * splits into 32 chunks, rounded up to 2^26 each, so the last one ends at 2^31. */
static void set_skinny(clip_app *app, clip_process *p) {
    CHECK_OK(app, clip_process_set_choice(p, "skinny", "on"));
}

static void test_split_k(clip_app *app) {
    const size_t k_gemm = INT_MAX - 1024, k_skinny = INT_MAX - 4096;
    /* 4 s natively; under valgrind (quick mode) the 2^32 reads took 213 s with --tool=none. */
    if (tu_quick()) {
        printf("  split K: skipped in quick mode (the plain and ASan suites run it)\n");
        return;
    }
    if (clip_app_device(app)->max_alloc < k_gemm * sizeof(float)) {
        printf("  split K: skipped, the device's largest allocation is %llu bytes\n",
               (unsigned long long)clip_app_device(app)->max_alloc);
        return;
    }
    float *x = zero_pages(k_gemm, ONES);
    if (!x) {
        printf("  split K: skipped, no %zu bytes of address space\n", k_gemm * sizeof(float));
        return;
    }
    CHECK_NEAR(dot_by_matmul(app, x, k_gemm, set_tiled), ONES, 0);
    CHECK_NEAR(dot_by_matmul(app, x + (k_gemm - k_skinny), k_skinny, set_skinny), ONES, 0);
    munmap(x, k_gemm * sizeof(float));
}

/* Process `name` on a (wrapped zero pages of dims big, as input `wrapped`) and a small operand
 * of dims small: init must refuse with CLIP_ERR_SHAPE and a message holding `needle`. */
static void expect_refused(clip_app *app, const char *name, const size_t big[2], int wrapped,
                           const size_t small[2], const char *needle) {
    const size_t n = big[0] * big[1];
    float *x = zero_pages(n, 0);
    if (!x) {
        printf("  %s: skipped, no address space\n", name);
        return;
    }
    clip_data *in[2] = {NULL, NULL};
    clip_process *p = NULL;
    CHECK_OK(app, clip_data_wrap(app, CLIP_F32, 2, big, x, &in[wrapped]));
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, small, &in[!wrapped]));
    CHECK_OK(app, clip_process_create(app, name, &p));
    if (in[0] && in[1] && p) {
        CHECK_OK(app, clip_process_set_input(p, 0, in[0]));
        CHECK_OK(app, clip_process_set_input(p, 1, in[1]));
        CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_SHAPE);
        CHECK_MSG(app, needle);
    }
    clip_process_destroy(p);
    clip_data_destroy(in[1]);
    clip_data_destroy(in[0]);
    munmap(x, n * sizeof(float));
}

/* M = INT_MAX rows: the FFMA kernels' last tile would compute m0 + MWG and row + VW past
 * INT_MAX (wrapping into full-vector stores past the column). Refused at init, as K is. */
static void test_matmul_rows(clip_app *app) {
    const size_t ad[2] = {INT_MAX, 1}, bd[2] = {1, 2};
    expect_refused(app, "matmul", ad, 0, bd, "a dimension exceeds");
}

/* A filter of 2^31 elements (each dimension below the 2^30 limit) would wrap the kernels' int
 * element counts: refused at init, before anything is read or moved. */
static void test_conv2_filter(clip_app *app) {
    const size_t kd[2] = {(size_t)1 << 16, (size_t)1 << 15}, ad[2] = {1, 1};
    expect_refused(app, "conv2", kd, 1, ad, "2^31");
}

int main(void) {
    if (sizeof(size_t) < 8) return tu_skip("test_big_index", "32-bit size_t");
    setenv("HWLOC_SYNTHETIC", "numa:1(memory=68719476736) core:4 pu:1", 0);
    clip_app *app = tu_app();
    TU_PART(test_conv2_filter(app));
    TU_PART(test_matmul_rows(app));
    TU_PART(test_split_k(app));
    clip_app_destroy(app);
    return tu_finish("test_big_index");
}
