/* conv2: blur an image with a normalised kernel, then find its edges with a Sobel correlation,
 * chaining the two processes on the device (the blurred image never comes back to the host).
 *   MATLAB: B = imfilter(A, K / sum(K(:)), 'replicate', 'same');  E = filter2(S, B, 'same');
 * Makes its own 96x128 test image: a bright square on a dark background. */
#include <math.h>
#include <stdio.h>

#include "clip/clip.h"

static int fail(clip_app *app, const char *what) {
    fprintf(stderr, "conv2_example: %s: %s\n", what, clip_app_last_error(app));
    return 1;
}

/* conv2 of `a` and `k` with shape 'same' and the given pad mode and switches. */
static clip_status make_conv(clip_app *app, clip_data *a, clip_data *k, const char *pad, int corr,
                             int normalize, const char *separable, clip_process **p) {
    clip_status s = clip_process_create(app, "conv2", p);
    if (s == CLIP_OK) s = clip_process_set_choice(*p, "shape", "same");
    if (s == CLIP_OK) s = clip_process_set_choice(*p, "separable", separable);
    if (s == CLIP_OK) s = clip_process_set_choice(*p, "pad", pad);
    if (s == CLIP_OK) s = clip_process_set_bool(*p, "correlate", corr);
    if (s == CLIP_OK) s = clip_process_set_bool(*p, "normalize", normalize);
    if (s == CLIP_OK) s = clip_process_set_input(*p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(*p, 1, k);
    if (s == CLIP_OK) s = clip_process_init(*p);
    return s;
}

int main(void) {
    enum { ROWS = 96, COLS = 128 };
    static float img[ROWS * COLS];
    for (int c = 0; c < COLS; c++)
        for (int r = 0; r < ROWS; r++)
            img[r + ROWS * c] = (r >= 32 && r < 64 && c >= 40 && c < 88) ? 200.0f : 20.0f;
    /* A binomial blur (its sum, 256, is divided out by `normalize`) and a Sobel kernel. */
    double blur[25], sobel[9] = {1, 0, -1, 2, 0, -2, 1, 0, -1}, b1[5] = {1, 4, 6, 4, 1};
    for (int i = 0; i < 25; i++)
        blur[i] = b1[i % 5] * b1[i / 5];

    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) return fail(NULL, "no device");
    int rc = 1;
    size_t idims[2] = {ROWS, COLS}, kdims[2] = {5, 5}, sdims[2] = {3, 3};
    clip_data *a = NULL, *kb = NULL, *ks = NULL, *blurred = NULL, *edges = NULL;
    clip_process *pb = NULL, *pe = NULL;
    if (clip_data_create_from(app, CLIP_F32, 2, idims, img, &a) != CLIP_OK ||
        clip_data_create_from(app, CLIP_F64, 2, kdims, blur, &kb) != CLIP_OK ||
        clip_data_create_from(app, CLIP_F64, 2, sdims, sobel, &ks) != CLIP_OK) {
        fail(app, "data");
        goto done;
    }
    /* The binomial blur is an outer product (rank one): `separable on` runs it as a column pass
     * and a row pass (init checks the rank); auto takes them by itself where they are cheaper. */
    if (make_conv(app, a, kb, "replicate", 0, 1, "on", &pb) != CLIP_OK ||
        clip_process_output(pb, 0, &blurred) != CLIP_OK ||
        make_conv(app, blurred, ks, "replicate", 1, 0, "auto", &pe) != CLIP_OK ||
        clip_process_output(pe, 0, &edges) != CLIP_OK) {
        fail(app, "conv2 init");
        goto done;
    }
    if (clip_process_launch(pb) != CLIP_OK || clip_process_launch(pe) != CLIP_OK) {
        fail(app, "conv2 launch");
        goto done;
    }
    const float *e = NULL, *bl = NULL;
    if (clip_data_host(edges, (const void **)&e) != CLIP_OK ||
        clip_data_host(blurred, (const void **)&bl) != CLIP_OK) {
        fail(app, "read");
        goto done;
    }
    /* The blur keeps flat regions (its weights sum to 1). The Sobel kernel, [1 2 1; 0 0 0;
     * -1 -2 -1] (column-major above), responds to changes down the columns: the strongest
     * response lies on the square's top or bottom side (rows 33 and 64, give or take the blur). */
    int best = 0;
    for (int i = 1; i < ROWS * COLS; i++)
        if (fabsf(e[i]) > fabsf(e[best])) best = i;
    int row = best % ROWS + 1;
    double t1 = 0, t2 = 0;
    clip_process_time_ms(pb, &t1);
    clip_process_time_ms(pe, &t2);
    printf("image %dx%d (single), blur 5x5 normalised + Sobel correlation, on %s\n", ROWS, COLS,
           clip_app_device(app)->name);
    printf("blurred: corner %.2f (want 20), centre %.2f (want 200)\n", bl[0], bl[48 + ROWS * 64]);
    printf("strongest edge %.1f at row %d, column %d\n", e[best], row, best / ROWS + 1);
    printf("device time: blur %.3f ms (variant %s)\n", t1, clip_process_variant(pb));
    printf("device time: edges %.3f ms (variant %s)\n", t2, clip_process_variant(pe));
    int ok = fabsf(bl[0] - 20.0f) < 1e-3f && fabsf(bl[48 + ROWS * 64] - 200.0f) < 1e-2f &&
             ((row >= 31 && row <= 34) || (row >= 63 && row <= 66)) &&
             fabsf(e[48 + ROWS * 64]) < 1e-2f;
    rc = ok ? 0 : 1;
    if (rc) fprintf(stderr, "conv2_example: unexpected result\n");
done:
    clip_process_destroy(pb);
    clip_process_destroy(pe);
    clip_data_destroy(a);
    clip_data_destroy(kb);
    clip_data_destroy(ks);
    clip_app_destroy(app);
    return rc;
}
