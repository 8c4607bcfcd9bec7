/* BART's CFL pair: base.hdr (a "# Dimensions" line, then the sizes as text) and base.cfl (the
 * complex float samples, column-major, re/im interleaved, native byte order as BART writes
 * them). No library exists for it, so it is read and written here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io_internal.h"
#include "save_file.h"

/* BART writes 16 dimensions (its DIMS); clip writes as many so BART reads the file unchanged. */
#define CFL_WRITE_DIMS 16
/* A header holds a few short lines; anything much larger is not a CFL header. */
#define CFL_HDR_MAX 65536
/* How long a load waits for a save of the same pair, committing beside it, to finish. */
#define CFL_SETTLE_S 1.0

char *clip_cfl_path(const char *base, const char *ext) {
    size_t n = strlen(base), m = strlen(ext);
    char *s = malloc(n + m + 1);
    if (s) {
        memcpy(s, base, n);
        memcpy(s + n, ext, m + 1);
    }
    return s;
}

/* ---------------------------------------------------------------- load */

/* CLIP_ERR_IO for a clip_io_read_full that just failed on `path` (its errno: 0 for a file that
 * ended early). */
static clip_status read_error(clip_app *app, const char *path) {
    const int err = errno;
    return clip_set_error(app, CLIP_ERR_IO, "load_cfl: %s: read error: %s", path,
                          err ? strerror(err) : "the file ended early");
}

/* Reads the header at `path` into *text (NUL-terminated, malloc'd) and leaves *fd open on it
 * (*st its status): the load keeps the header it read open until it has checked, after reading
 * the samples, that the name still leads to it (clip_load_cfl). */
static clip_status read_header(clip_app *app, const char *path, char **text, int *fd,
                               struct stat *st) {
    clip_status s = clip_io_open_regular(app, "load_cfl", path, fd, st);
    if (s != CLIP_OK) return s;
    if (st->st_size > CFL_HDR_MAX)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: too large for a CFL header",
                              path);
    const size_t size = (size_t)st->st_size;
    char *buf = malloc(size + 1);
    if (!buf)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_cfl: %s: out of memory", path);
    if (clip_io_read_full(*fd, buf, size) != 0) {
        s = read_error(app, path);
        free(buf);
        return s;
    }
    buf[size] = '\0';
    *text = buf;
    return CLIP_OK;
}

/* Parses the line after "# Dimensions" as BART does: sizes beyond what is stored must be 1. */
clip_status clip_cfl_parse_header(clip_app *app, const char *path, const char *text, int *ndims,
                                  size_t dims[CLIP_MAX_DIMS]) {
    const char *line = text;
    const char *key = "# Dimensions";
    for (;;) {
        size_t k = strlen(key);
        if (strncmp(line, key, k) == 0 && strspn(line + k, " \t\r") == strcspn(line + k, "\n"))
            break;
        line = strchr(line, '\n');
        if (!line)
            return clip_set_error(app, CLIP_ERR_FORMAT,
                                  "load_cfl: %s: not a CFL header (no \"# Dimensions\" line)",
                                  path);
        line++;
    }
    const char *p = strchr(line, '\n');
    if (!p)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: no sizes after \"# Dimensions\"",
                              path);
    p++;
    int n = 0, last = 0; /* last: one past the last size that is not 1 */
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        dims[i] = 1;
    for (;;) {
        p += strspn(p, " \t\r");
        if (*p == '\n' || *p == '\0') break;
        if (*p < '0' || *p > '9')
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: bad size in the header",
                                  path);
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || (size_t)v != v || (*end && !strchr(" \t\r\n", *end)))
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: bad size in the header",
                                  path);
        p = end;
        if (v != 1) {
            if (n >= CLIP_MAX_DIMS)
                return clip_set_error(app, CLIP_ERR_DIMS, "load_cfl: %s: more than %d dimensions",
                                      path, CLIP_MAX_DIMS);
            dims[n] = (size_t)v;
            last = n + 1;
        }
        n++;
    }
    if (n == 0)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: no sizes after \"# Dimensions\"",
                              path);
    *ndims = last < 2 ? 2 : last;
    return CLIP_OK;
}

/* Whether nothing is at `path` (not merely unreadable). */
static int missing(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return !f && errno == ENOENT;
}

static clip_status read_samples(clip_app *app, const char *path, int ndims, const size_t *dims,
                                clip_data **out) {
    size_t bytes = clip_type_size(CLIP_C32);
    for (int i = 0; i < ndims; i++)
        if (clip_mul_size(bytes, dims[i], &bytes))
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: header size overflows",
                                  path);
    int fd = -1;
    struct stat st;
    clip_status s = clip_io_open_regular(app, "load_cfl", path, &fd, &st);
    if (s != CLIP_OK) return s;
    /* Checked before allocating, so a bad header cannot ask for memory the file never had. */
    if ((uint64_t)st.st_size != (uint64_t)bytes) {
        close(fd);
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_cfl: %s: %llu bytes, but the header's sizes need %zu", path,
                              (unsigned long long)st.st_size, bytes);
    }
    clip_data *d = NULL;
    s = clip_data_create(app, CLIP_C32, ndims, dims, &d);
    void *host = NULL;
    if (s == CLIP_OK) s = clip_data_host_write(d, &host);
    if (s == CLIP_OK && bytes && clip_io_read_full(fd, host, bytes) != 0) s = read_error(app, path);
    close(fd);
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    *out = d;
    return CLIP_OK;
}

/* One reading of the pair, leaving *hfd open on the header it read (-1 if none) and *hst its
 * status; *no_hdr says whether nothing was at the header's name. */
static clip_status load_once(clip_app *app, const char *hdr, const char *cfl, clip_data **out,
                             int *hfd, struct stat *hst, int *no_hdr) {
    char *text = NULL;
    int ndims = 0;
    size_t dims[CLIP_MAX_DIMS];
    clip_status s = read_header(app, hdr, &text, hfd, hst);
    *no_hdr = *hfd < 0 && s == CLIP_ERR_IO && errno == ENOENT;
    if (s == CLIP_OK) s = clip_cfl_parse_header(app, hdr, text, &ndims, dims);
    if (s == CLIP_OK) s = read_samples(app, cfl, ndims, dims, out);
    free(text);
    return s;
}

/* Whether `path` no longer leads to the file that *was describes (removed or replaced since).
 * The caller holds that file open, so its inode cannot have been reused by another. */
static int replaced(const char *path, const struct stat *was) {
    struct stat now;
    return stat(path, &now) != 0 || now.st_dev != was->st_dev || now.st_ino != was->st_ino;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

clip_status clip_load_cfl(clip_app *app, const char *base, clip_data **out) {
    if (!app || !base || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_cfl: NULL %s",
                              !app    ? "app"
                              : !base ? "base"
                                      : "out");
    clip_clear_error(app);
    *out = NULL;
    char *hdr = clip_cfl_path(base, ".hdr"), *cfl = clip_cfl_path(base, ".cfl");
    if (!hdr || !cfl) {
        free(hdr);
        free(cfl);
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_cfl: %s: out of memory", base);
    }
    /* A save of the same pair may be committing beside this load (lib/save_file.h: it removes the
     * old header, renames the new samples in, then the new header). A load that held a header
     * which is gone by the time its samples are read may have paired them wrongly, and one that
     * found samples but no header may have come between the removal and the last rename: both
     * read again, the second after a pause, until CFL_SETTLE_S have passed. */
    const double deadline = now_s() + CFL_SETTLE_S;
    clip_status s;
    for (long pause_us = 1000;; pause_us = pause_us < 32000 ? 2 * pause_us : pause_us) {
        int hfd = -1, no_hdr = 0;
        struct stat hst;
        clip_clear_error(app);
        s = load_once(app, hdr, cfl, out, &hfd, &hst, &no_hdr);
        const int raced = hfd >= 0 && replaced(hdr, &hst);
        if (hfd >= 0) close(hfd);
        const int headless = no_hdr && !missing(cfl);
        if (!raced && !headless) break;
        clip_data_destroy(*out);
        *out = NULL;
        if (now_s() >= deadline) {
            /* Said outright, since "No such file" alone suggests a wrong name. */
            s = raced ? clip_set_error(app, CLIP_ERR_IO,
                                       "load_cfl: %s: replaced while being read, every time for "
                                       "%g s (another program saving the pair again and again?)",
                                       hdr, CFL_SETTLE_S)
                      : clip_set_error(app, CLIP_ERR_IO,
                                       "load_cfl: %s: %s; %s is there without it, which is not a "
                                       "whole CFL pair (a save interrupted while it replaced the "
                                       "pair leaves this; a save that completes repairs it)",
                                       hdr, strerror(ENOENT), cfl);
            break;
        }
        if (headless) {
            const struct timespec t = {0, pause_us * 1000};
            nanosleep(&t, NULL);
        }
    }
    free(hdr);
    free(cfl);
    return s;
}

clip_status clip_cfl_shape(clip_app *app, const char *base, int *ndims,
                           size_t dims[CLIP_MAX_DIMS]) {
    if (!base || !ndims || !dims)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "cfl_shape: NULL argument");
    char *hdr = clip_cfl_path(base, ".hdr"), *text = NULL;
    if (!hdr) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "cfl_shape: out of memory");
    int fd = -1;
    struct stat st;
    clip_status s = read_header(app, hdr, &text, &fd, &st);
    if (fd >= 0) close(fd);
    if (s == CLIP_OK) s = clip_cfl_parse_header(app, hdr, text, ndims, dims);
    free(text);
    free(hdr);
    return s;
}

/* ---------------------------------------------------------------- save */

clip_status clip_cfl_write_header(clip_app *app, const char *path, clip_save_file *sf,
                                  const size_t dims[CLIP_MAX_DIMS]) {
    char text[32 + CFL_WRITE_DIMS * 21];
    size_t n = (size_t)snprintf(text, sizeof text, "# Dimensions\n");
    for (int i = 0; i < CFL_WRITE_DIMS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%zu ",
                              i < CLIP_MAX_DIMS ? dims[i] : (size_t)1);
    n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    if (clip_save_write(sf, text, n) != 0)
        return clip_save_error(app, "save_cfl", sf, path, "cannot write");
    return CLIP_OK;
}

/* Converts every type to complex float through a bounded buffer, so a save of f64 or c64 data
 * needs no second full-size copy. */
static clip_status write_samples(clip_app *app, const char *path, clip_save_file *sf, clip_data *d,
                                 const void *host) {
    enum { CHUNK = 8192 };
    float buf[2 * CHUNK];
    clip_type t = clip_data_type(d);
    size_t numel = clip_data_numel(d);
    for (size_t at = 0; at < numel; at += CHUNK) {
        size_t n = numel - at < CHUNK ? numel - at : CHUNK;
        for (size_t i = 0; i < n; i++) {
            size_t k = at + i;
            switch (t) {
            case CLIP_F32:
                buf[2 * i] = ((const float *)host)[k];
                buf[2 * i + 1] = 0.0f;
                break;
            case CLIP_F64:
                buf[2 * i] = (float)((const double *)host)[k];
                buf[2 * i + 1] = 0.0f;
                break;
            case CLIP_C32:
                buf[2 * i] = ((const float *)host)[2 * k];
                buf[2 * i + 1] = ((const float *)host)[2 * k + 1];
                break;
            default:
                buf[2 * i] = (float)((const double *)host)[2 * k];
                buf[2 * i + 1] = (float)((const double *)host)[2 * k + 1];
                break;
            }
        }
        if (clip_save_write(sf, buf, n * 2 * sizeof(float)) != 0)
            return clip_save_error(app, "save_cfl", sf, path, "cannot write");
    }
    return CLIP_OK;
}

clip_status clip_save_cfl(clip_app *app, const char *base, clip_data *d) {
    if (!app || !base || !d)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save_cfl: NULL %s",
                              !app    ? "app"
                              : !base ? "base"
                                      : "data");
    clip_clear_error(app);
    const void *host = NULL;
    clip_status s = clip_data_host(d, &host);
    if (s != CLIP_OK) return s;
    char *hdr = clip_cfl_path(base, ".hdr"), *cfl = clip_cfl_path(base, ".cfl");
    /* Samples first, the header last: the header is what makes the pair loadable, and the
     * commit removes the old one before either rename (lib/save_file.h), so no kill leaves the
     * new samples under the old header. */
    clip_save_file sf[2] = {CLIP_SAVE_FILE_INIT, CLIP_SAVE_FILE_INIT};
    const char *const paths[2] = {cfl, hdr};
    if (!hdr || !cfl)
        s = clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_cfl: %s: out of memory", base);
    if (s == CLIP_OK) s = clip_save_begin(app, "save_cfl", cfl, &sf[0]);
    if (s == CLIP_OK) s = clip_save_begin(app, "save_cfl", hdr, &sf[1]);
    if (s == CLIP_OK) s = write_samples(app, cfl, &sf[0], d, host);
    size_t dims[CLIP_MAX_DIMS];
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        dims[i] = clip_data_dim(d, i);
    if (s == CLIP_OK) s = clip_cfl_write_header(app, hdr, &sf[1], dims);
    /* Both halves are verified before either replaces its target, so a failure here leaves the
     * old pair whole; what the commit itself may leave, lib/save_file.h says. */
    const clip_save_expect expect[2] = {{(uint64_t)clip_data_numel(d) * 2 * sizeof(float), NULL, 0},
                                        {CLIP_SAVE_SIZE_WRITTEN, "# Dimensions\n", 13}};
    if (s == CLIP_OK) s = clip_save_commit_all(app, "save_cfl", 2, sf, paths, expect);
    clip_save_discard(&sf[0]);
    clip_save_discard(&sf[1]);
    free(hdr);
    free(cfl);
    return s;
}
