/* Writes seed corpora for the loader fuzzers with clip's own writers (and, in seeds_direct.c,
 * with the format libraries):
 *   make_seeds DIR   -> DIR/png/, DIR/tif/, DIR/mat/, DIR/cfl/ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clip/clip.h"
#include "seeds_direct.h"

static clip_app *app;

static clip_data *make(clip_type t, int nd, size_t d0, size_t d1, size_t d2) {
    size_t dims[3] = {d0, d1, d2};
    clip_data *d = NULL;
    if (clip_data_create(app, t, nd, dims, &d) != CLIP_OK) return NULL;
    void *h = NULL;
    clip_data_host_write(d, &h);
    size_t n = clip_data_numel(d) * (clip_type_is_complex(t) ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        double v = (double)((i * 37) % 251);
        if (clip_type_is_double(t)) ((double *)h)[i] = v;
        else ((float *)h)[i] = (float)v;
    }
    return d;
}

/* Concatenates a CFL pair into one fuzz input: header, a 0 byte, data. */
static void cfl_seed(const char *base, const char *out) {
    char p[512];
    FILE *o = fopen(out, "wb");
    if (!o) return;
    for (int part = 0; part < 2; part++) {
        snprintf(p, sizeof p, "%s.%s", base, part ? "cfl" : "hdr");
        FILE *f = fopen(p, "rb");
        if (!f) break;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, o);
        fclose(f);
        if (!part) fputc(0, o);
    }
    fclose(o);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (clip_app_create(&app, NULL) != CLIP_OK) return 1;
    const char *dir = argv[1];
    char p[512];
    const char *sub[4] = {"png", "tif", "mat", "cfl"};
    mkdir(dir, 0755);
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        mkdir(p, 0755);
    }
    clip_data *g = make(CLIP_F32, 2, 7, 5, 1), *rgb = make(CLIP_F32, 3, 6, 4, 3),
              *ga = make(CLIP_F32, 3, 5, 5, 2), *dd = make(CLIP_F64, 3, 4, 3, 2),
              *c = make(CLIP_C32, 3, 3, 4, 2), *cd = make(CLIP_C64, 2, 3, 3, 1);
    int n = 0;
#define SEED(fn, ...) n += (fn(__VA_ARGS__) == CLIP_OK)
    snprintf(p, sizeof p, "%s/png/gray8.png", dir), SEED(clip_save_png, app, p, g, CLIP_SAMPLE_U8);
    snprintf(p, sizeof p, "%s/png/gray16.png", dir), SEED(clip_save_png, app, p, g, CLIP_SAMPLE_U16);
    snprintf(p, sizeof p, "%s/png/ga.png", dir), SEED(clip_save_png, app, p, ga, CLIP_SAMPLE_U8);
    snprintf(p, sizeof p, "%s/png/rgb.png", dir), SEED(clip_save_png, app, p, rgb, CLIP_SAMPLE_U8);
    snprintf(p, sizeof p, "%s/tif/u8.tif", dir), SEED(clip_save_tiff, app, p, g, CLIP_SAMPLE_U8);
    snprintf(p, sizeof p, "%s/tif/u16rgb.tif", dir), SEED(clip_save_tiff, app, p, rgb, CLIP_SAMPLE_U16);
    snprintf(p, sizeof p, "%s/tif/f64pages.tif", dir), SEED(clip_save_tiff, app, p, dd, CLIP_SAMPLE_F64);
    snprintf(p, sizeof p, "%s/tif/f32.tif", dir), SEED(clip_save_tiff, app, p, g, CLIP_SAMPLE_F32);
    snprintf(p, sizeof p, "%s/mat/single.mat", dir), SEED(clip_save_mat, app, p, NULL, g, 0);
    snprintf(p, sizeof p, "%s/mat/double3d.mat", dir), SEED(clip_save_mat, app, p, NULL, dd, 0);
    snprintf(p, sizeof p, "%s/mat/complex.mat", dir), SEED(clip_save_mat, app, p, NULL, c, 0);
    snprintf(p, sizeof p, "%s/mat/complexd.mat", dir), SEED(clip_save_mat, app, p, "z", cd, 0);
    snprintf(p, sizeof p, "/tmp/clip_seed_%s", "cfl");
    if (clip_save_cfl(app, p, c) == CLIP_OK) {
        char out[512];
        snprintf(out, sizeof out, "%s/cfl/c3d", dir);
        cfl_seed(p, out);
        n++;
    }
    int direct = 0;
    snprintf(p, sizeof p, "%s/mat", dir), direct += seeds_mat(p);
    snprintf(p, sizeof p, "%s/png", dir), direct += seeds_png(p);
    snprintf(p, sizeof p, "%s/tif", dir), direct += seeds_tiff(p);
    printf("make_seeds: %d seeds from clip, %d from the libraries, in %s\n", n, direct, dir);
    clip_data *all[6] = {g, rgb, ga, dd, c, cd};
    for (int i = 0; i < 6; i++) clip_data_destroy(all[i]);
    clip_app_destroy(app);
    return n == 13 ? 0 : 1;
}
