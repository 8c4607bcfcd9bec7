/* norm example: norm(v, p) of a million-element single-precision vector for p = 1, 2, 3 and Inf,
 * plus norm([1e30 1e30]) (whose squares overflow single precision, yet the norm is 1.4142e30
 * as in MATLAB), each printed next to the same norm computed on the host in double. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clip/clip.h"

/* norm(x, p) on the device; NAN on failure (the message is printed). */
static double device_norm(clip_app *app, clip_process *p, clip_data *x, double order) {
    clip_data *y = NULL;
    const void *h = NULL;
    if (clip_process_set_input(p, 0, x) != CLIP_OK ||
        clip_process_set_real(p, "p", order) != CLIP_OK || clip_process_init(p) != CLIP_OK ||
        clip_process_launch(p) != CLIP_OK || clip_process_output(p, 0, &y) != CLIP_OK ||
        clip_data_host(y, &h) != CLIP_OK) {
        fprintf(stderr, "norm failed: %s\n", clip_app_last_error(app));
        return NAN;
    }
    return *(const float *)h;
}

static double host_norm(const float *v, size_t n, double order) {
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs((double)v[i]);
        s = isinf(order) ? (a > s ? a : s) : s + pow(a, order);
    }
    return isinf(order) ? s : pow(s, 1 / order);
}

int main(void) {
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    enum { N = 1000003 };
    float *v = malloc(N * sizeof *v);
    float big[2] = {1e30f, 1e30f};
    size_t dims[2] = {N, 1}, bdims[2] = {1, 2};
    clip_data *x = NULL, *b = NULL;
    clip_process *p = NULL;
    int rc = 1;
    if (!v) goto done;
    for (size_t i = 0; i < N; i++)
        v[i] = (float)sin(0.001 * (double)i) * (i % 7 ? 1.0f : -2.0f);
    if (clip_data_create_from(app, CLIP_F32, 2, dims, v, &x) != CLIP_OK ||
        clip_data_create_from(app, CLIP_F32, 2, bdims, big, &b) != CLIP_OK ||
        clip_process_create(app, "norm", &p) != CLIP_OK) {
        fprintf(stderr, "setup failed: %s\n", clip_app_last_error(app));
        goto done;
    }
    printf("norm of a %d-element single vector on %s:\n", N, clip_app_device(app)->name);
    static const double orders[4] = {1, 2, 3, INFINITY};
    rc = 0;
    for (int k = 0; k < 4; k++) {
        double got = device_norm(app, p, x, orders[k]), want = host_norm(v, N, orders[k]);
        printf("  p = %-4g %14.7g   host %14.7g   (%s)\n", orders[k], got, want,
               clip_process_variant(p));
        if (!(fabs(got - want) <= 1e-5 * want)) rc = 1;
    }
    double got = device_norm(app, p, b, 2), want = sqrt(2.0) * 1e30;
    printf("  norm([1e30 1e30]) = %.5g (squares overflow single; the norm does not)\n", got);
    if (!(fabs(got - want) <= 1e-5 * want)) rc = 1;
    printf(rc ? "mismatch with the host\n" : "matches the host\n");
done:
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_data_destroy(b);
    clip_app_destroy(app);
    free(v);
    return rc;
}
