/* The gamma process from a C program (its ctest tests), checked against the host's pow/cpow:
 *   gamma_demo values         f32, f64, c32, c64 (those the device has), two exponents each
 *   gamma_demo chain          conv2 -> gamma -> norm on the device: 2 uploads, no download until
 *                             the norm is read; the norm against the host's
 *   gamma_demo split          over devices 1 and 2 (POCL_DEVICES="pthread pthread"): bit for bit
 *                             the one-device result (exit 77 with fewer than two devices)
 *   gamma_demo cli TOOL PLUGIN   `TOOL --plugin PLUGIN run gamma` on MAT files, f64 and c64
 * Exit 0 when every check passes. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamma.h"

static int failures;
#define TRY(call)                                                                                  \
    do {                                                                                           \
        clip_status s_ = (call);                                                                   \
        if (s_ != CLIP_OK) {                                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    clip_app_last_error(app));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* n pseudo-random values in [lo, hi) (a fixed sequence: runs are comparable). */
static void fill(double *v, size_t n, double lo, double hi, unsigned *seed) {
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        v[i] = lo + (hi - lo) * (double)(*seed >> 8) / 16777216.0;
    }
}

/* Runs gamma on x (type t), result in out; returns the process's variant. */
static void run_gamma(clip_app *app, clip_data *x, double g, void *out, char *variant) {
    clip_process *p = NULL;
    clip_data *y = NULL;
    TRY(clip_process_create(app, "gamma", &p));
    TRY(clip_process_set_real(p, "g", g));
    TRY(clip_process_set_input(p, 0, x));
    TRY(clip_process_init(p));
    TRY(clip_process_launch(p));
    TRY(clip_process_output(p, 0, &y));
    TRY(clip_data_read(y, out));
    if (variant) snprintf(variant, 64, "%s", clip_process_variant(p));
    clip_process_destroy(p);
}

/* Element i of host data of type t, as a double complex. */
static double complex elem(const void *v, clip_type t, size_t i) {
    switch (t) {
    case CLIP_F32:
        return ((const float *)v)[i];
    case CLIP_F64:
        return ((const double *)v)[i];
    case CLIP_C32:
        return ((const float *)v)[2 * i] + I * ((const float *)v)[2 * i + 1];
    default:
        return ((const double *)v)[2 * i] + I * ((const double *)v)[2 * i + 1];
    }
}

static void check_type(clip_app *app, clip_type t) {
    enum { N = 1000 };
    double re[N], im[N];
    unsigned seed = 7;
    const int cplx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    fill(re, N, cplx ? -3 : 0, 3, &seed); /* a real negative base to a fractional g is NaN */
    fill(im, N, -3, 3, &seed);
    static unsigned char in[N * 16], out[N * 16];
    for (size_t i = 0; i < N; i++) {
        if (t == CLIP_F32) ((float *)in)[i] = (float)re[i];
        if (t == CLIP_F64) ((double *)in)[i] = re[i];
        if (t == CLIP_C32)
            ((float *)in)[2 * i] = (float)re[i], ((float *)in)[2 * i + 1] = (float)im[i];
        if (t == CLIP_C64) ((double *)in)[2 * i] = re[i], ((double *)in)[2 * i + 1] = im[i];
    }
    const size_t dims[2] = {40, 25};
    clip_data *x = NULL;
    TRY(clip_data_create_from(app, t, 2, dims, in, &x));
    const double gs[2] = {0.5, 2.5}, tol = dbl ? 1e-12 : 2e-5;
    for (int k = 0; k < 2; k++) {
        run_gamma(app, x, gs[k], out, NULL);
        double worst = 0;
        for (size_t i = 0; i < N; i++) {
            const double complex a = elem(in, t, i); /* the input as the device saw it */
            const double complex want = cplx ? cpow(a, gs[k]) : pow(creal(a), gs[k]);
            const double err = cabs(elem(out, t, i) - want) / fmax(cabs(want), 1e-300);
            if (!(err <= worst)) worst = err;
        }
        printf("gamma %s g=%.1f: %d elements, largest relative error %.2e (tolerance %.0e)\n",
               clip_type_name(t), gs[k], N, worst, tol);
        if (!(worst <= tol)) failures++;
    }
    clip_data_destroy(x);
}

static int values(clip_app *app) {
    const clip_type ts[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    for (int i = 0; i < 4; i++) {
        if (clip_type_is_double(ts[i]) && !clip_app_device(app)->fp64) {
            printf("gamma %s: skipped, the device has no fp64\n", clip_type_name(ts[i]));
            continue;
        }
        check_type(app, ts[i]);
    }
    return failures != 0;
}

/* conv2(A, K, 'same') -> gamma (g = 1.5) -> norm(., 'fro'), data staying on the device. */
static int chain(clip_app *app) {
    enum { R = 64, C = 48, KR = 5 };
    static double a[R * C], k[KR * KR], c[R * C];
    unsigned seed = 3;
    fill(a, R * C, 0, 1, &seed);
    fill(k, KR * KR, 0, 1, &seed);
    const size_t ad[2] = {R, C}, kd[2] = {KR, KR};
    clip_data *A = NULL, *K = NULL, *Cd = NULL, *Y = NULL, *Nd = NULL;
    clip_process *conv = NULL, *gam = NULL, *nrm = NULL;
    TRY(clip_data_create_from(app, CLIP_F64, 2, ad, a, &A));
    TRY(clip_data_create_from(app, CLIP_F64, 2, kd, k, &K));
    clip_transfer_stats s0, s1, s2;
    TRY(clip_app_transfer_stats(app, &s0));
    TRY(clip_process_create(app, "conv2", &conv));
    TRY(clip_process_set_choice(conv, "shape", "same"));
    TRY(clip_process_set_input(conv, 0, A));
    TRY(clip_process_set_input(conv, 1, K));
    TRY(clip_process_init(conv));
    TRY(clip_process_output(conv, 0, &Cd));
    TRY(clip_process_create(app, "gamma", &gam));
    TRY(clip_process_set_real(gam, "g", 1.5));
    TRY(clip_process_set_input(gam, 0, Cd));
    TRY(clip_process_init(gam));
    TRY(clip_process_output(gam, 0, &Y));
    TRY(clip_process_create(app, "norm", &nrm));
    TRY(clip_process_set_choice(nrm, "p", "fro"));
    TRY(clip_process_set_input(nrm, 0, Y));
    TRY(clip_process_init(nrm));
    TRY(clip_process_launch(conv));
    TRY(clip_process_launch(gam));
    TRY(clip_process_launch(nrm));
    TRY(clip_process_output(nrm, 0, &Nd));
    TRY(clip_app_finish(app));
    TRY(clip_app_transfer_stats(app, &s1));
    double got = 0;
    TRY(clip_data_read(Nd, &got));
    TRY(clip_app_transfer_stats(app, &s2));
    /* The host's: conv2 'same' (the central R x C of the full result), .^1.5, Frobenius norm. */
    double sum = 0;
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) {
            double v = 0;
            for (int q = 0; q < KR; q++)
                for (int r = 0; r < KR; r++) {
                    const int ii = i + KR / 2 - r, jj = j + KR / 2 - q;
                    if (ii >= 0 && ii < R && jj >= 0 && jj < C) v += a[ii + R * jj] * k[r + KR * q];
                }
            c[i + R * j] = pow(v, 1.5);
            sum += c[i + R * j] * c[i + R * j];
        }
    const double want = sqrt(sum), err = fabs(got - want) / want;
    const unsigned long long up = s1.to_device - s0.to_device, down = s1.to_host - s0.to_host;
    printf("chain conv2 -> gamma -> norm: %llu uploads, %llu downloads before the norm was read, "
           "%llu after; norm %.15g, host %.15g, relative error %.1e\n",
           up, down, (unsigned long long)(s2.to_host - s0.to_host), got, want, err);
    if (up != 2 || down != 0 || !(err < 1e-12)) failures++;
    clip_process_destroy(conv);
    clip_process_destroy(gam);
    clip_process_destroy(nrm);
    clip_data_destroy(A);
    clip_data_destroy(K);
    return failures != 0;
}

/* The same input on one device and split over two: identical bits. */
static int split(void) {
    clip_app *app = NULL, *two = NULL;
    clip_criteria one_c = {0}, two_c = {0};
    one_c.ignore_env = two_c.ignore_env = 1;
    one_c.indices[0] = 1, one_c.n_indices = 1;
    two_c.indices[0] = 1, two_c.indices[1] = 2, two_c.n_indices = 2;
    if (clip_app_create(&two, &two_c) != CLIP_OK) {
        printf("split: skipped, no two devices (%s)\n", clip_app_last_error(NULL));
        return 77;
    }
    TRY(clip_app_create(&app, &one_c));
    enum { R = 301, C = 257 };
    static double re[R * C], im[R * C];
    static float in[2 * R * C], o1[2 * R * C], o2[2 * R * C];
    unsigned seed = 11;
    fill(re, R * C, -2, 2, &seed);
    fill(im, R * C, -2, 2, &seed);
    for (size_t i = 0; i < R * C; i++)
        in[2 * i] = (float)re[i], in[2 * i + 1] = (float)im[i];
    const size_t dims[2] = {R, C};
    clip_data *x1 = NULL, *x2 = NULL;
    char v1[64], v2[64];
    TRY(clip_data_create_from(app, CLIP_C32, 2, dims, in, &x1));
    clip_app *keep = app;
    app = two; /* TRY's messages read this app */
    TRY(clip_data_create_from(two, CLIP_C32, 2, dims, in, &x2));
    run_gamma(keep, x1, 0.7, o1, v1);
    run_gamma(two, x2, 0.7, o2, v2);
    const int same = memcmp(o1, o2, sizeof o1) == 0;
    printf("split: one device '%s', two devices '%s': %s\n", v1, v2,
           same ? "identical bits" : "DIFFERENT");
    if (!same || !strstr(v2, "split")) failures++;
    clip_data_destroy(x1);
    clip_data_destroy(x2);
    clip_app_destroy(keep);
    clip_app_destroy(two);
    return failures != 0;
}

/* `TOOL --plugin PLUGIN run gamma in.mat -o out.mat --g 2.5` for f64 and c64. */
static int cli(clip_app *app, const char *tool, const char *plugin) {
    const clip_type ts[2] = {CLIP_F64, CLIP_C64};
    for (int k = 0; k < 2; k++) {
        double in[2 * 6] = {0.5, 1, 2, 3, 4.5, 0.25, -1, 2, -0.5, 0.125, 1.5, -2};
        double out[2 * 6];
        const size_t dims[2] = {2, 3};
        clip_data *x = NULL, *y = NULL;
        TRY(clip_data_create_from(app, ts[k], 2, dims, in, &x));
        clip_status s = clip_save(app, "gamma_cli_in.mat", x);
        if (s == CLIP_ERR_UNSUPPORTED) {
            printf("cli: skipped, clip was built without MAT files\n");
            return 77;
        }
        TRY(s);
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "'%s' --plugin '%s' run gamma gamma_cli_in.mat -o gamma_cli_out.mat --g 2.5", tool,
                 plugin);
        if (system(cmd) != 0) {
            fprintf(stderr, "cli: '%s' failed\n", cmd);
            return 1;
        }
        TRY(clip_load(app, "gamma_cli_out.mat", &y));
        TRY(clip_data_read(y, out));
        double worst = 0;
        for (size_t i = 0; i < 6; i++) {
            const double complex a = elem(in, ts[k], i);
            const double complex want = ts[k] == CLIP_C64 ? cpow(a, 2.5) : pow(creal(a), 2.5);
            const double err = cabs(elem(out, ts[k], i) - want) / cabs(want);
            if (!(err <= worst)) worst = err;
        }
        printf("cli: clip run gamma %s through the plugin: largest relative error %.1e\n",
               clip_type_name(ts[k]), worst);
        if (!(worst < 1e-12) || clip_data_type(y) != ts[k]) failures++;
        clip_data_destroy(x);
        clip_data_destroy(y);
    }
    return failures != 0;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "values";
    clip_app *app = NULL;
    TRY(gamma_register());
    if (!strcmp(what, "split")) return split();
    TRY(clip_app_create(&app, NULL));
    int rc = 2;
    if (!strcmp(what, "values"))
        rc = values(app);
    else if (!strcmp(what, "chain"))
        rc = chain(app);
    else if (!strcmp(what, "cli") && argc == 4)
        rc = cli(app, argv[2], argv[3]);
    else
        fprintf(stderr, "usage: gamma_demo values | chain | split | cli TOOL PLUGIN\n");
    clip_app_destroy(app);
    return rc;
}
