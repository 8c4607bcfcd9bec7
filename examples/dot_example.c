/* dot example: dot(a, b) = sum(conj(a).*b) of two complex single vectors, a row and a column,
 * next to the host's sum in double; and dot(b, a), its complex conjugate, since MATLAB's dot
 * conjugates the first argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clip/clip.h"

/* dot(a, b) on the device into re/im; non-zero on failure (the message is printed). */
static int device_dot(clip_app *app, clip_process *p, clip_data *a, clip_data *b, double *re,
                      double *im) {
    clip_data *y = NULL;
    const void *h = NULL;
    if (clip_process_set_input(p, 0, a) != CLIP_OK || clip_process_set_input(p, 1, b) != CLIP_OK ||
        clip_process_init(p) != CLIP_OK || clip_process_launch(p) != CLIP_OK ||
        clip_process_output(p, 0, &y) != CLIP_OK || clip_data_host(y, &h) != CLIP_OK) {
        fprintf(stderr, "dot failed: %s\n", clip_app_last_error(app));
        return 1;
    }
    *re = ((const float *)h)[0];
    *im = ((const float *)h)[1];
    return 0;
}

int main(void) {
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    enum { N = 100003 };
    float *va = malloc(2 * N * sizeof *va), *vb = malloc(2 * N * sizeof *vb);
    size_t da[2] = {1, N}, db[2] = {N, 1};
    clip_data *a = NULL, *b = NULL;
    clip_process *p = NULL;
    int rc = 1;
    if (!va || !vb) goto done;
    double wre = 0, wim = 0, scale = 0; /* the host's sum(conj(a).*b), and sum(|a||b|) */
    for (size_t i = 0; i < N; i++) {
        double t = 0.0001 * (double)i;
        va[2 * i] = (float)cos(t), va[2 * i + 1] = (float)sin(3 * t);
        vb[2 * i] = (float)(1 - t / 10), vb[2 * i + 1] = (float)cos(t * t);
        double ar = va[2 * i], ai = va[2 * i + 1], br = vb[2 * i], bi = vb[2 * i + 1];
        wre += ar * br + ai * bi;
        wim += ar * bi - ai * br;
        scale += hypot(ar, ai) * hypot(br, bi);
    }
    if (clip_data_create_from(app, CLIP_C32, 2, da, va, &a) != CLIP_OK ||
        clip_data_create_from(app, CLIP_C32, 2, db, vb, &b) != CLIP_OK ||
        clip_process_create(app, "dot", &p) != CLIP_OK) {
        fprintf(stderr, "setup failed: %s\n", clip_app_last_error(app));
        goto done;
    }
    double re = 0, im = 0, re2 = 0, im2 = 0;
    if (device_dot(app, p, a, b, &re, &im) || device_dot(app, p, b, a, &re2, &im2)) goto done;
    printf("a: 1x%d complex single, b: %dx1, on %s (%s)\n", N, N, clip_app_device(app)->name,
           clip_process_variant(p));
    printf("  dot(a, b) = %.7g %+.7gi   host %.7g %+.7gi\n", re, im, wre, wim);
    printf("  dot(b, a) = %.7g %+.7gi   (the conjugate)\n", re2, im2);
    rc = !(fabs(re - wre) <= 1e-5 * scale && fabs(im - wim) <= 1e-5 * scale &&
           fabs(re2 - wre) <= 1e-5 * scale && fabs(im2 + wim) <= 1e-5 * scale);
    printf(rc ? "mismatch with the host\n" : "matches the host\n");
done:
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(b);
    clip_app_destroy(app);
    free(va);
    free(vb);
    return rc;
}
