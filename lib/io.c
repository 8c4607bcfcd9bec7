/* File I/O front door: dispatch by extension, and which formats were built in. How a file is
 * written safely is lib/save_file.c's job, called by each format's writer. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"

typedef enum io_format { FMT_UNKNOWN, FMT_TIFF, FMT_PNG, FMT_MAT, FMT_CFL } io_format;

static int ascii_lower(int c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int ext_equal(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* The extension (with its dot) of the last path component, or NULL. */
static const char *path_ext(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : NULL;
}

static io_format format_of(const char *path) {
    const char *ext = path_ext(path);
    if (!ext) return FMT_UNKNOWN;
    if (ext_equal(ext, ".tif") || ext_equal(ext, ".tiff")) return FMT_TIFF;
    if (ext_equal(ext, ".png")) return FMT_PNG;
    if (ext_equal(ext, ".mat")) return FMT_MAT;
    if (ext_equal(ext, ".cfl")) return FMT_CFL;
    return FMT_UNKNOWN;
}

static clip_status unknown_ext(clip_app *app, const char *op, const char *path) {
    const char *ext = path_ext(path);
    return clip_set_error(
        app, CLIP_ERR_UNSUPPORTED,
        "%s: %s: unknown file extension \"%s\" (known: .tif .tiff .png .mat .cfl)", op, path,
        ext ? ext : "");
}

/* CFL names its pair of files by the path without ".cfl", and clip_load_cfl / clip_save_cfl add
 * ".cfl" and ".hdr" back in lower case, as BART does: for "x.CFL" they would read or write x.cfl
 * and x.hdr, files other than the one named. So only the lower-case extension is taken. */
static clip_status cfl_check_case(clip_app *app, const char *op, const char *path) {
    const char *ext = path_ext(path);
    if (strcmp(ext, ".cfl") == 0) return CLIP_OK;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED,
                          "%s: %s: a CFL extension must be lower-case \".cfl\": the pair is "
                          "base.cfl and base.hdr, as BART names it, so \"%s\" would mean other "
                          "files than the one named",
                          op, path, ext);
}

static char *cfl_base(const char *path) {
    size_t n = strlen(path) - strlen(".cfl");
    char *base = malloc(n + 1);
    if (base) {
        memcpy(base, path, n);
        base[n] = '\0';
    }
    return base;
}

static clip_status cfl_dispatch(clip_app *app, const char *op, const char *path, clip_data *d,
                                clip_data **out) {
    clip_status s = cfl_check_case(app, op, path);
    if (s != CLIP_OK) return s;
    char *base = cfl_base(path);
    if (!base)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: %s: out of memory", op, path);
    s = d ? clip_save_cfl(app, base, d) : clip_load_cfl(app, base, out);
    free(base);
    return s;
}

clip_status clip_load(clip_app *app, const char *path, clip_data **out) {
    return clip_load_with(app, path, NULL, out);
}

static clip_status unused_option(clip_app *app, const char *op, const char *path,
                                 const char *what) {
    return clip_set_error(app, CLIP_ERR_INVALID_ARG, "%s: %s: %s does not apply to this format", op,
                          path, what);
}

clip_status clip_load_with(clip_app *app, const char *path, const clip_load_opts *opts,
                           clip_data **out) {
    if (!app || !path || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                                      : "out");
    clip_clear_error(app);
    *out = NULL;
    const clip_load_opts none = {0};
    if (!opts) opts = &none;
    const io_format f = format_of(path);
    if (opts->var && f != FMT_MAT)
        return unused_option(app, "load", path, "a variable name (MAT files only)");
    if (opts->page && f != FMT_TIFF && f != FMT_PNG)
        return unused_option(app, "load", path, "a page (TIFF and PNG only)");
    switch (f) {
    case FMT_TIFF:
        return clip_io_load_tiff(app, path, opts->page, out);
    case FMT_PNG:
        return clip_io_load_png(app, path, opts->page, out);
    case FMT_MAT:
        return clip_load_mat(app, path, opts->var, out);
    case FMT_CFL:
        return cfl_dispatch(app, "load", path, NULL, out);
    default:
        return unknown_ext(app, "load", path);
    }
}

clip_status clip_save(clip_app *app, const char *path, clip_data *d) {
    return clip_save_with(app, path, d, NULL, NULL);
}

clip_status clip_save_with(clip_app *app, const char *path, clip_data *d,
                           const clip_save_opts *opts, clip_save_report *report) {
    if (!app || !path || !d)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                                      : "data");
    clip_clear_error(app);
    const clip_save_opts none = {0};
    if (!opts) opts = &none;
    if (report) memset(report, 0, sizeof *report);
    const io_format f = format_of(path);
    const int image = f == FMT_TIFF || f == FMT_PNG;
    if (!image && (opts->sample || opts->fit || opts->third))
        return unused_option(app, "save", path,
                             "a sample type, clamp, scale or page layout (TIFF and PNG only)");
    if (f != FMT_MAT && (opts->var || opts->v73))
        return unused_option(app, "save", path, "a variable name or v7.3 (MAT files only)");
    switch (f) {
    case FMT_TIFF:
        return clip_io_save_tiff(app, path, d, opts, report);
    case FMT_PNG:
        return clip_io_save_png(app, path, d, opts, report);
    case FMT_MAT:
        return clip_save_mat(app, path, opts->var, d, opts->v73);
    case FMT_CFL:
        return cfl_dispatch(app, "save", path, d, NULL);
    default:
        return unknown_ext(app, "save", path);
    }
}

int clip_io_has(const char *format) {
    if (!format) return 0;
#ifdef CLIP_HAVE_TIFF
    if (strcmp(format, "tiff") == 0) return 1;
#endif
#ifdef CLIP_HAVE_PNG
    if (strcmp(format, "png") == 0) return 1;
#endif
#ifdef CLIP_HAVE_MATIO
    if (strcmp(format, "mat") == 0) return 1;
    if (strcmp(format, "mat73") == 0) return clip_io_mat73_available();
#endif
    return strcmp(format, "cfl") == 0;
}

clip_status clip_io_open_regular(clip_app *app, const char *op, const char *path, int *fd,
                                 struct stat *st) {
    /* open + fstat rather than stat + open, so the answer is about the file we could read. */
    *fd = open(path, O_RDONLY);
    int err = *fd < 0 ? errno : fstat(*fd, st) != 0 ? errno : 0;
    /* A FIFO or device would block or have no size to check content against. */
    if (err || !S_ISREG(st->st_mode)) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        clip_status s =
            err ? clip_set_error(app, CLIP_ERR_IO, "%s: %s: %s", op, path, strerror(err))
                : clip_set_error(app, CLIP_ERR_IO, "%s: %s: not a regular file", op, path);
        errno = err;
        return s;
    }
    return CLIP_OK;
}

clip_status clip_io_check_readable(clip_app *app, const char *op, const char *path,
                                   uint64_t *size) {
    int fd = -1;
    struct stat st;
    clip_status s = clip_io_open_regular(app, op, path, &fd, &st);
    if (s != CLIP_OK) return s;
    close(fd);
    if (size) *size = (uint64_t)st.st_size;
    return CLIP_OK;
}

int clip_io_read_full(int fd, void *buf, size_t n) {
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) {
            errno = 0; /* the file ended early: no system error to name */
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}
