/* Inputs the loader fuzzers (fuzz/, scripts/fuzz.sh) once crashed, hung or leaked on, plus
 * hand-made hostile MAT files, all kept in tests/fuzz_regressions/ (README.md there says what
 * each one is): every one must now fail with CLIP_ERR_FORMAT or CLIP_ERR_IO, name the file,
 * hand out no object, and leave the app usable. A CFL case is a .hdr/.cfl pair, loaded through
 * its .cfl. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define REGRESS_DIR CLIP_SOURCE_DIR "/tests/fuzz_regressions"

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int loadable(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".png") || !strcmp(dot, ".tif") || !strcmp(dot, ".mat") ||
                   !strcmp(dot, ".cfl"));
}

/* The loadable files of the folder, sorted so failures read the same on every run. */
static size_t list_cases(char ***out) {
    DIR *dir = opendir(REGRESS_DIR);
    size_t n = 0, cap = 0;
    char **names = NULL;
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        if (!loadable(e->d_name)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        names[n++] = strdup(e->d_name);
    }
    if (dir) closedir(dir);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    *out = names;
    return n;
}

/* Saves and reloads a small array: the loaders still work after all the failures. */
static void check_still_usable(clip_app *app) {
    static const char *const exts[] = {".png", ".tif", ".mat", ".cfl"};
    size_t dims[2] = {3, 2};
    clip_data *a = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, dims, &a));
    void *h = NULL;
    CHECK_OK(app, clip_data_host_write(a, &h));
    for (size_t i = 0; h && i < 6; i++)
        ((float *)h)[i] = (float)(10 * i + 3);
    for (int k = 0; k < 4; k++) {
        if (k < 3 && !clip_io_has(k == 0 ? "png" : k == 1 ? "tiff" : "mat")) continue;
        char path[64];
        snprintf(path, sizeof path, "fuzz_regress_ok%s", exts[k]);
        clip_data *b = NULL;
        CHECK_OK(app, clip_save(app, path, a));
        CHECK_OK(app, clip_load(app, path, &b));
        const void *bh = NULL;
        if (b) CHECK_OK(app, clip_data_host(b, &bh));
        /* CFL loads complex: compare the real parts */
        size_t step = b && clip_type_is_complex(clip_data_type(b)) ? 2 : 1;
        for (size_t i = 0; bh && i < 6; i++) {
            double v = clip_type_is_double(clip_data_type(b)) ? ((const double *)bh)[i * step]
                                                              : ((const float *)bh)[i * step];
            CHECK_NEAR(v, 10 * i + 3, 0);
        }
        CHECK(b && clip_data_numel(b) == 6);
        clip_data_destroy(b);
        remove(path);
    }
    remove("fuzz_regress_ok.hdr");
    clip_data_destroy(a);
}

int main(void) {
    clip_app *app = tu_app();
    char **names = NULL;
    size_t n = list_cases(&names);
    CHECK(n > 0); /* the folder is there and holds cases */
    for (size_t i = 0; i < n; i++) {
        const char *ext = strrchr(names[i], '.') + 1;
        int fmt_ok = !strcmp(ext, "cfl") || clip_io_has(!strcmp(ext, "tif") ? "tiff" : ext);
        if (!fmt_ok) {
            printf("test_fuzz_regress: %s skipped (format not built in)\n", names[i]);
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", REGRESS_DIR, names[i]);
        clip_data *d = NULL;
        clip_status s = clip_load(app, path, &d);
        if (s != CLIP_ERR_FORMAT && s != CLIP_ERR_IO)
            fprintf(stderr, "%s: %s (%s)\n", names[i], clip_status_str(s),
                    clip_app_last_error(app));
        CHECK(s == CLIP_ERR_FORMAT || s == CLIP_ERR_IO);
        CHECK(d == NULL);
        /* the message names the file (a CFL pair may be named by its base or .hdr) */
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(strrchr(names[i], '.') - names[i]), names[i]);
        CHECK_MSG(app, stem);
        clip_data_destroy(d);
        /* One page alone, as fuzz/fuzz_load.c also loads TIFF and PNG (FILE.tif:1): its
         * directory walk stops at that page, so a later page's damage is not what stops it. */
        if (!strcmp(ext, "tif") || !strcmp(ext, "png")) {
            const clip_load_opts one = {NULL, 1};
            d = NULL;
            s = clip_load_with(app, path, &one, &d);
            if (s != CLIP_ERR_FORMAT && s != CLIP_ERR_IO)
                fprintf(stderr, "%s, page 1: %s (%s)\n", names[i], clip_status_str(s),
                        clip_app_last_error(app));
            CHECK(s == CLIP_ERR_FORMAT || s == CLIP_ERR_IO);
            CHECK(d == NULL);
            CHECK_MSG(app, stem);
            clip_data_destroy(d);
        }
    }
    printf("test_fuzz_regress: %zu inputs checked\n", n);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    check_still_usable(app);
    clip_app_destroy(app);
    return tu_finish("test_fuzz_regress");
}
