/* call_steps: where a small synchronous call's time goes, step by step (python/README.md, the
 * 1x1 call from Python; issue 48).
 *
 *   call_steps [N]
 *
 * On the default device (CLIP_DEVICE as everywhere), a 1x1 single matmul from wrapped host
 * memory to wrapped host memory, made N times (default 3000) as clipcl makes it: wrap the input
 * and the output, rebind a kept init, launch, read the output on the host (the wait for the
 * device), detach and destroy. Prints each step's median and 10th percentile in microseconds:
 * what the library spends on the host against what the wait for the device costs. */
#include <clip/clip.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { STEPS = 6 };

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int fail(clip_app *app, const char *what) {
    fprintf(stderr, "call_steps: %s: %s\n", what, app ? clip_app_last_error(app) : "no app");
    return 1;
}

/* One call as clipcl makes it; t[0..STEPS-1] get each step's time and the total. */
static int one_call(clip_app *app, clip_process *p, float *a, float *o, double *t) {
    const size_t dims[2] = {1, 1};
    clip_data *d = NULL, *od = NULL;
    const void *ptr = NULL;
    int reinit = 0;
    const double t0 = now_us();
    if (clip_data_wrap(app, CLIP_F32, 2, dims, a, &d) ||
        clip_data_wrap(app, CLIP_F32, 2, dims, o, &od))
        return fail(app, "wrap");
    const double t1 = now_us();
    clip_data *ins[2] = {d, d}, *outs[1] = {od};
    if (clip_process_rebind(p, ins, outs, &reinit)) return fail(app, "rebind");
    const double t2 = now_us();
    if (clip_process_launch(p)) return fail(app, "launch");
    const double t3 = now_us();
    if (clip_data_host(od, &ptr)) return fail(app, "host");
    const double t4 = now_us();
    clip_process_detach(p);
    clip_data_destroy(d);
    clip_data_destroy(od);
    const double t5 = now_us();
    const double steps[STEPS] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t0};
    for (int s = 0; s < STEPS; s++)
        t[s] = steps[s];
    return 0;
}

/* The init that the calls rebind, kept as clipcl keeps it. */
static int first_init(clip_app *app, clip_process *p, float *a, float *o) {
    const size_t dims[2] = {1, 1};
    clip_data *d = NULL, *od = NULL;
    int rc = clip_data_wrap(app, CLIP_F32, 2, dims, a, &d) ||
             clip_data_wrap(app, CLIP_F32, 2, dims, o, &od) || clip_process_set_input(p, 0, d) ||
             clip_process_set_input(p, 1, d) || clip_process_set_output(p, 0, od) ||
             clip_process_init(p);
    if (rc) fail(app, "init");
    clip_process_detach(p);
    clip_data_destroy(d);
    clip_data_destroy(od);
    return rc;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 3000;
    if (n < 10) {
        fprintf(stderr, "usage: call_steps [N >= 10]\n");
        return 2;
    }
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL)) return fail(app, "app");
    /* aligned as the device's buffers, so both are used in place, as clipcl's own arrays are */
    float *a = aligned_alloc(4096, 4096), *o = aligned_alloc(4096, 4096);
    double *t = malloc(sizeof *t * STEPS * (size_t)n);
    clip_process *p = NULL;
    int rc = 1;
    if (!a || !o || !t) {
        fprintf(stderr, "call_steps: out of memory\n");
        goto done;
    }
    a[0] = 3.0f, o[0] = 0.0f;
    if (clip_process_create(app, "matmul", &p)) {
        fail(app, "create");
        goto done;
    }
    clip_process_set_timing(p, 0);
    if (first_init(app, p, a, o)) goto done;
    for (int i = 0; i < 200; i++) /* warms the driver */
        if (one_call(app, p, a, o, t)) goto done;
    for (int i = 0; i < n; i++)
        if (one_call(app, p, a, o, t + (size_t)i * STEPS)) goto done;
    if (o[0] != 9.0f) {
        fprintf(stderr, "call_steps: 3 * 3 gave %g\n", (double)o[0]);
        goto done;
    }
    static const char *names[STEPS] = {
        "wrap input and output", "rebind",    "launch", "host read (the wait)",
        "detach and destroy",    "whole call"};
    double *col = malloc(sizeof *col * (size_t)n);
    if (!col) goto done;
    printf("1x1 matmul, wrapped host memory in and out, %d calls on %s\n", n,
           clip_app_device(app)->name);
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < n; i++)
            col[i] = t[(size_t)i * STEPS + s];
        qsort(col, (size_t)n, sizeof *col, by_value);
        printf("  %-22s median %7.1f us   10th percentile %7.1f us\n", names[s], col[n / 2],
               col[n / 10]);
    }
    free(col);
    rc = 0;
done:
    clip_process_destroy(p);
    clip_app_destroy(app);
    free(a);
    free(o);
    free(t);
    return rc;
}
