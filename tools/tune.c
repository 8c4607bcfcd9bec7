/* `clip tune`: searches GEMM parameter sets for the device and stores the fastest per size class
 * in the tuning cache, where matmul and matpow find them.
 *
 *   clip tune [--device SPEC] [--budget SECONDS] [--process matmul|matpow] [--types f32,c32,...]
 *             [--shapes MxNxK,...]
 *   clip tune --process conv2 [--device SPEC] [--budget SECONDS] [--types f32,...]
 *             [--filters 3x3,7x7,...] [--image RxC]
 *
 * conv2 (its own section below) picks a kernel and tiles per type and filter size.
 *
 * Per product (a representative of its size class, see clip_gemm_tuning_key) the engine's
 * candidates (clip_gemm_candidates: pruned by work-group size, local memory and registers; the
 * default first, then on NVIDIA sm_80+ the tensor family's sets, precision fp32) are built and run
 * through the ordinary matmul process with every tile parameter explicit. Each result is checked
 * against a double-precision reference on sampled entries before it is timed, as the time a
 * launch takes in a chain of them (clip_tool_chain_ms, tools/timing.h); a wrong or failing set
 * is reported and skipped. The fastest tiled sets are then retried with other splits of K (a
 * launch-time choice, no rebuild). The budget is shared among the products (large ones get two or
 * three shares) and no candidate starts that would overrun it. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../processes/gemm.h"
#include "../processes/gemm_tc.h"
#include "clip/clip.h"
#include "run_args.h"
#include "timing.h"
#include "tune.h"

#define MAX_TASKS 32
#define MAX_CAND 256
#define SAMPLES 48

typedef struct task {
    clip_type t;
    size_t m, n, k;
} task;

typedef struct task_data {
    clip_data *a, *b;
    size_t si[SAMPLES], sj[SAMPLES];
    double re[SAMPLES], im[SAMPLES], bound[SAMPLES];
    int ns;
} task_data;

typedef struct result {
    double ms;
    char desc[128];
} result;

static double flops(const task *k) {
    return (clip_type_is_complex(k->t) ? 8.0 : 2.0) * (double)k->m * (double)k->n * (double)k->k;
}

/* A product's share of the budget: big ones have more to gain and slower trials. */
static double share(const task *k) {
    return flops(k) >= 1e11 ? 3 : flops(k) >= 1e10 ? 2 : 1;
}

static int parse_type(const char *s, size_t len, clip_type *t) {
    static const char *const names[4] = {"f32", "f64", "c32", "c64"};
    for (int i = 0; i < 4; i++)
        if (len == 3 && !strncmp(s, names[i], 3)) return *t = (clip_type)i, 0;
    return -1;
}

/* A usage error: one line on stderr, as every error of the tool (the full usage is --help's). */
static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("clip: tune: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (clip tune --help)\n", stderr);
    va_end(ap);
    return 2;
}

/* An option the tunes do not know. Their options come in pairs, so --opt=value (which clip run
 * takes) is told the form they want rather than called unknown. */
static int unknown_option(const char *a) {
    const char *eq = strchr(a, '=');
    if (eq) return usage_error("write '%.*s %s', not '%s'", (int)(eq - a), a, eq + 1, a);
    return usage_error("unknown option '%s'", a);
}

/* The options both tunes take: --device, --budget, --types. 1 when a is one of them, 0 when it
 * is not, 2 (after the message) for an option written --opt=value, one without a value, or a
 * budget that is not a positive number of seconds: atof read "10abc" as 10 and "abc" as 0. */
static int common_option(const char *a, const char *v, const char **device, double *budget,
                         const char **types) {
    if (strchr(a, '=')) return unknown_option(a);
    if (!v) return usage_error("option '%s' needs a value", a);
    if (!strcmp(a, "--device")) {
        *device = v;
    } else if (!strcmp(a, "--budget")) {
        char *end = NULL;
        errno = 0;
        *budget = strtod(v, &end);
        if (end == v || *end || errno == ERANGE || !(*budget > 0) || !isfinite(*budget))
            return usage_error("--budget expects a positive number of seconds, got '%s'", v);
    } else if (!strcmp(a, "--types")) {
        *types = v;
    } else {
        return 0;
    }
    return 1;
}

/* n positive sizes "AxBx..." at *s, digits only (sscanf's %llu took "-5" as 2^64 - 5); *s moves
 * past them. 0, or -1. */
static int parse_sizes(const char **s, int n, size_t *v) {
    for (int i = 0; i < n; i++) {
        if (i && *(*s)++ != 'x') return -1;
        if (run_args_size(*s, s, &v[i]) || !v[i]) return -1;
    }
    return 0;
}

/* The --types list ("f32,c32,..."), at most 4: 0, or -1 when a name is not a type. */
static int parse_types(const char *list, clip_type *types, int *ntypes) {
    *ntypes = 0;
    for (const char *s = list; *s && *ntypes < 4;) {
        size_t len = strcspn(s, ",");
        if (parse_type(s, len, &types[(*ntypes)++])) return -1;
        s += len + (s[len] == ',');
    }
    return 0;
}

/* Element i of a host buffer of type t as (re, im). */
static void get(const void *h, clip_type t, size_t i, double *re, double *im) {
    int cx = clip_type_is_complex(t);
    size_t j = i * (cx ? 2 : 1);
    if (clip_type_is_double(t)) {
        *re = ((const double *)h)[j];
        *im = cx ? ((const double *)h)[j + 1] : 0;
    } else {
        *re = ((const float *)h)[j];
        *im = cx ? ((const float *)h)[j + 1] : 0;
    }
}

/* Random A and B on the device, and C at SAMPLES spread entries in double with error bounds. */
static int make_data(clip_app *app, const task *k, task_data *d) {
    size_t da[2] = {k->m, k->k}, db[2] = {k->k, k->n};
    memset(d, 0, sizeof *d);
    if (clip_data_create(app, k->t, 2, da, &d->a) != CLIP_OK ||
        clip_data_create(app, k->t, 2, db, &d->b) != CLIP_OK)
        return -1;
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    void *h[2];
    clip_data *x[2] = {d->a, d->b};
    for (int q = 0; q < 2; q++) {
        if (clip_data_host_write(x[q], &h[q]) != CLIP_OK) return -1;
        size_t reals = clip_data_numel(x[q]) * (clip_type_is_complex(k->t) ? 2 : 1);
        for (size_t i = 0; i < reals; i++) {
            s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
            double v = (double)((s * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
            if (clip_type_is_double(k->t))
                ((double *)h[q])[i] = v;
            else
                ((float *)h[q])[i] = (float)v;
        }
    }
    d->ns = SAMPLES;
    for (int e = 0; e < SAMPLES; e++) {
        /* The corners (edge tiles) and a spread of interior entries. */
        d->si[e] = e % 4 == 0 ? k->m - 1 : (size_t)(e * 2654435761ULL % k->m);
        d->sj[e] = e % 8 == 0 ? k->n - 1 : (size_t)(e * 40503ULL % k->n);
        double sr = 0, si = 0, sb = 0;
        for (size_t q = 0; q < k->k; q++) {
            double ar, ai, br, bi;
            get(h[0], k->t, d->si[e] + q * k->m, &ar, &ai);
            get(h[1], k->t, q + d->sj[e] * k->k, &br, &bi);
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
            sb += (fabs(ar) + fabs(ai)) * (fabs(br) + fabs(bi));
        }
        d->re[e] = sr, d->im[e] = si, d->bound[e] = sb;
    }
    return 0;
}

/* 0 when C matches the sampled reference within the rounding bound of a K-term sum. */
static int verify(clip_data *c, const task *k, const task_data *d, char *why, size_t cap) {
    const void *h = NULL;
    if (clip_data_host(c, &h) != CLIP_OK) {
        snprintf(why, cap, "cannot read the result");
        return -1;
    }
    double eps = clip_type_is_double(k->t) ? 0x1p-53 : 0x1p-24;
    for (int e = 0; e < d->ns; e++) {
        double re, im, tol = ((double)k->k + 4) * 2 * eps * d->bound[e] + 1e-300;
        get(h, k->t, d->si[e] + d->sj[e] * k->m, &re, &im);
        if (!(fabs(re - d->re[e]) <= tol) || !(fabs(im - d->im[e]) <= tol)) {
            snprintf(why, cap, "wrong result: C(%zu,%zu) = %g%+gi, want %g%+gi", d->si[e] + 1,
                     d->sj[e] + 1, re, im, d->re[e], d->im[e]);
            return -1;
        }
    }
    return 0;
}

/* chain_ms with tune's errors: 0, or -1 with the reason in why. */
static int chain_ms(clip_app *app, clip_process *p, double deadline, int max_reps, double *ms,
                    char *why, size_t cap) {
    if (clip_tool_chain_ms(app, p, deadline, max_reps, ms) == CLIP_OK) return 0;
    snprintf(why, cap, "%s", clip_app_last_error(app));
    return -1;
}

/* Builds, checks and times one set (chain_ms). 0 with its time, or -1 with the reason. */
static int try_set(clip_app *app, const task *k, const task_data *d, const clip_gemm_params *c,
                   double deadline, result *r, char *why, size_t cap) {
    clip_process *p = NULL;
    clip_data *out = NULL;
    int rc = -1;
    clip_status s = clip_process_create(app, "matmul", &p);
    if (s == CLIP_OK) s = clip_gemm_params_set(p, c);
    if (s == CLIP_OK) s = clip_process_set_input(p, 0, d->a);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, d->b);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
    if (s != CLIP_OK) {
        snprintf(why, cap, "%s", clip_app_last_error(app));
        goto done;
    }
    if (verify(out, k, d, why, cap) || chain_ms(app, p, deadline, 21, &r->ms, why, cap)) goto done;
    snprintf(r->desc, sizeof r->desc, "%s", clip_process_variant(p));
    rc = 0;
done:
    clip_process_destroy(p);
    return rc;
}

/* Tunes one product within [start, deadline); the best goes to the cache. Returns 0 if stored. */
static int tune_task(clip_app *app, int arch, const task *k, double deadline, result *def,
                     result *best) {
    const clip_device_info *dev = clip_app_device(app);
    task_data d;
    char key[96], why[512];
    clip_gemm_tuning_key(arch, k->t, k->m, k->n, k->k, key, sizeof key);
    printf("%s: %zux%zu * %zux%zu (%s)\n", key, k->m, k->k, k->k, k->n, clip_type_name(k->t));
    fflush(stdout);
    def->ms = best->ms = INFINITY;
    def->desc[0] = best->desc[0] = '\0';
    clip_gemm_params *cand = malloc(MAX_CAND * sizeof *cand);
    int rc = -1;
    if (!cand || make_data(app, k, &d)) {
        printf("  cannot make the data: %s\n", clip_app_last_error(app));
        goto done;
    }
    int n = clip_gemm_candidates(dev, arch, k->t, k->m, k->n, k->k, cand, MAX_CAND);
    double cost = 0; /* the slowest build + check + timing so far */
    int tried = 0;
    clip_gemm_params top[3];
    double top_ms[3] = {INFINITY, INFINITY, INFINITY};
    for (int i = 0; i < n; i++) {
        double t0 = clip_tool_now_s();
        if (i > 0 && t0 + 1.2 * cost > deadline) break;
        result r;
        char desc[128];
        clip_gemm_describe(&cand[i], desc, sizeof desc);
        if (try_set(app, k, &d, &cand[i], deadline, &r, why, sizeof why)) {
            printf("  [%3d/%d] %-44s skipped: %.300s\n", i + 1, n, desc, why);
        } else {
            printf("  [%3d/%d] %-44s %9.4f ms %9.1f GFLOP/s\n", i + 1, n, r.desc, r.ms,
                   flops(k) / r.ms * 1e-6);
            if (i == 0) *def = r;
            if (r.ms < best->ms) *best = r;
            /* Keep the three fastest tiled sets for the split sweep. */
            for (int s = 0; s < 3 && cand[i].variant == CLIP_GEMM_TILED; s++)
                if (r.ms < top_ms[s]) {
                    for (int u = 2; u > s; u--)
                        top_ms[u] = top_ms[u - 1], top[u] = top[u - 1];
                    top_ms[s] = r.ms, top[s] = cand[i];
                    break;
                }
        }
        fflush(stdout);
        tried++;
        double spent = clip_tool_now_s() - t0;
        if (spent > cost) cost = spent;
    }
    /* Other splits of K for the fastest sets: launch-time only, so quick to try. */
    static const int splits[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    for (int s = 0; s < 3 && top_ms[s] < INFINITY; s++)
        for (int q = 0; q < 10; q++) {
            clip_gemm_params c = top[s];
            if (splits[q] == c.ksplit || (size_t)splits[q] * 2 * (size_t)c.kwg > k->k) continue;
            if (clip_tool_now_s() + 0.5 > deadline) break;
            c.ksplit = splits[q];
            if (c.ksplit > 1) c.sk = 0; /* stream-K is for unsplit grids */
            result r;
            if (try_set(app, k, &d, &c, deadline, &r, why, sizeof why)) continue;
            printf("  [split] %-44s %9.4f ms %9.1f GFLOP/s\n", r.desc, r.ms,
                   flops(k) / r.ms * 1e-6);
            if (r.ms < best->ms) *best = r;
        }
    if (best->ms < INFINITY) {
        char *tag = strstr(best->desc, " tuned");
        if (tag) *tag = '\0';
        if (clip_tuning_store(app, "matmul", key, best->desc) == CLIP_OK)
            rc = 0;
        else
            printf("  cannot store: %s\n", clip_app_last_error(app));
    }
    printf("  best of %d: %s\n", tried, best->ms < INFINITY ? best->desc : "none");
done:
    clip_data_destroy(d.a);
    clip_data_destroy(d.b);
    free(cand);
    return rc;
}

/* The representative products of the device: squares and the ResNet-50 im2col shapes on GPUs,
 * small squares on CPUs; f64 where the device has it. */
static int default_tasks(const clip_device_info *dev, const clip_type *types, int ntypes,
                         task *out) {
    static const size_t resnet[][3] = {
        {64, 12544, 147}, {64, 3136, 64},   {64, 3136, 576},  {256, 3136, 64}, {128, 784, 1152},
        {512, 784, 128},  {256, 196, 2304}, {1024, 196, 256}, {512, 49, 4608}, {2048, 49, 512}};
    int n = 0, gpu = dev->type != CLIP_DEVICE_CPU;
    for (int i = 0; i < ntypes; i++) {
        clip_type t = types[i];
        if (clip_type_is_double(t) && !dev->fp64) continue;
        const size_t big = gpu ? 4096 : 512, mid = gpu ? 1024 : 256;
        if (t == CLIP_F32 || t == CLIP_C32) out[n++] = (task){t, big, big, big};
        out[n++] = (task){t, mid, mid, mid};
        if (t == CLIP_F32 && gpu)
            for (int r = 0; r < 10 && n < MAX_TASKS; r++)
                out[n++] = (task){t, resnet[r][0], resnet[r][1], resnet[r][2]};
    }
    return n;
}

static int help(void) {
    printf("usage: clip tune [--device SPEC] [--budget SECONDS] [--process matmul|matpow] "
           "[--types f32,c32,f64,c64] [--shapes MxNxK,...]\n"
           "       clip tune --process conv2 [--device SPEC] [--budget SECONDS] "
           "[--types f32,...] [--filters 3x3,7x7,...] [--image RxC]\n");
    return 0;
}

static int bad_types(const char *v) {
    return usage_error("--types expects f32, f64, c32 or c64 separated by commas, got '%s'", v);
}

static int bad_device(const char *v) {
    return usage_error("--device %s: %s", v, clip_app_last_error(NULL));
}

/* A cache that does not parse would hide every entry stored after it: move it aside. */
static void check_cache(clip_app *app) {
    char v[256], path[1024];
    clip_tuning_lookup(app, "matmul", "-", v, sizeof v);
    if (!clip_tuning_warning()[0] || clip_tuning_path(path, sizeof path) != CLIP_OK) return;
    char aside[1100];
    snprintf(aside, sizeof aside, "%s.corrupt", path);
    printf("warning: %s; moved to %s\n", clip_tuning_warning(), aside);
    rename(path, aside);
}

/* ---- conv2 -------------------------------------------------------------------------------
 * conv2 reads one cache value per type and filter size (processes/conv2.c: key "TYPE-kMxN",
 * value "local:wx,wy,rj", "global:wx,wy,rj,vw", "block:wx,wy,ri,rj", "rblock:ri,rj,vw",
 * "tensor:rj,rows"; "fft" is honoured only with accuracy normwise, so tune never offers it) and has
 * no tile parameters of its own, so each candidate is offered to conv2 through a scratch cache (the
 * real path + ".trial") and what init actually took is read back from clip_process_variant: a value
 * conv2 rejects or shrinks shows up as a different or duplicate configuration, never as a wrong
 * entry. Every result is checked against the global kernel's before it is timed; the value stored
 * is the one conv2 reported, so reading it back selects the same kernel. */

#define C2_MAX_TASKS 64
#define C2_MAX_CAND 40

typedef struct c2_task {
    clip_type t;
    size_t mk, nk;
} c2_task;

typedef struct c2_result {
    double ms;
    char value[64];
} c2_result;

/* Data r x c of type t, uniform in [-1, 1); *norm is its Frobenius norm. */
static int c2_random(clip_app *app, clip_type t, size_t r, size_t c, unsigned long long *s,
                     clip_data **d, double *norm) {
    size_t dims[2] = {r, c};
    void *h = NULL;
    if (clip_data_create(app, t, 2, dims, d) != CLIP_OK || clip_data_host_write(*d, &h) != CLIP_OK)
        return -1;
    size_t reals = r * c * (clip_type_is_complex(t) ? 2 : 1);
    double ss = 0;
    for (size_t i = 0; i < reals; i++) {
        *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
        double v = (double)((*s * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
        if (clip_type_is_double(t))
            ((double *)h)[i] = v;
        else
            ((float *)h)[i] = (float)v, v = (float)v;
        ss += v * v;
    }
    *norm = sqrt(ss);
    return 0;
}

/* conv2(A, K, 'same') with zero padding and no separable path, initialised and launched once. */
static clip_status c2_run(clip_app *app, clip_data *a, clip_data *k, const char *variant,
                          clip_process **p) {
    clip_status s = clip_process_create(app, "conv2", p);
    if (s == CLIP_OK) s = clip_process_set_choice(*p, "shape", "same");
    if (s == CLIP_OK) s = clip_process_set_choice(*p, "separable", "off");
    if (s == CLIP_OK) s = clip_process_set_choice(*p, "variant", variant);
    if (s == CLIP_OK) s = clip_process_set_input(*p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(*p, 1, k);
    if (s == CLIP_OK) s = clip_process_init(*p);
    if (s == CLIP_OK) s = clip_process_launch(*p);
    return s;
}

/* The cache value for a variant conv2 reported ("block 32x4 2x16 k7x7" -> "block:32,4,2,16"). */
static int c2_value(const char *variant, char *out, size_t cap) {
    int a, b, c, d;
    if (!strncmp(variant, "fft ", 4))
        snprintf(out, cap, "fft");
    else if (sscanf(variant, "local %dx%d 1x%d", &a, &b, &c) == 3)
        snprintf(out, cap, "local:%d,%d,%d", a, b, c);
    else if (sscanf(variant, "global %dx%d %dx%d", &a, &b, &c, &d) == 4)
        snprintf(out, cap, "global:%d,%d,%d,%d", a, b, d, c);
    else if (sscanf(variant, "block %dx%d %dx%d", &a, &b, &c, &d) == 4)
        snprintf(out, cap, "block:%d,%d,%d,%d", a, b, c, d);
    else if (sscanf(variant, "rblock %dx%dx%d", &a, &b, &c) == 3)
        snprintf(out, cap, "rblock:%d,%d,%d", a, c, b);
    else if (sscanf(variant, "tensor %dx%d", &a, &b) == 2)
        snprintf(out, cap, "tensor:%d,%d", b, a);
    else
        return -1;
    return 0;
}

/* Offers `cand` ("" for the untuned choice) to conv2 through the trial cache at `trial`, checks
 * the result against ref (reals) within eps relative to scale = ||A|| ||K||, and times it. 0 with
 * r filled; 1 when conv2 took a configuration already in seen (r->value set); -1 with why. */
static int c2_try(clip_app *app, const c2_task *k, clip_data *a, clip_data *f, const double *ref,
                  double scale, const char *cand, const char *trial, char seen[][64], int nseen,
                  double deadline, c2_result *r, char *why, size_t cap) {
    char key[64];
    snprintf(key, sizeof key, "%s-k%zux%zu", clip_type_name(k->t), k->mk, k->nk);
    remove(trial);
    if (cand[0] && clip_tuning_store(app, "conv2", key, cand) != CLIP_OK) {
        snprintf(why, cap, "%s", clip_app_last_error(app));
        return -1;
    }
    clip_process *p = NULL;
    clip_data *out = NULL;
    int rc = -1;
    if (c2_run(app, a, f, "auto", &p) != CLIP_OK || clip_process_output(p, 0, &out) != CLIP_OK) {
        snprintf(why, cap, "%s", clip_app_last_error(app));
        goto done;
    }
    if (c2_value(clip_process_variant(p), r->value, sizeof r->value)) {
        snprintf(why, cap, "unexpected variant %s", clip_process_variant(p));
        goto done;
    }
    size_t kl = strcspn(cand, ":");
    if (cand[0] && strncmp(cand, r->value, kl)) {
        snprintf(why, cap, "not taken here (conv2 ran %s)", clip_process_variant(p));
        goto done;
    }
    for (int i = 0; i < nseen; i++)
        if (!strcmp(seen[i], r->value)) {
            rc = 1;
            goto done;
        }
    const void *h = NULL;
    if (clip_data_host(out, &h) != CLIP_OK) {
        snprintf(why, cap, "cannot read the result");
        goto done;
    }
    size_t n = clip_data_numel(out) * (clip_type_is_complex(k->t) ? 2 : 1);
    double num = 0, eps = clip_type_is_double(k->t) ? 1e-12 : 1e-5;
    for (size_t i = 0; i < n; i++) {
        double x = clip_type_is_double(k->t) ? ((const double *)h)[i] : ((const float *)h)[i];
        num += (x - ref[i]) * (x - ref[i]);
    }
    if (!(sqrt(num) <= eps * scale)) {
        snprintf(why, cap, "wrong result: error %.3g relative to ||A|| ||K||", sqrt(num) / scale);
        goto done;
    }
    if (chain_ms(app, p, deadline, 11, &r->ms, why, cap)) goto done;
    rc = 0;
done:
    clip_process_destroy(p);
    return rc;
}

/* The candidates after the untuned choice: every kernel at its defaults, then tile sets around
 * the global kernel's default here (`global`, its value), around the GPU and CPU defaults of
 * processes/conv2_direct.c, rblock's register blocks (ri vectors by rj columns, 12 to 24
 * accumulators, the native vector width) and the tensor kernel's group widths and rows (sm_90
 * only: a device without it runs auto's choice, which counts as seen). */
#define C2_KERNELS 4 /* fixed[]'s first entries: the kernels at their defaults */
static int c2_candidates(const char *global, char out[][64]) {
    static const char *const fixed[] = {
        "local",           "block",           "rblock",          "tensor",
        "rblock:2,12",     "rblock:2,8",      "rblock:3,8",      "rblock:3,6",
        "rblock:4,4",      "rblock:2,6",      "rblock:1,16",     "local:32,8,8",
        "local:16,4,8",    "local:32,4,4",    "local:32,4,16",   "local:64,4,8",
        "block:32,4,2,16", "block:32,4,1,16", "block:32,8,2,8",  "block:16,8,2,16",
        "block:32,4,4,8",  "block:16,2,1,4",  "block:16,2,2,8",  "block:8,4,2,8",
        "global:32,8,8,1", "global:32,4,8,1", "global:64,4,8,1", "global:32,8,4,1",
        "tensor:128",      "tensor:512",      "tensor:256,64",   "tensor:256,128"};
    int n = 0, wx, wy, rj, vw;
    /* The kernels at their defaults first (global's too: the untuned choice may be rblock), so a
     * small budget still compares them. fft is no candidate: auto's default accuracy
     * (elementwise, processes/conv2.c) never takes it. */
    for (size_t i = 0; i < C2_KERNELS; i++)
        snprintf(out[n++], 64, "%s", fixed[i]);
    if (global[0]) snprintf(out[n++], 64, "%s", global);
    if (sscanf(global, "global:%d,%d,%d,%d", &wx, &wy, &rj, &vw) == 4) {
        const int d[4][2] = {{rj * 2, vw}, {rj / 2, vw}, {rj, vw * 2}, {rj, vw / 2}};
        for (int i = 0; i < 4; i++)
            if (d[i][0] >= 1 && d[i][1] >= 1 && d[i][1] <= 16)
                snprintf(out[n++], 64, "global:%d,%d,%d,%d", wx, wy, d[i][0], d[i][1]);
    }
    for (size_t i = C2_KERNELS; i < sizeof fixed / sizeof *fixed; i++)
        snprintf(out[n++], 64, "%s", fixed[i]);
    return n;
}

/* Tunes one filter size class; returns 0 when a value was stored in the real cache (whose path
 * is `real`; the trial cache is in the environment meanwhile). */
static int c2_tune_task(clip_app *app, const c2_task *k, size_t rows, size_t cols, const char *real,
                        const char *trial, double deadline, c2_result *def, c2_result *best) {
    char key[64], why[512], seen[C2_MAX_CAND + 1][64], cand[C2_MAX_CAND][64];
    snprintf(key, sizeof key, "%s-k%zux%zu", clip_type_name(k->t), k->mk, k->nk);
    printf("%s: %zux%zu image, %zux%zu filter (%s)\n", key, rows, cols, k->mk, k->nk,
           clip_type_name(k->t));
    fflush(stdout);
    def->ms = best->ms = INFINITY;
    def->value[0] = best->value[0] = '\0';
    unsigned long long seed = 0x9e3779b97f4a7c15ULL;
    clip_data *a = NULL, *f = NULL;
    clip_process *gp = NULL;
    clip_data *gout = NULL;
    double *ref = NULL, na = 0, nk = 0;
    int rc = -1, nseen = 0, tried = 0;
    if (c2_random(app, k->t, rows, cols, &seed, &a, &na) ||
        c2_random(app, k->t, k->mk, k->nk, &seed, &f, &nk) ||
        c2_run(app, a, f, "global", &gp) != CLIP_OK ||
        clip_process_output(gp, 0, &gout) != CLIP_OK) {
        printf("  cannot run the reference: %s\n", clip_app_last_error(app));
        goto done;
    }
    size_t n = clip_data_numel(gout) * (clip_type_is_complex(k->t) ? 2 : 1);
    const void *h = NULL;
    ref = malloc((n ? n : 1) * sizeof *ref);
    if (!ref || clip_data_host(gout, &h) != CLIP_OK) {
        printf("  cannot read the reference\n");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        ref[i] = clip_type_is_double(k->t) ? ((const double *)h)[i] : ((const float *)h)[i];
    char gval[64] = "";
    c2_value(clip_process_variant(gp), gval, sizeof gval);
    int nc = c2_candidates(gval, cand);
    const double macs = (double)rows * cols * k->mk * k->nk;
    double cost = 0; /* the slowest offer + check + timing so far */
    for (int i = -1; i < nc; i++) {
        const char *c = i < 0 ? "" : cand[i];
        double t0 = clip_tool_now_s();
        if (i >= 0 && t0 + 1.2 * cost > deadline) break;
        c2_result r;
        int got = c2_try(app, k, a, f, ref, na * nk, c, trial, seen, nseen, deadline, &r, why,
                         sizeof why);
        if (got < 0) {
            printf("  [%2d/%d] %-20s skipped: %.300s\n", i + 2, nc + 1, i < 0 ? "(untuned)" : c,
                   why);
        } else if (got == 0) {
            printf("  [%2d/%d] %-20s %9.4f ms %9.2f GMAC/s%s\n", i + 2, nc + 1, r.value, r.ms,
                   macs / r.ms * 1e-6, i < 0 ? "  (untuned choice)" : "");
            snprintf(seen[nseen++], 64, "%s", r.value);
            if (i < 0) *def = r;
            if (r.ms < best->ms) *best = r;
            tried++;
        }
        fflush(stdout);
        double spent = clip_tool_now_s() - t0;
        if (spent > cost) cost = spent;
    }
    remove(trial);
    if (best->ms < INFINITY) {
        setenv("CLIP_TUNING_CACHE", real, 1);
        if (clip_tuning_store(app, "conv2", key, best->value) == CLIP_OK)
            rc = 0;
        else
            printf("  cannot store: %s\n", clip_app_last_error(app));
        setenv("CLIP_TUNING_CACHE", trial, 1);
    }
    printf("  best of %d: %s\n", tried, best->ms < INFINITY ? best->value : "none");
done:
    free(ref);
    clip_process_destroy(gp);
    clip_data_destroy(a);
    clip_data_destroy(f);
    return rc;
}

static int c2_tune_main(int argc, char **argv) {
    const char *device = NULL, *types_s = "f32", *filters_s = "3x3,5x5,7x7,9x9,15x15,31x31";
    double budget = 300;
    size_t image[2] = {2048, 2048};
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int common = common_option(a, v, &device, &budget, &types_s);
        if (common == 2) return 2;
        if (common) continue;
        if (!strcmp(a, "--filters")) {
            filters_s = v;
        } else if (!strcmp(a, "--image")) {
            const char *s = v;
            if (parse_sizes(&s, 2, image) || *s)
                return usage_error("--image expects RxC of positive sizes, got '%s'", v);
        } else if (strcmp(a, "--process")) {
            return unknown_option(a);
        }
    }
    const size_t rows = image[0], cols = image[1];
    const double start = clip_tool_now_s();
    budget = budget * 0.97 - 0.5;
    clip_type types[4];
    int ntypes = 0;
    if (parse_types(types_s, types, &ntypes)) return bad_types(types_s);
    clip_criteria crit = {0};
    if (device) {
        if (clip_criteria_from_spec(device, &crit) != CLIP_OK) return bad_device(device);
        crit.ignore_env = 1;
    }
    c2_task tasks[C2_MAX_TASKS];
    int nt = 0;
    for (const char *s = filters_s; *s;) {
        size_t mn[2];
        int bad = parse_sizes(&s, 1, &mn[0]);
        mn[1] = mn[0]; /* N alone is NxN */
        if (!bad && *s == 'x') s++, bad = parse_sizes(&s, 1, &mn[1]);
        if (bad || mn[0] > 1024 || mn[1] > 1024 || (*s && *s != ','))
            return usage_error("--filters expects RxC or N, each from 1 to 1024, separated by "
                               "commas, got '%s'",
                               filters_s);
        for (int t = 0; t < ntypes && nt < C2_MAX_TASKS; t++)
            tasks[nt++] = (c2_task){types[t], mn[0], mn[1]};
        s += *s == ',';
    }
    clip_app *app = NULL;
    if (clip_app_create(&app, &crit) != CLIP_OK) {
        fprintf(stderr, "clip: tune: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    const clip_device_info *dev = clip_app_device(app);
    int keep = 0;
    for (int i = 0; i < nt; i++)
        if (!clip_type_is_double(tasks[i].t) || dev->fp64) tasks[keep++] = tasks[i];
    nt = keep;
    char real[1024] = "", trial[1100];
    if (clip_tuning_path(real, sizeof real) != CLIP_OK) {
        fprintf(stderr, "clip: tune: %s\n", clip_app_last_error(NULL));
        clip_app_destroy(app);
        return 1;
    }
    const char *env = getenv("CLIP_TUNING_CACHE");
    char *saved = env ? strdup(env) : NULL;
    snprintf(trial, sizeof trial, "%s.trial", real);
    printf("clip tune: conv2 on %s (%s), %d filter classes, %zux%zu image, budget %.0f s, "
           "cache %s\n",
           dev->name, dev->driver, nt, rows, cols, budget, real);
    check_cache(app);
    setenv("CLIP_TUNING_CACHE", trial, 1);
    c2_result def[C2_MAX_TASKS], best[C2_MAX_TASKS];
    int stored = 0;
    for (int i = 0; i < nt; i++) {
        double left = start + budget - clip_tool_now_s();
        if (left <= 0) {
            def[i].ms = best[i].ms = INFINITY;
            def[i].value[0] = best[i].value[0] = '\0';
            continue;
        }
        stored += c2_tune_task(app, &tasks[i], rows, cols, real, trial,
                               clip_tool_now_s() + left / (nt - i), &def[i], &best[i]) == 0;
    }
    remove(trial);
    if (saved)
        setenv("CLIP_TUNING_CACHE", saved, 1);
    else
        unsetenv("CLIP_TUNING_CACHE");
    free(saved);
    printf("\n%-14s %-22s %11s %11s %8s  %s\n", "size class", "untuned choice", "untuned ms",
           "tuned ms", "speedup", "stored value");
    for (int i = 0; i < nt; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s-k%zux%zu", clip_type_name(tasks[i].t), tasks[i].mk,
                 tasks[i].nk);
        if (best[i].ms < INFINITY && def[i].ms < INFINITY)
            printf("%-14s %-22s %11.4f %11.4f %7.2fx  %s\n", key, def[i].value, def[i].ms,
                   best[i].ms, def[i].ms / best[i].ms, best[i].value);
        else
            printf("%-14s %-22s %11s %11s %8s  %s\n", key, def[i].value[0] ? def[i].value : "-",
                   "-", "-", "-", best[i].ms < INFINITY ? best[i].value : "(not tuned)");
    }
    printf("stored %d of %d in %.1f s\n", stored, nt, clip_tool_now_s() - start);
    clip_app_destroy(app);
    return stored > 0 ? 0 : 1;
}

int clip_tune_main(int argc, char **argv) {
    const char *device = NULL, *types_s = "f32,c32,f64", *shapes_s = NULL;
    double budget = 300;
    for (int i = 0; i < argc; i += 2)
        if (run_args_is_help(argv[i])) return help();
    for (int i = 0; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--process") && !strcmp(argv[i + 1], "conv2"))
            return c2_tune_main(argc, argv);
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int common = common_option(a, v, &device, &budget, &types_s);
        if (common == 2) return 2;
        if (common) continue;
        if (!strcmp(a, "--shapes")) {
            shapes_s = v;
        } else if (!strcmp(a, "--process")) {
            if (strcmp(v, "matmul") && strcmp(v, "matpow")) {
                fprintf(stderr,
                        "clip: tune: --process %s: only matmul and matpow (which share the "
                        "GEMM engine) and conv2 are tuned\n",
                        v);
                return 2;
            }
        } else {
            return unknown_option(a);
        }
    }
    const double start = clip_tool_now_s();
    budget = budget * 0.97 - 0.5; /* room for the last candidate's overrun and the table */
    clip_type types[4];
    int ntypes = 0;
    if (parse_types(types_s, types, &ntypes)) return bad_types(types_s);
    /* The shapes before the device opens: a typo is an error at once, not after a build. */
    size_t shapes[MAX_TASKS][3];
    int nshapes = 0;
    for (const char *s = shapes_s; s && *s && nshapes < MAX_TASKS;) {
        if (parse_sizes(&s, 3, shapes[nshapes++]) || (*s && *s != ','))
            return usage_error("--shapes expects MxNxK,... of positive sizes, got '%s'", shapes_s);
        s += *s == ',';
    }
    clip_criteria crit = {0};
    if (device) {
        if (clip_criteria_from_spec(device, &crit) != CLIP_OK) return bad_device(device);
        crit.ignore_env = 1;
    }
    clip_app *app = NULL;
    if (clip_app_create(&app, &crit) != CLIP_OK) {
        fprintf(stderr, "clip: tune: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    const clip_device_info *dev = clip_app_device(app);
    task tasks[MAX_TASKS];
    int nt = 0;
    if (shapes_s) {
        for (int i = 0; i < nshapes; i++)
            for (int t = 0; t < ntypes && nt < MAX_TASKS; t++)
                if (!clip_type_is_double(types[t]) || dev->fp64)
                    tasks[nt++] = (task){types[t], shapes[i][0], shapes[i][1], shapes[i][2]};
    } else {
        nt = default_tasks(dev, types, ntypes, tasks);
    }
    char path[1024] = "";
    clip_tuning_path(path, sizeof path);
    printf("clip tune: %s (%s), %d products, budget %.0f s, cache %s\n", dev->name, dev->driver, nt,
           budget, path);
    check_cache(app);
    result def[MAX_TASKS], best[MAX_TASKS];
    const int arch = clip_app_device(app)->nv_arch; /* the tensor family's sets and keys */
    double weight = 0;
    for (int i = 0; i < nt; i++)
        weight += share(&tasks[i]);
    int stored = 0;
    for (int i = 0; i < nt; i++) {
        double w = share(&tasks[i]), left = start + budget - clip_tool_now_s();
        double deadline = clip_tool_now_s() + left * w / weight;
        weight -= w;
        if (left <= 0) {
            def[i].ms = best[i].ms = INFINITY;
            def[i].desc[0] = best[i].desc[0] = '\0';
            continue;
        }
        stored += tune_task(app, arch, &tasks[i], deadline, &def[i], &best[i]) == 0;
    }
    printf("\n%-26s %-16s %12s %12s %8s  %s\n", "size class", "M x N x K", "default GF/s",
           "tuned GF/s", "speedup", "stored set");
    for (int i = 0; i < nt; i++) {
        char key[96], shape[64];
        clip_gemm_tuning_key(arch, tasks[i].t, tasks[i].m, tasks[i].n, tasks[i].k, key, sizeof key);
        snprintf(shape, sizeof shape, "%zux%zux%zu", tasks[i].m, tasks[i].n, tasks[i].k);
        double f = flops(&tasks[i]) * 1e-6;
        printf("%-26s %-16s %12.1f %12.1f %7.2fx  %s\n", key, shape, f / def[i].ms, f / best[i].ms,
               def[i].ms / best[i].ms, best[i].ms < INFINITY ? best[i].desc : "(not tuned)");
    }
    printf("stored %d of %d in %.1f s\n", stored, nt, clip_tool_now_s() - start);
    clip_app_destroy(app);
    return stored > 0 ? 0 : 1;
}
