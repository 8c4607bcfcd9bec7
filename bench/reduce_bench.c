/* reduce_bench: sweeps norm and dot configurations over one data set per type, uploaded once,
 * and prints each one's median kernel time, bandwidth and result (with its relative error
 * against a host reference in long double where one is cheap: p = 1, 2, 3, 2.5, +-Inf, dot).
 *
 *   reduce_bench [--device SPEC] [--log2n N] [--repeat R] [--deadline S] < cases
 *
 * Each line of `cases` is "TYPE PROCESS [PARAM=VALUE]...", e.g. "f32 norm p=3 unroll=2"; f32
 * inputs hold 2^N elements and f64 ones 2^(N-1) (the same bytes). Bandwidth counts the bytes of
 * the inputs once. Lines after S seconds are skipped (a device run's time limit). Built by
 * bench/reduce_bench.sh against a built libclip. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clip/clip.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Two vectors per type, uniform in [-1, 1), and their host copies as doubles. */
typedef struct dataset {
    clip_data *x, *y;
    double *hx, *hy;
    size_t n;
} dataset;

static int make_data(clip_app *app, clip_type t, size_t n, dataset *d) {
    d->n = n;
    d->hx = malloc(n * sizeof *d->hx);
    d->hy = malloc(n * sizeof *d->hy);
    if (!d->hx || !d->hy) return -1;
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double a = (double)(s >> 11) / 4503599627370496.0 - 1.0;
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double b = (double)(s >> 11) / 4503599627370496.0 - 1.0;
        d->hx[i] = t == CLIP_F32 ? (double)(float)a : a;
        d->hy[i] = t == CLIP_F32 ? (double)(float)b : b;
    }
    size_t dims[2] = {n, 1};
    for (int k = 0; k < 2; k++) {
        clip_data **dd = k ? &d->y : &d->x;
        const double *h = k ? d->hy : d->hx;
        void *w = NULL;
        if (clip_data_create(app, t, 2, dims, dd) != CLIP_OK || clip_data_host_write(*dd, &w))
            return -1;
        for (size_t i = 0; i < n; i++) {
            if (t == CLIP_F32)
                ((float *)w)[i] = (float)h[i];
            else
                ((double *)w)[i] = h[i];
        }
    }
    return 0;
}

/* The reference, or NAN where it would be slow (pow for general p). */
static long double reference_of(const dataset *d, int is_dot, double p) {
    long double s = 0, m = 0;
    if (is_dot) {
        for (size_t i = 0; i < d->n; i++)
            s += (long double)d->hx[i] * d->hy[i];
        return s;
    }
    if (p == INFINITY || p == -INFINITY) {
        m = p > 0 ? 0 : INFINITY;
        for (size_t i = 0; i < d->n; i++) {
            long double a = fabsl((long double)d->hx[i]);
            m = p > 0 ? (a > m ? a : m) : (a < m ? a : m);
        }
        return m;
    }
    if (p != 1 && p != 2 && p != 3 && p != 2.5) return NAN;
    for (size_t i = 0; i < d->n; i++) {
        long double a = fabsl((long double)d->hx[i]);
        s += p == 1 ? a : p == 2 ? a * a : p == 3 ? a * a * a : a * a * sqrtl(a);
    }
    return p == 1 ? s : powl(s, 1.0L / (long double)p);
}

/* The reference, computed once per data set and order (a second or so each at 2^28). */
static long double reference(const dataset *d, int is_dot, double p) {
    static struct {
        const dataset *d;
        int is_dot;
        double p;
        long double v;
    } cache[32];
    static int n;
    for (int i = 0; i < n; i++)
        if (cache[i].d == d && cache[i].is_dot == is_dot && (is_dot || cache[i].p == p))
            return cache[i].v;
    long double v = reference_of(d, is_dot, p);
    if (n < 32) cache[n].d = d, cache[n].is_dot = is_dot, cache[n].p = p, cache[n++].v = v;
    return v;
}

/* Runs one case line; prints its result line. */
static void run_case(clip_app *app, dataset *ds, char *line, long repeat) {
    char *save = NULL, *tok = strtok_r(line, " \t\n", &save);
    if (!tok) return;
    clip_type t = !strcmp(tok, "f64") ? CLIP_F64 : CLIP_F32;
    dataset *d = &ds[t == CLIP_F64];
    const char *name = strtok_r(NULL, " \t\n", &save);
    if (!name) return;
    int is_dot = !strcmp(name, "dot");
    clip_process *p = NULL;
    char desc[512];
    snprintf(desc, sizeof desc, "%s %s", tok, name);
    if (clip_process_create(app, name, &p) != CLIP_OK) goto fail;
    double pv = 2;
    while ((tok = strtok_r(NULL, " \t\n", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = '\0';
        if (clip_process_set_text(p, tok, eq + 1) != CLIP_OK) goto fail;
        if (!strcmp(tok, "p")) pv = strtod(eq + 1, NULL);
        size_t off = strlen(desc);
        snprintf(desc + off, sizeof desc - off, " %s=%s", tok, eq + 1);
    }
    if (clip_process_set_input(p, 0, d->x) != CLIP_OK) goto fail;
    if (is_dot && clip_process_set_input(p, 1, d->y) != CLIP_OK) goto fail;
    if (clip_process_init(p) != CLIP_OK) goto fail;
    double t_ms[64];
    if (repeat > 64) repeat = 64;
    for (long r = -2; r < repeat; r++) {
        double ms = 0;
        if (clip_process_launch(p) != CLIP_OK || clip_process_time_ms(p, &ms) != CLIP_OK) goto fail;
        if (r >= 0) t_ms[r] = ms;
    }
    qsort(t_ms, (size_t)repeat, sizeof t_ms[0], cmp_d);
    double med = t_ms[repeat / 2];
    clip_data *out = NULL;
    const void *h = NULL;
    if (clip_process_output(p, 0, &out) != CLIP_OK || clip_data_host(out, &h) != CLIP_OK) goto fail;
    double got = t == CLIP_F64 ? *(const double *)h : *(const float *)h;
    long double ref = reference(d, is_dot, pv);
    double bytes = (double)d->n * (t == CLIP_F64 ? 8 : 4) * (is_dot ? 2 : 1);
    printf("%-52s variant=%-30s ms=%.4f GB/s=%.1f value=%.9g relerr=%.2g\n", desc,
           clip_process_variant(p), med, bytes / med / 1e6, got,
           isnan((double)ref) ? NAN : fabs(got - (double)ref) / fabs((double)ref));
    fflush(stdout);
    clip_process_destroy(p);
    return;
fail:
    printf("%-52s FAILED: %s\n", desc, clip_app_last_error(app));
    fflush(stdout);
    clip_process_destroy(p);
}

int main(int argc, char **argv) {
    const char *device = NULL;
    int log2n = 28;
    long repeat = 10;
    double deadline = 1e9, t0 = now_s();
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            device = argv[i + 1];
        else if (!strcmp(argv[i], "--log2n"))
            log2n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--deadline"))
            deadline = atof(argv[i + 1]);
    }
    clip_criteria crit = {0};
    if (device) clip_criteria_from_spec(device, &crit), crit.ignore_env = 1;
    clip_app *app = NULL;
    if (clip_app_create(&app, &crit) != CLIP_OK) {
        fprintf(stderr, "reduce_bench: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    printf("device: %s; f32 n=2^%d, f64 n=2^%d; median of %ld launches\n",
           clip_app_device(app)->name, log2n, log2n - 1, repeat);
    dataset ds[2] = {{0}, {0}};
    int made[2] = {0, 0};
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == '#' || line[0] == '\n') {
            fputs(line, stdout);
            continue;
        }
        if (now_s() - t0 > deadline) {
            printf("deadline: skipped %s", line);
            continue;
        }
        int k = !strncmp(line, "f64", 3);
        if (!made[k]) {
            if (!clip_app_device(app)->fp64 && k) continue;
            if (make_data(app, k ? CLIP_F64 : CLIP_F32, (size_t)1 << (log2n - k), &ds[k])) {
                fprintf(stderr, "reduce_bench: no memory for the data\n");
                return 1;
            }
            made[k] = 1;
        }
        run_case(app, ds, line, repeat);
    }
    for (int k = 0; k < 2; k++) {
        clip_data_destroy(ds[k].x);
        clip_data_destroy(ds[k].y);
        free(ds[k].hx);
        free(ds[k].hy);
    }
    clip_app_destroy(app);
    return 0;
}
