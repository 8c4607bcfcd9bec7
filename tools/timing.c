/* timing: see timing.h. */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

double clip_tool_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double clip_tool_median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

clip_status clip_tool_batch_ms(clip_app *app, clip_process *p, int per, double *ms) {
    const double t0 = clip_tool_now_s();
    clip_status s = CLIP_OK;
    for (int i = 0; i < per && s == CLIP_OK; i++)
        s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_app_finish(app);
    *ms = (clip_tool_now_s() - t0) * 1e3 / per;
    return s;
}

clip_status clip_tool_chain_ms(clip_app *app, clip_process *p, double deadline, int max_reps,
                               double *ms) {
    double t[32], first = 0;
    *ms = 0;
    clip_status s = clip_process_set_timing(p, 0);
    if (s == CLIP_OK) s = clip_tool_batch_ms(app, p, 1, &first);
    int per = first > 0 ? (int)(1.0 / first) : 64;
    per = per < 1 ? 1 : per > 64 ? 64 : per;
    int reps = first > 0 ? (int)(30.0 / (first * per)) : max_reps;
    if (max_reps > 32) max_reps = 32;
    reps = reps < 3 ? 3 : reps > max_reps ? max_reps : reps;
    int n = 0;
    if (per == 1) t[n++] = first; /* long enough to time alone (a finish's round trip is small) */
    while (s == CLIP_OK && n < reps &&
           (n == 0 || clip_tool_now_s() + first * per * 1e-3 < deadline)) {
        s = clip_tool_batch_ms(app, p, per, &t[n]);
        n++;
    }
    if (s != CLIP_OK) return s;
    *ms = clip_tool_median(t, (size_t)n);
    return CLIP_OK;
}
