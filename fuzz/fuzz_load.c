/* libFuzzer target for one file loader, chosen at build time by FUZZ_EXT (".png", ".tif",
 * ".mat" or ".cfl"): the input bytes become a file and clip_load must answer with a status,
 * never crash, hang or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clip/clip.h"

#ifndef FUZZ_EXT
#error "define FUZZ_EXT"
#endif

static clip_app *app;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!app) {
        if (clip_app_create(&app, NULL) != CLIP_OK) abort();
        snprintf(path, sizeof path, "/tmp/clip_fuzz_%ld", (long)getpid());
    }
    char file[96];
    int cfl = !strcmp(FUZZ_EXT, ".cfl");
    if (cfl) {
        /* A CFL is two files: the header is the input up to the first 0 byte, the rest data. */
        const uint8_t *z = memchr(data, 0, size);
        size_t hlen = z ? (size_t)(z - data) : size;
        snprintf(file, sizeof file, "%s.hdr", path);
        FILE *h = fopen(file, "wb");
        if (!h) return 0;
        fwrite(data, 1, hlen, h);
        fclose(h);
        snprintf(file, sizeof file, "%s.cfl", path);
        FILE *c = fopen(file, "wb");
        if (!c) return 0;
        if (z) fwrite(z + 1, 1, size - hlen - 1, c);
        fclose(c);
    } else {
        snprintf(file, sizeof file, "%s%s", path, FUZZ_EXT);
        FILE *f = fopen(file, "wb");
        if (!f) return 0;
        fwrite(data, 1, size, f);
        fclose(f);
    }
    clip_data *d = NULL;
    clip_status s = cfl ? clip_load_cfl(app, path, &d) : clip_load(app, file, &d);
    if (s == CLIP_OK) {
        const void *h = NULL;
        clip_data_host(d, &h);
        clip_data_destroy(d);
    } else if (d) {
        abort(); /* a failed load must not hand out an object */
    }
    return 0;
}
