/* Boxes of one CFL pair (clip/io.h, "CFL by boxes"): a runner reads only the boxes its pieces
 * need, and several writers (MPI ranks) put their output boxes into one file at their offsets,
 * under lib/save_file.c's discipline (one writer makes the named temporary and commits the pair
 * after every writer has flushed). A box of a column-major array is a set of runs: the leading
 * dimensions the box covers whole, times the first one it does not, are contiguous. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "save_file.h"

/* The elements of one run of box (count, start) in an array of dims, and how many runs. */
static size_t run_length(const size_t *dims, const size_t *start, const size_t *count,
                         size_t *runs) {
    size_t len = 1;
    int d = 0;
    for (; d < CLIP_MAX_DIMS; d++) {
        len *= count[d];
        if (start[d] != 0 || count[d] != dims[d]) break;
    }
    size_t n = 1;
    for (int e = d + 1; e < CLIP_MAX_DIMS; e++)
        n *= count[e];
    *runs = len ? n : 0;
    return len;
}

/* Element offset in the array of run r's first element, and in the box. */
static size_t run_offset(const size_t *dims, const size_t *start, const size_t *count, size_t len,
                         size_t r) {
    size_t off = 0, stride = 1, rest = r * len; /* the run's first element, as a box index */
    for (int d = 0; d < CLIP_MAX_DIMS; d++) {
        size_t idx = count[d] ? rest % count[d] : 0;
        rest = count[d] ? rest / count[d] : 0;
        off += (start[d] + idx) * stride;
        stride *= dims[d];
    }
    return off;
}

static int box_fits(const size_t *dims, const size_t *start, const size_t *count) {
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        if (start[d] > dims[d] || count[d] > dims[d] - start[d]) return 0;
    return 1;
}

static int pread_full(int fd, void *buf, size_t n, uint64_t off) {
    char *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = 0;
            return -1;
        }
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

clip_status clip_cfl_read_box(clip_app *app, const char *base, const clip_box *box, void *dst) {
    if (!base || !box || !dst)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_cfl_box: NULL argument");
    int nd = 0;
    size_t dims[CLIP_MAX_DIMS];
    clip_status s = clip_cfl_shape(app, base, &nd, dims);
    if (s != CLIP_OK) return s;
    if (!box_fits(dims, box->start, box->count))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "load_cfl_box: %s: the box lies outside "
                              "the array",
                              base);
    size_t bytes = 8;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        if (clip_mul_size(bytes, dims[d], &bytes))
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_cfl: %s: header size overflows",
                                  base);
    char *cfl = clip_cfl_path(base, ".cfl");
    if (!cfl) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_cfl_box: out of memory");
    int fd = -1;
    struct stat st;
    s = clip_io_open_regular(app, "load_cfl", cfl, &fd, &st);
    if (s == CLIP_OK && (uint64_t)st.st_size != (uint64_t)bytes)
        s = clip_set_error(app, CLIP_ERR_FORMAT,
                           "load_cfl: %s: %llu bytes, but the header's sizes need %zu", cfl,
                           (unsigned long long)st.st_size, bytes);
    size_t runs = 0;
    const size_t len = run_length(dims, box->start, box->count, &runs);
    for (size_t r = 0; r < runs && s == CLIP_OK; r++) {
        uint64_t off = (uint64_t)run_offset(dims, box->start, box->count, len, r) * 8;
        if (pread_full(fd, (char *)dst + r * len * 8, len * 8, off) != 0)
            s = clip_set_error(app, CLIP_ERR_IO, "load_cfl: %s: read error: %s", cfl,
                               errno ? strerror(errno) : "the file ended early");
    }
    if (fd >= 0) close(fd);
    free(cfl);
    return s;
}

clip_status clip_load_cfl_box(clip_app *app, const char *base, const clip_box *box,
                              clip_data **out) {
    if (!app || !base || !box || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_cfl_box: NULL argument");
    *out = NULL;
    int ndb = 2;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        if (box->count[d] != 1) ndb = d + 1 > ndb ? d + 1 : ndb;
    clip_data *d = NULL;
    void *host = NULL;
    clip_status s = clip_data_create(app, CLIP_C32, ndb, box->count, &d);
    if (s == CLIP_OK) s = clip_data_host_write(d, &host);
    if (s == CLIP_OK) s = clip_cfl_read_box(app, base, box, host);
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    *out = d;
    return CLIP_OK;
}

struct clip_cfl_writer {
    clip_app *app;
    char *base, *cfl, *hdr;
    int creator;
    size_t dims[CLIP_MAX_DIMS];
    uint64_t bytes;
    clip_save_file sf;
};

static clip_status writer_new(clip_app *app, const char *base, int ndims, const size_t *dims,
                              clip_cfl_writer **out) {
    *out = NULL;
    if (!app || !base || !dims || ndims < 1 || ndims > CLIP_MAX_DIMS)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "cfl_writer: bad argument");
    clip_cfl_writer *w = calloc(1, sizeof *w);
    if (w) {
        w->base = clip_cfl_path(base, "");
        w->cfl = clip_cfl_path(base, ".cfl");
        w->hdr = clip_cfl_path(base, ".hdr");
    }
    if (!w || !w->base || !w->cfl || !w->hdr) {
        if (w) free(w->base), free(w->cfl), free(w->hdr);
        free(w);
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "cfl_writer: out of memory");
    }
    w->app = app;
    w->bytes = 8;
    for (int d = 0; d < CLIP_MAX_DIMS; d++) {
        w->dims[d] = d < ndims ? dims[d] : 1;
        w->bytes *= w->dims[d];
    }
    const clip_save_file init = CLIP_SAVE_FILE_INIT;
    w->sf = init;
    *out = w;
    return CLIP_OK;
}

static void writer_free(clip_cfl_writer *w) {
    free(w->base);
    free(w->cfl);
    free(w->hdr);
    free(w);
}

clip_status clip_cfl_writer_create(clip_app *app, const char *base, int ndims, const size_t *dims,
                                   clip_cfl_writer **out) {
    clip_status s = writer_new(app, base, ndims, dims, out);
    if (s != CLIP_OK) return s;
    clip_cfl_writer *w = *out;
    w->creator = 1;
    s = clip_save_begin(app, "save_cfl", w->cfl, &w->sf);
    if (s == CLIP_OK) s = clip_save_name(app, "save_cfl", &w->sf, w->cfl);
    if (s != CLIP_OK) {
        clip_save_discard(&w->sf);
        writer_free(w);
        *out = NULL;
    }
    return s;
}

const char *clip_cfl_writer_temp(const clip_cfl_writer *w) {
    return w ? clip_save_temp_name(&w->sf) : NULL;
}

clip_status clip_cfl_writer_join(clip_app *app, const char *base, const char *temp, int ndims,
                                 const size_t *dims, clip_cfl_writer **out) {
    if (!temp) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "cfl_writer_join: NULL temp");
    clip_status s = writer_new(app, base, ndims, dims, out);
    if (s != CLIP_OK) return s;
    s = clip_save_join(app, "save_cfl", temp, &(*out)->sf);
    if (s != CLIP_OK) {
        writer_free(*out);
        *out = NULL;
    }
    return s;
}

/* Box keep of an array of `type` and dims at host, converted to c32 and written at `at`;
 * errors to app (NULL: the calling thread's). */
static clip_status put_host(clip_cfl_writer *w, clip_app *app, clip_type type, const size_t *dims,
                            const void *h, const clip_box *keep, const size_t *at) {
    if (!box_fits(dims, keep->start, keep->count) || !box_fits(w->dims, at, keep->count))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "save_cfl: %s: a box outside the data or "
                              "the file",
                              w->cfl);
    clip_status s = CLIP_OK;
    const int cx = clip_type_is_complex(type), dbl = clip_type_is_double(type);
    size_t runs = 0;
    /* runs of the kept box within the data, each written where the same run of the box lands
     * in the file; the file's run may be shorter (the box whole in the data's leading
     * dimensions, not in the file's), so runs are cut to the shorter of the two */
    size_t fruns = 0;
    const size_t len_d = run_length(dims, keep->start, keep->count, &runs);
    const size_t len_f = run_length(w->dims, at, keep->count, &fruns);
    const size_t len = len_d < len_f ? len_d : len_f, total = len ? runs * len_d / len : 0;
    enum { CHUNK = 4096 };
    float buf[2 * CHUNK];
    for (size_t r = 0; r < total && s == CLIP_OK; r++) {
        size_t src = run_offset(dims, keep->start, keep->count, len, r);
        uint64_t dst = (uint64_t)run_offset(w->dims, at, keep->count, len, r) * 8;
        for (size_t k = 0; k < len && s == CLIP_OK; k += CHUNK) {
            size_t n = len - k < CHUNK ? len - k : CHUNK;
            for (size_t i = 0; i < n; i++) {
                size_t e = src + k + i;
                double re = cx ? (dbl ? ((const double *)h)[2 * e] : ((const float *)h)[2 * e])
                               : (dbl ? ((const double *)h)[e] : ((const float *)h)[e]);
                double im =
                    cx ? (dbl ? ((const double *)h)[2 * e + 1] : ((const float *)h)[2 * e + 1])
                       : 0.0;
                buf[2 * i] = (float)re;
                buf[2 * i + 1] = (float)im;
            }
            w->sf.pos = dst + (uint64_t)k * 8;
            if (clip_save_write(&w->sf, buf, n * 8) != 0)
                s = clip_save_error(app, "save_cfl", &w->sf, w->cfl, "cannot write");
        }
    }
    return s;
}

clip_status clip_cfl_writer_put(clip_cfl_writer *w, clip_data *d, const clip_box *keep,
                                const size_t *at) {
    if (!w || !d || !keep || !at)
        return clip_set_error(w ? w->app : NULL, CLIP_ERR_INVALID_ARG, "cfl_writer_put: NULL");
    const void *h = NULL;
    clip_status s = clip_data_host(d, &h);
    if (s != CLIP_OK) return s;
    return put_host(w, w->app, d->type, d->dims, h, keep, at);
}

clip_status clip_cfl_writer_put_host(clip_cfl_writer *w, clip_type type, const size_t *dims,
                                     const void *host, const clip_box *keep, const size_t *at) {
    if (!w || !dims || !host || !keep || !at)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "cfl_writer_put_host: NULL");
    if (type != CLIP_F32 && type != CLIP_F64 && type != CLIP_C32 && type != CLIP_C64)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "cfl_writer_put_host: bad type");
    return put_host(w, NULL, type, dims, host, keep, at);
}

clip_status clip_cfl_writer_finish(clip_cfl_writer *w, int commit) {
    if (!w) return CLIP_OK;
    clip_app *app = w->app;
    clip_status s = CLIP_OK;
    if (!w->creator) {
        s = commit ? clip_save_flush(app, "save_cfl", &w->sf, w->cfl) : CLIP_OK;
        clip_save_discard(&w->sf);
        writer_free(w);
        return s;
    }
    if (!commit) {
        clip_save_discard(&w->sf);
        writer_free(w);
        return CLIP_OK;
    }
    clip_save_file sf[2] = {w->sf, CLIP_SAVE_FILE_INIT};
    s = clip_save_begin(app, "save_cfl", w->hdr, &sf[1]);
    if (s == CLIP_OK) {
        s = clip_cfl_write_header(app, w->hdr, &sf[1], w->dims);
    }
    const char *paths[2] = {w->cfl, w->hdr};
    const clip_save_expect expect[2] = {{w->bytes, NULL, 0},
                                        {CLIP_SAVE_SIZE_WRITTEN, "# Dimensions\n", 13}};
    if (s == CLIP_OK) s = clip_save_commit_all(app, "save_cfl", 2, sf, paths, expect);
    clip_save_discard(&sf[0]);
    clip_save_discard(&sf[1]);
    writer_free(w);
    return s;
}
