/* Boxes of one CFL pair (clip/io.h, "CFL by boxes"): a runner reads only the boxes its pieces
 * need, and several writers (MPI ranks) put their output boxes into one file at their offsets,
 * under lib/save_file.c's discipline (one writer makes the named temporary and commits the pair
 * after every writer has flushed). A box is a set of runs of contiguous samples (lib/io_box.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "save_file.h"

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
    if (!clip_io_box_fits(dims, box->start, box->count))
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
    const size_t len = clip_io_box_run(dims, box->start, box->count, &runs);
    for (size_t r = 0; r < runs && s == CLIP_OK; r++) {
        uint64_t off = (uint64_t)clip_io_box_offset(dims, box->start, box->count, len, r) * 8;
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
    return clip_io_box_put(app, "save_cfl", w->cfl, &w->sf, w->dims, 0, CLIP_C32, type, dims, h,
                           keep, at);
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
