/* The tuning cache: store, lookup by device/driver/process/key, later entries win, a malformed
 * file is ignored with a warning, and the path follows CLIP_TUNING_CACHE / XDG_CACHE_HOME. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip/process_author.h"
#include "testutil.h"

int main(void) {
    clip_app *app = tu_app();
    char path[1024], v[256];
    setenv("CLIP_TUNING_CACHE", "", 1);
    setenv("XDG_CACHE_HOME", "tuning_xdg", 1);
    CHECK_OK(NULL, clip_tuning_path(path, sizeof path));
    CHECK(strcmp(path, "tuning_xdg/clip/tuning.txt") == 0);
    setenv("CLIP_TUNING_CACHE", "tuning_test/cache.txt", 1);
    CHECK_OK(NULL, clip_tuning_path(path, sizeof path));
    CHECK(strcmp(path, "tuning_test/cache.txt") == 0);
    remove(path);

    CHECK(clip_tuning_lookup(app, "matmul", "f32-large", v, sizeof v) == 0);
    CHECK(clip_tuning_warning()[0] == '\0');
    CHECK_OK(app, clip_tuning_store(app, "matmul", "f32-large", "MWG=64 NWG=64"));
    CHECK_OK(app, clip_tuning_store(app, "matmul", "f32-small", "MWG=16"));
    CHECK(clip_tuning_lookup(app, "matmul", "f32-large", v, sizeof v) == 1);
    CHECK(strcmp(v, "MWG=64 NWG=64") == 0);
    CHECK_OK(app, clip_tuning_store(app, "matmul", "f32-large", "MWG=128"));
    CHECK(clip_tuning_lookup(app, "matmul", "f32-large", v, sizeof v) == 1);
    CHECK(strcmp(v, "MWG=128") == 0);
    CHECK(clip_tuning_lookup(app, "conv2", "f32-large", v, sizeof v) == 0);
    CHECK_STATUS(app, clip_tuning_store(app, "matmul", "bad\tkey", "x"), CLIP_ERR_INVALID_ARG);

    /* The longest entry store takes is one lookup reads back whole (a longer one is refused,
     * not stored to spoil the cache). */
    char *big = malloc(2100);
    size_t len = 2099;
    for (;; len--) {
        memset(big, 'v', len);
        big[len] = '\0';
        if (clip_tuning_store(app, "matmul", "f32-long", big) == CLIP_OK) break;
        CHECK_MSG(app, "longer than a cache line");
        if (len < 1900) break;
    }
    CHECK(len > 1900 && len < 2047);
    char *back = malloc(2100);
    CHECK(clip_tuning_lookup(app, "matmul", "f32-long", back, 2100) == 1);
    CHECK(strlen(back) == len && clip_tuning_warning()[0] == '\0');
    CHECK(clip_tuning_lookup(app, "matmul", "f32-large", v, sizeof v) == 1);
    free(big);
    free(back);

    /* Another device's entry is not used. */
    FILE *f = fopen(path, "a");
    fprintf(f, "clip-tuning-1\tSome Other GPU\t1.0\tmatmul\tf32-tiny\tMWG=8\n");
    fclose(f);
    CHECK(clip_tuning_lookup(app, "matmul", "f32-tiny", v, sizeof v) == 0);

    /* A corrupt line: the whole file is ignored, with a warning naming the line. */
    f = fopen(path, "a");
    fprintf(f, "garbage without tabs\n");
    fclose(f);
    CHECK(clip_tuning_lookup(app, "matmul", "f32-large", v, sizeof v) == 0);
    CHECK(strstr(clip_tuning_warning(), "line 7 is malformed") != NULL);
    remove(path);
    clip_app_destroy(app);
    return tu_finish("test_tuning");
}
