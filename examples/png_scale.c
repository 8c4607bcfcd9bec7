/* Loads a PNG, runs the element-wise scale process on the device (y = a*x + b), saves a PNG.
 *   png_scale [IN.png OUT.png [A B]]
 * Without arguments it writes a gradient test image first and inverts it (a = -1, b = 255). */
#include <stdio.h>
#include <stdlib.h>

#include "clip/clip.h"

static int fail(clip_app *app, const char *what) {
    fprintf(stderr, "png_scale: %s: %s\n", what, clip_app_last_error(app));
    return 1;
}

/* A 64x96 gray ramp, so the example runs with nothing on disk. */
static int write_gradient(clip_app *app, const char *path) {
    size_t dims[2] = {64, 96};
    clip_data *img = NULL;
    if (clip_data_create(app, CLIP_F32, 2, dims, &img) != CLIP_OK) return fail(app, "create");
    float *h = NULL;
    clip_data_host_write(img, (void **)&h);
    for (size_t c = 0; c < dims[1]; c++)
        for (size_t r = 0; r < dims[0]; r++) h[c * dims[0] + r] = (float)(r * 2 + c);
    clip_status s = clip_save(app, path, img);
    clip_data_destroy(img);
    return s == CLIP_OK ? 0 : fail(app, "save");
}

int main(int argc, char **argv) {
    const char *in = argc > 2 ? argv[1] : "png_scale_in.png";
    const char *out = argc > 2 ? argv[2] : "png_scale_out.png";
    double a = argc > 4 ? atof(argv[3]) : -1.0, b = argc > 4 ? atof(argv[4]) : 255.0;
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) return fail(NULL, "no device");
    int rc = 1;
    clip_data *img = NULL, *res = NULL;
    clip_process *p = NULL;
    if (argc <= 2 && write_gradient(app, in)) goto done;
    if (clip_load(app, in, &img) != CLIP_OK) { fail(app, "load"); goto done; }
    if (clip_process_create(app, "scale", &p) != CLIP_OK || clip_process_set_real(p, "a", a) != CLIP_OK ||
        clip_process_set_real(p, "b", b) != CLIP_OK || clip_process_set_input(p, 0, img) != CLIP_OK ||
        clip_process_init(p) != CLIP_OK || clip_process_launch(p) != CLIP_OK ||
        clip_process_output(p, 0, &res) != CLIP_OK) {
        fail(app, "scale");
        goto done;
    }
    if (clip_save(app, out, res) != CLIP_OK) { fail(app, "save"); goto done; }
    double ms = 0;
    clip_process_time_ms(p, &ms);
    printf("%s -> %s: %zux%zux%zu, a=%g b=%g, %.3f ms on %s\n", in, out, clip_data_dim(img, 0),
           clip_data_dim(img, 1), clip_data_dim(img, 2), a, b, ms, clip_app_device(app)->name);
    rc = 0;
done:
    clip_process_destroy(p);
    clip_data_destroy(img);
    clip_app_destroy(app);
    return rc;
}
