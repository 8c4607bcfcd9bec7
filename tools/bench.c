/* `clip bench`: times any registered process on random data made on the host, as the median of
 * repeated launches measured by device events, and prints ms, GFLOP/s and GB/s; then chain_ms,
 * the time a launch takes in a chain of them (tools/timing.h: the device's gaps between kernels
 * and the host's enqueue cost included, which events leave out or add).
 *   clip bench NAME SHAPE... [--type f32|f64|c32|c64] [--PARAM VALUE]... [--repeat R]
 *              [--warmup W] [--device SPEC] [--csv FILE] [--rank1 I] [--no-chain]
 * SHAPE is RxC or RxCxD... (one per input). --rank1 I makes input I (from 0) the outer product
 * u * v.' of two random vectors (e.g. a separable conv2 filter). --no-chain skips chain_ms (up
 * to 1 s of extra launches): the line leaves the field out, the CSV row leaves it empty. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clip/clip.h"
#include "clip/process_author.h"
#include "run_args.h"
#include "timing.h"

#define MAX_IN 8

/* RxC or RxCxD...: each size digits only (strtoull takes "-5" as a huge size), no trailing 'x',
 * and at most CLIP_MAX_DIMS of them rather than silently dropping the rest. */
static int parse_shape(const char *s, size_t *dims, int *nd) {
    *nd = 0;
    for (;;) {
        if (*nd == CLIP_MAX_DIMS || run_args_size(s, &s, &dims[*nd])) return -1;
        ++*nd;
        if (!*s) return 0;
        if (*s != 'x' && *s != 'X') return -1;
        s++;
    }
}

static int parse_type(const char *s, clip_type *t) {
    static const char *const names[4] = {"f32", "f64", "c32", "c64"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) return *t = (clip_type)i, 0;
    return -1;
}

/* Floating-point operations of one launch, where the process has a known count (else 0). */
static double flops_of(const char *name, clip_data **in, int n_in, clip_process *p) {
    int cx = clip_type_is_complex(clip_data_type(in[0]));
    double f = cx ? 4.0 : 1.0; /* a complex multiply-add is 4 real ones */
    if (!strcmp(name, "matmul") && n_in == 2)
        return 2.0 * f * clip_data_dim(in[0], 0) * clip_data_dim(in[0], 1) * clip_data_dim(in[1], 1);
    if (!strcmp(name, "matpow")) {
        double pw = 0;
        clip_process_get_real(p, "power", &pw);
        unsigned long long e = (unsigned long long)pw;
        int products = 0;
        for (int bits = 0; e; e >>= 1, bits++) products += (e > 1) + (e & 1);
        if (products > 0) products--; /* the first set bit costs no product */
        double n = (double)clip_data_dim(in[0], 0);
        return 2.0 * f * n * n * n * products;
    }
    if (!strcmp(name, "conv2") && n_in == 2) {
        clip_data *out = NULL;
        clip_process_output(p, 0, &out);
        return 2.0 * f * (double)clip_data_numel(out) * (double)clip_data_numel(in[1]);
    }
    return 0.0;
}

/* Past this many warm-up launches warmup + repeat could overflow; nobody needs a billion. */
#define BENCH_WARMUP_MAX 1000000000L

static int bad_number(const char *option, const char *v, long lo, long hi) {
    fprintf(stderr, "clip: bench: %s expects an integer from %ld to %ld, got '%s'\n", option, lo,
            hi, v);
    return 2;
}

#define BENCH_USAGE "usage: " CLIP_BENCH_SYNOPSIS "\n"

int clip_bench_main(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (run_args_is_help(argv[i])) {
            fputs(BENCH_USAGE, stdout);
            return 0;
        }
    if (argc < 2) {
        fputs("clip: " BENCH_USAGE, stderr);
        return 2;
    }
    const char *name = argv[0];
    const clip_process_desc *d = clip_process_find(name);
    if (!d) {
        fprintf(stderr, "clip: bench: no process named '%s'\n", name);
        return 2;
    }
    size_t dims[MAX_IN][CLIP_MAX_DIMS];
    int nd[MAX_IN], n_in = 0;
    clip_type type = CLIP_F32;
    long repeat = 20, warmup = 2;
    const char *device = NULL, *csv = NULL;
    long rank1 = -1;
    int no_chain = 0;
    const char *params[16][2];
    int n_params = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--type") && v) {
            if (parse_type(v, &type)) goto bad;
            i++;
        } else if (!strcmp(a, "--repeat") && v) {
            if (run_args_integer(v, 1, RUN_ARGS_REPEAT_MAX, &repeat))
                return bad_number(a, v, 1, RUN_ARGS_REPEAT_MAX);
            i++;
        } else if (!strcmp(a, "--warmup") && v) {
            if (run_args_integer(v, 0, BENCH_WARMUP_MAX, &warmup))
                return bad_number(a, v, 0, BENCH_WARMUP_MAX);
            i++;
        } else if (!strcmp(a, "--device") && v) {
            device = v, i++;
        } else if (!strcmp(a, "--csv") && v) {
            csv = v, i++;
        } else if (!strcmp(a, "--rank1") && v) {
            if (run_args_integer(v, 0, MAX_IN - 1, &rank1)) return bad_number(a, v, 0, MAX_IN - 1);
            i++;
        } else if (!strcmp(a, "--no-chain")) {
            no_chain = 1;
        } else if (!strncmp(a, "--", 2) && n_params < 16) {
            int pi = -1;
            for (int k = 0; k < d->n_params; k++)
                if (!strcmp(d->params[k].name, a + 2)) pi = k;
            if (pi < 0) goto bad;
            params[n_params][0] = a + 2;
            params[n_params][1] = NULL;
            if (d->params[pi].kind != CLIP_PARAM_BOOL) {
                if (!v) goto bad;
                params[n_params][1] = v;
                i++;
            }
            n_params++;
        } else if (n_in < MAX_IN && !parse_shape(a, dims[n_in], &nd[n_in])) {
            n_in++;
        } else if (strncmp(a, "--", 2)) {
            if (n_in == MAX_IN)
                fprintf(stderr, "clip: bench: more than %d shapes\n", MAX_IN);
            else
                fprintf(stderr, "clip: bench: bad shape '%s' (sizes like 1024x1024, at most %d)\n",
                        a, CLIP_MAX_DIMS);
            return 2;
        } else {
            goto bad;
        }
    }
    if (n_in != d->n_inputs) goto bad;
    if (rank1 >= n_in) {
        fprintf(stderr, "clip: bench: --rank1 %ld: %s has %d input%s, counted from 0\n", rank1,
                name, n_in, n_in == 1 ? "" : "s");
        return 2;
    }

    clip_criteria crit = {0};
    if (device) {
        if (clip_criteria_from_spec(device, &crit) != CLIP_OK) goto bad;
        crit.ignore_env = 1;
    }
    clip_app *app = NULL;
    if (clip_app_create(&app, &crit) != CLIP_OK) {
        fprintf(stderr, "clip: bench: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    int rc = 1;
    clip_status st = CLIP_OK; /* of the parameters and init: a value they refuse is usage */
    clip_data *in[MAX_IN] = {0};
    clip_process *p = NULL;
    double *t = calloc((size_t)repeat, sizeof *t);
    unsigned long long seed = 12345;
    for (int i = 0; i < n_in; i++) {
        if (clip_data_create(app, type, nd[i], dims[i], &in[i]) != CLIP_OK) goto fail;
        void *h = NULL;
        if (clip_data_host_write(in[i], &h) != CLIP_OK) goto fail;
        const int cx = clip_type_is_complex(type);
        size_t n = clip_data_numel(in[i]) * (cx ? 2 : 1);
        for (size_t k = 0; k < n; k++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            double r = (double)(seed >> 11) / 9007199254740992.0;
            if (clip_type_is_double(type)) ((double *)h)[k] = r;
            else ((float *)h)[k] = (float)r;
        }
        if (i == rank1) {
            /* element (r, c) = K(r, 0) * K(0, c) / K(0, 0): rank one, its first column and row
             * random (complex products where the type is complex) */
            const size_t rows = dims[i][0], cols = clip_data_numel(in[i]) / (rows ? rows : 1);
            const int db = clip_type_is_double(type), w = cx ? 2 : 1;
#define BENCH_AT(e) (db ? ((double *)h)[e] : (double)((float *)h)[e])
            const double z0r = BENCH_AT(0), z0i = cx ? BENCH_AT(1) : 0, z0 = z0r * z0r + z0i * z0i;
            for (size_t c = 1; c < cols; c++)
                for (size_t r = 1; r < rows; r++) {
                    const size_t ur = r * (size_t)w, vc = c * rows * (size_t)w;
                    const double ar = BENCH_AT(ur), ai = cx ? BENCH_AT(ur + 1) : 0;
                    const double br = BENCH_AT(vc), bi = cx ? BENCH_AT(vc + 1) : 0;
                    const double pr = ar * br - ai * bi, pi = ar * bi + ai * br;
                    const double val[2] = {(pr * z0r + pi * z0i) / z0, (pi * z0r - pr * z0i) / z0};
                    for (int part = 0; part < w; part++) {
                        const size_t e = (r + c * rows) * (size_t)w + (size_t)part;
                        if (db) ((double *)h)[e] = val[part];
                        else ((float *)h)[e] = (float)val[part];
                    }
                }
#undef BENCH_AT
        }
    }
    if (clip_process_create(app, name, &p) != CLIP_OK) goto fail;
    for (int i = 0; i < n_params; i++)
        if ((st = clip_process_set_text(p, params[i][0], params[i][1])) != CLIP_OK) goto fail;
    for (int i = 0; i < n_in; i++)
        if (clip_process_set_input(p, i, in[i]) != CLIP_OK) goto fail;
    if (!t) {
        fprintf(stderr, "clip: bench: out of memory\n");
        goto done;
    }
    if ((st = clip_process_init(p)) != CLIP_OK) goto fail;
    for (long r = 0; r < warmup + repeat; r++) {
        double ms = 0;
        if (clip_process_launch(p) != CLIP_OK || clip_process_time_ms(p, &ms) != CLIP_OK) goto fail;
        if (r >= warmup) t[r - warmup] = ms;
    }
    double med = clip_tool_median(t, (size_t)repeat), chain = 0;
    if (!no_chain && clip_tool_chain_ms(app, p, clip_tool_now_s() + 1.0, 21, &chain) != CLIP_OK)
        goto fail;
    double bytes = 0;
    for (int i = 0; i < n_in; i++) bytes += (double)clip_data_bytes(in[i]);
    for (int i = 0; i < d->n_outputs; i++) {
        clip_data *o = NULL;
        if (clip_process_output(p, i, &o) == CLIP_OK) bytes += (double)clip_data_bytes(o);
    }
    double fl = flops_of(name, in, n_in, p);
    char shapes[256] = "";
    size_t off = 0;
    for (int i = 0; i < n_in && off < sizeof shapes; i++)
        for (int k = 0; k < nd[i] && off < sizeof shapes; k++)
            off += (size_t)snprintf(shapes + off, sizeof shapes - off, "%s%zu",
                                    k ? "x" : (i ? " " : ""), dims[i][k]);
    char chain_field[64] = "", chain_csv[32] = ""; /* both empty with --no-chain */
    if (!no_chain) {
        snprintf(chain_field, sizeof chain_field, " chain_ms=%.4f", chain);
        snprintf(chain_csv, sizeof chain_csv, "%.6f", chain);
    }
    printf("bench %s [%s] %s variant=%s median_ms=%.4f gflops=%.1f gbps=%.1f%s device=\"%s\"\n",
           name, shapes, clip_type_name(type), clip_process_variant(p), med,
           fl > 0 ? fl / med / 1e6 : 0.0, bytes / med / 1e6, chain_field,
           clip_app_device(app)->name);
    /* A row that could not be written is an error: a grid script reading the CSV would
     * otherwise lose the point without a word. */
    if (csv) {
        FILE *f = fopen(csv, "a");
        int bad_row = !f;
        if (f) {
            bad_row = fprintf(f, "%s,%s,%s,%s,%.6f,%.3f,%.3f,%s\n", name, shapes,
                              clip_type_name(type), clip_process_variant(p), med,
                              fl > 0 ? fl / med / 1e6 : 0.0, bytes / med / 1e6, chain_csv) < 0;
            bad_row |= fclose(f) != 0;
        }
        if (bad_row) {
            fprintf(stderr, "clip: bench: cannot append to %s: %s\n", csv, strerror(errno));
            goto done;
        }
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "clip: bench: %s\n", clip_app_last_error(app));
    rc = run_args_exit_status(st);
done:
    free(t);
    clip_process_destroy(p);
    for (int i = 0; i < MAX_IN; i++) clip_data_destroy(in[i]);
    clip_app_destroy(app);
    return rc;
bad:
    fprintf(stderr, "clip: bench: bad arguments for %s (clip help %s; shapes like 1024x1024)\n",
            name, name);
    return 2;
}
