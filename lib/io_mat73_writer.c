/* One MAT 7.3 variable written by boxes, by one or several writers (clip/io.h, "MAT 7.3 written by
 * boxes"). Debian's HDF5 is serial and not thread-safe, and HDF5 keeps a file's metadata in the
 * memory of the process that has it open: two processes writing one file through HDF5 corrupt it
 * unless they take turns (each open, write, close). So HDF5 is used by the creator alone, to lay
 * the file out: matio makes the MAT 7.3 file as clip_save_mat does (the MAT header in HDF5's user
 * block), and lib/io_mat73.c adds the variable as a contiguous dataset allocated at once. Its
 * elements are then a plain column-major array from a known offset of the file, so every writer
 * puts its boxes there with pwrite, as into a CFL's samples (lib/io_box.c), in parallel and
 * without HDF5. Before the commit the creator checks the file's size against the layout and
 * reads the variable's header back (HDF5, matio), then commits under lib/save_file.c's
 * discipline: the file appears whole under its name, or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_internal.h"
#include "save_file.h"

struct clip_mat73_writer {
    clip_app *app;
    char *path;
    char var[64];
    int creator;
    clip_type type;
    int ndims;
    size_t dims[CLIP_MAX_DIMS];
    uint64_t offset; /* the variable's first element in the file */
    uint64_t size;   /* the file's size as laid out */
    clip_save_file sf;
};

static clip_status writer_new(clip_app *app, const char *path, const char *var, clip_type type,
                              int ndims, const size_t *dims, clip_mat73_writer **out) {
    *out = NULL;
    if (!app || !path || !dims || ndims < 1 || ndims > CLIP_MAX_DIMS)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "mat73_writer: bad argument");
#if !defined(CLIP_HAVE_MATIO) || !defined(CLIP_HAVE_HDF5)
    (void)var, (void)type;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED,
                          "save_mat: %s: MAT 7.3 by boxes: clip was built without HDF5 "
                          "(CLIP_WITH_HDF5, CLIP_WITH_MATIO; Debian: libmatio-dev libhdf5-dev)",
                          path);
#endif
    if (!var) var = "result";
    if (!clip_io_mat_valid_name(var))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "save_mat: %s: '%s' is not a valid MATLAB variable name", path, var);
    if (type != CLIP_F32 && type != CLIP_F64 && type != CLIP_C32 && type != CLIP_C64)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save_mat: %s: type %s has no MAT class",
                              path, clip_type_name(type));
    clip_mat73_writer *w = calloc(1, sizeof *w);
    if (w) w->path = strdup(path);
    if (!w || !w->path) {
        free(w);
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "mat73_writer: out of memory");
    }
    w->app = app;
    snprintf(w->var, sizeof w->var, "%s", var);
    w->type = type;
    w->ndims = ndims;
    for (int d = 0; d < CLIP_MAX_DIMS; d++) {
        w->dims[d] = d < ndims ? dims[d] : 1;
        if (w->dims[d] == 0) {
            free(w->path);
            free(w);
            return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                                  "save_mat: %s: an empty variable is not written by boxes", path);
        }
    }
    const clip_save_file init = CLIP_SAVE_FILE_INIT;
    w->sf = init;
    *out = w;
    return CLIP_OK;
}

static void writer_free(clip_mat73_writer *w) {
    clip_save_discard(&w->sf);
    free(w->path);
    free(w);
}

/* The laid-out file's size, which must hold the variable's elements: 0 or CLIP_ERR_IO. */
static clip_status file_size(clip_mat73_writer *w, const char *tmp, uint64_t *size) {
    struct stat st;
    if (stat(tmp, &st) != 0)
        return clip_set_error(w->app, CLIP_ERR_IO, "save_mat: %s: %s: %s", w->path, tmp,
                              strerror(errno));
    uint64_t bytes = clip_type_size(w->type);
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        bytes *= w->dims[d];
    *size = (uint64_t)st.st_size;
    if (w->offset + bytes > *size)
        return clip_set_error(w->app, CLIP_ERR_IO,
                              "save_mat: %s: the laid-out file holds %llu bytes, too few for the "
                              "variable's %llu from byte %llu",
                              w->path, (unsigned long long)*size, (unsigned long long)bytes,
                              (unsigned long long)w->offset);
    return CLIP_OK;
}

clip_status clip_mat73_writer_create(clip_app *app, const char *path, const char *var,
                                     clip_type type, int ndims, const size_t *dims,
                                     clip_mat73_writer **out) {
    clip_status s = writer_new(app, path, var, type, ndims, dims, out);
    if (s != CLIP_OK) return s;
    clip_mat73_writer *w = *out;
    w->creator = 1;
    s = clip_save_begin(app, "save_mat", path, &w->sf);
    if (s == CLIP_OK) s = clip_save_name(app, "save_mat", &w->sf, path);
    const char *tmp = clip_save_temp_name(&w->sf);
    if (s == CLIP_OK) s = clip_io_mat73_create(app, path, tmp);
    if (s == CLIP_OK)
        s = clip_io_mat73_layout(app, path, tmp, w->var, 1, type, ndims, w->dims, &w->offset);
    if (s == CLIP_OK) s = file_size(w, tmp, &w->size);
    if (s != CLIP_OK) {
        writer_free(w);
        *out = NULL;
    }
    return s;
}

const char *clip_mat73_writer_temp(const clip_mat73_writer *w) {
    return w ? clip_save_temp_name(&w->sf) : NULL;
}

clip_status clip_mat73_writer_join(clip_app *app, const char *path, const char *temp,
                                   const char *var, clip_type type, int ndims, const size_t *dims,
                                   clip_mat73_writer **out) {
    if (!temp) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "mat73_writer_join: NULL temp");
    clip_status s = writer_new(app, path, var, type, ndims, dims, out);
    if (s != CLIP_OK) return s;
    clip_mat73_writer *w = *out;
    s = clip_io_mat73_layout(app, path, temp, w->var, 0, type, ndims, w->dims, &w->offset);
    if (s == CLIP_OK) s = file_size(w, temp, &w->size);
    if (s == CLIP_OK) s = clip_save_join(app, "save_mat", temp, &w->sf);
    if (s != CLIP_OK) {
        writer_free(w);
        *out = NULL;
    }
    return s;
}

clip_status clip_mat73_writer_put(clip_mat73_writer *w, clip_data *d, const clip_box *keep,
                                  const size_t *at) {
    if (!w || !d || !keep || !at)
        return clip_set_error(w ? w->app : NULL, CLIP_ERR_INVALID_ARG, "mat73_writer_put: NULL");
    const void *h = NULL;
    clip_status s = clip_data_host(d, &h);
    if (s != CLIP_OK) return s;
    return clip_io_box_put(w->app, "save_mat", w->path, &w->sf, w->dims, w->offset, w->type,
                           d->type, d->dims, h, keep, at);
}

clip_status clip_mat73_writer_put_host(clip_mat73_writer *w, clip_type type, const size_t *dims,
                                       const void *host, const clip_box *keep, const size_t *at) {
    if (!w || !dims || !host || !keep || !at)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "mat73_writer_put_host: NULL");
    if (type != CLIP_F32 && type != CLIP_F64 && type != CLIP_C32 && type != CLIP_C64)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "mat73_writer_put_host: bad type");
    return clip_io_box_put(NULL, "save_mat", w->path, &w->sf, w->dims, w->offset, w->type, type,
                           dims, host, keep, at);
}

clip_status clip_mat73_writer_finish(clip_mat73_writer *w, int commit) {
    if (!w) return CLIP_OK;
    clip_app *app = w->app;
    clip_status s = CLIP_OK;
    if (!w->creator) {
        s = commit ? clip_save_flush(app, "save_mat", &w->sf, w->path) : CLIP_OK;
        writer_free(w);
        return s;
    }
    if (commit) {
        /* what the writers wrote lies where the layout put it, and the file reads back as the
         * variable (HDF5, then matio, as clip_save_mat checks its own) */
        const char *tmp = clip_save_temp_name(&w->sf);
        uint64_t at = 0;
        if (w->sf.err) s = clip_save_error(app, "save_mat", &w->sf, w->path, "cannot write");
        if (s == CLIP_OK)
            s = clip_io_mat73_layout(app, w->path, tmp, w->var, 0, w->type, w->ndims, w->dims, &at);
        if (s == CLIP_OK && at != w->offset)
            s = clip_set_error(app, CLIP_ERR_IO,
                               "save_mat: %s: the variable moved in the file while it was written",
                               w->path);
        if (s == CLIP_OK)
            s = clip_io_mat73_check(app, w->path, tmp, w->var, w->ndims < 2 ? 2 : w->ndims, w->dims,
                                    clip_type_is_double(w->type));
        const clip_save_expect expect = {w->size, "MATLAB 7.3 MAT-file", 19};
        if (s == CLIP_OK) s = clip_save_commit(app, "save_mat", &w->sf, w->path, &expect);
    }
    writer_free(w); /* discards the temporary unless committed */
    return s;
}
