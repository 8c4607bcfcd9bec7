/* FILE[:SELECTOR] words of `clip run` (io_spec.h). */
#define _POSIX_C_SOURCE 200809L /* strndup */

#include "io_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, size_t n, const char *ext) {
    size_t e = strlen(ext);
    if (n < e) return 0;
    for (size_t i = 0; i < e; i++) {
        char c = s[n - e + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != ext[i]) return 0;
    }
    return 1;
}

/* The kind of the first n characters of s (io_spec_kind). */
static int kind_of(const char *s, size_t n) {
    if (ends_with(s, n, ".mat")) return IO_SPEC_MAT;
    if (ends_with(s, n, ".tif") || ends_with(s, n, ".tiff") || ends_with(s, n, ".png"))
        return IO_SPEC_IMAGE;
    if (ends_with(s, n, ".cfl")) return IO_SPEC_CFL;
    return IO_SPEC_OTHER;
}

int io_spec_kind(const char *path) {
    return kind_of(path, strlen(path));
}

int io_spec_parse(const char *word, int output, io_spec *sp, char *err, size_t cap) {
    memset(sp, 0, sizeof *sp);
    const char *colon = strrchr(word, ':');
    const size_t n = colon ? (size_t)(colon - word) : strlen(word);
    const int kind = colon ? kind_of(word, n) : IO_SPEC_OTHER;
    const int whole = kind == IO_SPEC_OTHER || kind == IO_SPEC_CFL || io_spec_kind(word);
    if (!(sp->path = whole ? strdup(word) : strndup(word, n))) {
        snprintf(err, cap, "out of memory");
        return 1;
    }
    if (whole) return 0;
    const char *sel = colon + 1;
    if (kind == IO_SPEC_MAT) {
        if (!*sel) {
            snprintf(err, cap, "'%s': name a variable after the ':' (FILE.mat:NAME)", word);
            io_spec_release(sp);
            return 2;
        }
        sp->var = sel;
        return 0;
    }
    char *end = NULL;
    const unsigned long long page = *sel >= '0' && *sel <= '9' ? strtoull(sel, &end, 10) : 0;
    if (output || !page || *end || page > 65535) {
        snprintf(err, cap,
                 output ? "'%s': a page cannot be chosen for a save (--stack says how a stack "
                          "is laid out)"
                        : "'%s': a page is a whole number from 1 (FILE.tif:N, FILE.png:1)",
                 word);
        io_spec_release(sp);
        return 2;
    }
    sp->page = (size_t)page;
    return 0;
}

void io_spec_release(io_spec *sp) {
    free(sp->path);
    memset(sp, 0, sizeof *sp);
}

static int failed(clip_app *app, clip_status s) {
    fprintf(stderr, "clip: %s\n", clip_app_last_error(app));
    return s == CLIP_ERR_INVALID_ARG ? 2 : 1;
}

int io_spec_load(clip_app *app, const char *word, clip_data **out) {
    io_spec f;
    char err[512];
    const int bad = io_spec_parse(word, 0, &f, err, sizeof err);
    if (bad) {
        fprintf(stderr, "clip: %s\n", err);
        return bad;
    }
    const clip_load_opts opts = {f.var, f.page};
    const clip_status s = clip_load_with(app, f.path, &opts, out);
    io_spec_release(&f);
    return s == CLIP_OK ? 0 : failed(app, s);
}

int io_spec_save(clip_app *app, const char *word, const clip_save_opts *opts, clip_data *d) {
    io_spec f;
    char err[512];
    const int bad = io_spec_parse(word, 1, &f, err, sizeof err);
    if (bad) {
        fprintf(stderr, "clip: %s\n", err);
        return bad;
    }
    clip_save_opts named = *opts;
    named.var = f.var;
    clip_save_report report;
    const clip_status s = clip_save_with(app, f.path, d, &named, &report);
    if (s == CLIP_OK && report.text[0]) fprintf(stderr, "clip: %s: %s\n", f.path, report.text);
    io_spec_release(&f);
    /* Values an image's samples cannot hold: say which options of run change that. */
    if (s == CLIP_ERR_TYPE && strstr(clip_app_last_error(app), " do not fit ")) {
        fprintf(stderr, "clip: %s [run's --clamp, --scale or --sample; clip help run]\n",
                clip_app_last_error(app));
        return 1;
    }
    return s == CLIP_OK ? 0 : failed(app, s);
}
