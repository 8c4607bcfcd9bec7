/* The demo: a 512x512 modified Shepp-Logan phantom, smoothed by conv2 (when built in) and mapped
 * to 0..255 by scale, all on the default device without a host round trip in between; writes a
 * PNG and prints the device and the device time of each step.
 *   demo [OUT.png]   (default demo.png) */
#include <math.h>
#include <stdio.h>

#include "clip/clip.h"

#define N 512
#define PI 3.14159265358979323846

/* Modified Shepp-Logan (Toft): intensity, semi-axes a b, centre x0 y0, angle in degrees. */
static const double ellipses[10][6] = {
    {1.0, .69, .92, 0, 0, 0},          {-.8, .6624, .874, 0, -.0184, 0},
    {-.2, .11, .31, .22, 0, -18},      {-.2, .16, .41, -.22, 0, 18},
    {.1, .21, .25, 0, .35, 0},         {.1, .046, .046, 0, .1, 0},
    {.1, .046, .046, 0, -.1, 0},       {.1, .046, .023, -.08, -.605, 0},
    {.1, .023, .023, 0, -.606, 0},     {.1, .023, .046, .06, -.605, 0},
};

static void phantom(float *img) {
    for (int c = 0; c < N; c++) {
        for (int r = 0; r < N; r++) {
            double x = (2.0 * c - N + 1) / N, y = (N - 1 - 2.0 * r) / N, v = 0;
            for (int e = 0; e < 10; e++) {
                double th = ellipses[e][5] * PI / 180, dx = x - ellipses[e][3], dy = y - ellipses[e][4];
                double u = (dx * cos(th) + dy * sin(th)) / ellipses[e][1];
                double w = (-dx * sin(th) + dy * cos(th)) / ellipses[e][2];
                if (u * u + w * w <= 1) v += ellipses[e][0];
            }
            img[(size_t)c * N + r] = (float)v;
        }
    }
}

static int fail(clip_app *app, const char *what) {
    fprintf(stderr, "demo: %s: %s\n", what, clip_app_last_error(app));
    return 1;
}

/* Creates, configures and launches one step; returns its output through *out. */
static clip_status step(clip_app *app, clip_process *p, clip_data *in, clip_data *k, clip_data **out) {
    clip_status s = clip_process_set_input(p, 0, in);
    if (s == CLIP_OK && k) s = clip_process_set_input(p, 1, k);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, out);
    (void)app;
    return s;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "demo.png";
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) return fail(NULL, "opening a device");
    const clip_device_info *dev = clip_app_device(app);
    printf("device: %s (%s, %s)\n", dev->name, dev->platform, dev->version);

    int rc = 1;
    size_t dims[2] = {N, N}, kd[2] = {5, 5};
    clip_data *img = NULL, *k = NULL, *smooth = NULL, *out = NULL;
    clip_process *blur = NULL, *sc = NULL;
    float *h = NULL, kern[25];
    if (clip_data_create(app, CLIP_F32, 2, dims, &img) != CLIP_OK ||
        clip_data_host_write(img, (void **)&h) != CLIP_OK) {
        fail(app, "phantom");
        goto done;
    }
    phantom(h);
    clip_data *cur = img;
    if (clip_process_find("conv2")) {
        /* A 5x5 binomial smoothing filter; replicate padding keeps the border bright. */
        const float b[5] = {1, 4, 6, 4, 1};
        for (int i = 0; i < 25; i++) kern[i] = b[i % 5] * b[i / 5] / 256.0f;
        if (clip_data_create_from(app, CLIP_F32, 2, kd, kern, &k) != CLIP_OK ||
            clip_process_create(app, "conv2", &blur) != CLIP_OK ||
            clip_process_set_choice(blur, "shape", "same") != CLIP_OK ||
            clip_process_set_choice(blur, "pad", "replicate") != CLIP_OK ||
            step(app, blur, img, k, &smooth) != CLIP_OK) {
            fail(app, "conv2");
            goto done;
        }
        cur = smooth;
    }
    if (clip_process_create(app, "scale", &sc) != CLIP_OK || clip_process_set_real(sc, "a", 255.0) != CLIP_OK ||
        step(app, sc, cur, NULL, &out) != CLIP_OK) {
        fail(app, "scale");
        goto done;
    }
    /* The smoothed phantom has fractions: an 8-bit PNG keeps them only rounded, which a save
     * does when asked (clip_save alone refuses values the samples cannot hold). */
    const clip_save_opts opts = {.sample = CLIP_SAMPLE_U8, .fit = CLIP_FIT_CLAMP};
    clip_save_report report;
    if (clip_save_with(app, path, out, &opts, &report) != CLIP_OK) {
        fail(app, "save");
        goto done;
    }
    if (report.text[0]) printf("%s: %s\n", path, report.text);
    double ms = 0;
    if (blur && clip_process_time_ms(blur, &ms) == CLIP_OK)
        printf("conv2 5x5 same/replicate (%s): %.3f ms\n", clip_process_variant(blur), ms);
    if (clip_process_time_ms(sc, &ms) == CLIP_OK) printf("scale: %.3f ms\n", ms);
    clip_transfer_stats st;
    clip_app_transfer_stats(app, &st);
    printf("host<->device copies: %llu up, %llu down\nwrote %s (%dx%d)\n",
           (unsigned long long)st.to_device, (unsigned long long)st.to_host, path, N, N);
    rc = 0;
done:
    clip_process_destroy(blur);
    clip_process_destroy(sc);
    clip_data_destroy(img);
    clip_data_destroy(k);
    clip_app_destroy(app);
    return rc;
}
