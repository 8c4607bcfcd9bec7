/* Failure injection (built only with -DCLIP_FAULT_INJECTION=ON): walks a failing OpenCL
 * allocation, enqueue or program build over every call site of a chain (create data, scale,
 * conv2, norm, read, save) and checks each failure returns its code, leaves the app usable, and
 * leaves each output file complete or absent. Leaks are caught by the sanitizer build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "testutil.h"

#define N 40

typedef struct chain_result {
    clip_status status;
    float norm;
} chain_result;

/* Builds and runs the chain on a fresh app; saves the image and the norm. */
static chain_result run_chain(const char *png, const char *mat) {
    chain_result r = {CLIP_OK, 0.0f};
    clip_app *app = NULL;
    clip_criteria c = {.ignore_env = 0};
    if ((r.status = clip_app_create(&app, &c)) != CLIP_OK) return r;
    /* A column, so that norm (vectors only) can end the chain. */
    size_t dims[2] = {N * N, 1}, kd[2] = {3, 1};
    float img[N * N], k[9];
    for (int i = 0; i < N * N; i++) img[i] = (float)(i % 17);
    for (int i = 0; i < 3; i++) k[i] = 1.0f / 3.0f;
    clip_data *x = NULL, *kk = NULL, *y = NULL, *z = NULL, *n = NULL;
    clip_process *ps = NULL, *pc = NULL, *pn = NULL;
    clip_status s = clip_data_create_from(app, CLIP_F32, 2, dims, img, &x);
    if (s == CLIP_OK) s = clip_data_create_from(app, CLIP_F32, 2, kd, k, &kk);
    if (s == CLIP_OK) s = clip_process_create(app, "scale", &ps);
    if (s == CLIP_OK) s = clip_process_set_real(ps, "a", 10.0);
    if (s == CLIP_OK) s = clip_process_set_input(ps, 0, x);
    if (s == CLIP_OK) s = clip_process_init(ps);
    if (s == CLIP_OK) s = clip_process_launch(ps);
    if (s == CLIP_OK) s = clip_process_output(ps, 0, &y);
    if (s == CLIP_OK && clip_process_find("conv2")) {
        s = clip_process_create(app, "conv2", &pc);
        if (s == CLIP_OK) s = clip_process_set_choice(pc, "shape", "same");
        if (s == CLIP_OK) s = clip_process_set_input(pc, 0, y);
        if (s == CLIP_OK) s = clip_process_set_input(pc, 1, kk);
        if (s == CLIP_OK) s = clip_process_init(pc);
        if (s == CLIP_OK) s = clip_process_launch(pc);
        if (s == CLIP_OK) s = clip_process_output(pc, 0, &y);
    }
    if (s == CLIP_OK && clip_process_find("norm")) {
        s = clip_process_create(app, "norm", &pn);
        if (s == CLIP_OK) s = clip_process_set_input(pn, 0, y);
        if (s == CLIP_OK) s = clip_process_init(pn);
        if (s == CLIP_OK) s = clip_process_launch(pn);
        if (s == CLIP_OK) s = clip_process_output(pn, 0, &n);
    } else if (s == CLIP_OK) {
        n = y;
    }
    if (s == CLIP_OK) s = clip_save(app, png, y);
    if (s == CLIP_OK) s = clip_save(app, mat, n);
    const float *h = NULL;
    if (s == CLIP_OK) s = clip_data_host(n, (const void **)&h);
    if (s == CLIP_OK) r.norm = h[0];
    (void)z;
    r.status = s;
    if (s != CLIP_OK && !getenv("CLIP_FAULT_QUIET"))
        fprintf(stderr, "chain: %s: %s\n", clip_status_str(s), clip_app_last_error(app));
    clip_process_destroy(ps);
    clip_process_destroy(pc);
    clip_process_destroy(pn);
    clip_data_destroy(x);
    clip_data_destroy(kk);
    clip_app_destroy(app);
    return r;
}

/* The file is either absent or loads completely with the reference value. */
static int complete_or_absent(const char *path, float want) {
    if (access(path, F_OK) != 0) return 1;
    clip_app *app = tu_app();
    clip_data *d = NULL;
    int ok = clip_load(app, path, &d) == CLIP_OK;
    const float *h = NULL;
    if (ok && want >= 0) ok = clip_data_host(d, (const void **)&h) == CLIP_OK && h[0] == want;
    clip_data_destroy(d);
    clip_app_destroy(app);
    return ok;
}

int main(void) {
    const char *png = "fault_chain.png", *mat = "fault_chain.mat";
    const int all = CLIP_FAULT_ALLOC | CLIP_FAULT_ENQUEUE | CLIP_FAULT_BUILD;
    clip_fault_arm(all, 0);
    chain_result ref = run_chain(png, mat);
    long sites = clip_fault_calls();
    CHECK(ref.status == CLIP_OK);
    CHECK(sites > 5);
    int failures_seen = 0;
    for (long nth = 1; nth <= sites; nth++) {
        remove(png);
        remove(mat);
        clip_fault_arm(all, nth);
        chain_result r = run_chain(png, mat);
        clip_fault_arm(all, 0);
        int expected = r.status == CLIP_ERR_OPENCL || r.status == CLIP_ERR_OUT_OF_MEMORY ||
                       r.status == CLIP_ERR_BUILD;
        if (!expected) fprintf(stderr, "call %ld: status %s\n", nth, clip_status_str(r.status));
        CHECK(expected);
        failures_seen += expected;
        CHECK(complete_or_absent(mat, ref.norm));
        CHECK(complete_or_absent(png, -1));
        /* Nothing is left broken: the same chain works right after. */
        chain_result again = run_chain(png, mat);
        CHECK(again.status == CLIP_OK && again.norm == ref.norm);
    }
    printf("fault injection: %ld OpenCL call sites in the chain, %d failed with their code\n", sites,
           failures_seen);
    remove(png);
    remove(mat);
    return tu_finish("test_fault");
}
