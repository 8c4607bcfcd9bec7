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

/* PNG: libpng rejects a chunk whose CRC is wrong, which would stop nearly every mutation at the
 * first chunk it touches. The harness recomputes each complete chunk's CRC so the fuzzer reaches
 * the chunk contents and what clip does with them. */
static uint32_t crc32_png(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void fix_png_crcs(uint8_t *b, size_t size) {
    size_t at = 8; /* signature */
    while (size - at >= 12) {
        size_t len = (size_t)b[at] << 24 | (size_t)b[at + 1] << 16 | (size_t)b[at + 2] << 8 |
                     b[at + 3];
        if (len > size - at - 12) break;
        uint32_t c = crc32_png(b + at + 4, len + 4);
        uint8_t *q = b + at + 8 + len;
        q[0] = (uint8_t)(c >> 24), q[1] = (uint8_t)(c >> 16), q[2] = (uint8_t)(c >> 8);
        q[3] = (uint8_t)c;
        at += len + 12;
    }
}

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
        uint8_t *copy = !strcmp(FUZZ_EXT, ".png") && size > 8 ? malloc(size) : NULL;
        if (copy) {
            memcpy(copy, data, size);
            fix_png_crcs(copy, size);
        }
        fwrite(copy ? copy : data, 1, size, f);
        free(copy);
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
    /* One page alone (TIFF's directory walk, PNG's frame count): the paths FILE.tif:N takes. */
    if (!strcmp(FUZZ_EXT, ".tif") || !strcmp(FUZZ_EXT, ".png")) {
        const clip_load_opts one = {NULL, size % 3 + 1};
        d = NULL;
        s = clip_load_with(app, file, &one, &d);
        if (s == CLIP_OK) clip_data_destroy(d);
        else if (d) abort();
    }
    return 0;
}
