/* Internal to lib/io*.c: helpers every file format shares. */
#ifndef CLIP_IO_INTERNAL_H
#define CLIP_IO_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "internal.h"

/* Checks that `path` names a readable regular file before a format library opens it, so a
 * missing or unreadable file is CLIP_ERR_IO with the system's reason rather than a library's
 * vague "cannot open". Sets *size to the file's size in bytes (may be NULL). `op` names the
 * operation for the message ("load_png"). */
clip_status clip_io_check_readable(clip_app *app, const char *op, const char *path, uint64_t *size);

/* The same check, keeping the file open: on CLIP_OK *fd is open read-only on the regular file
 * that *st describes (the caller closes it), so what is read next is the file that was checked,
 * whatever is renamed over `path` meanwhile. On failure *fd is -1, with the error as above, and
 * errno the system's reason (ENOENT: nothing at `path`; 0: not a regular file). */
clip_status clip_io_open_regular(clip_app *app, const char *op, const char *path, int *fd,
                                 struct stat *st);

/* Reads exactly n bytes from fd, retrying short reads and EINTR. Returns 0, or -1 with errno set
 * (0 when the file ended first). */
int clip_io_read_full(int fd, void *buf, size_t n);

/* Reads element i of real data (f32 or f64) as a double. */
static inline double clip_io_real_at(const void *host, clip_type t, size_t i) {
    return t == CLIP_F64 ? ((const double *)host)[i] : (double)((const float *)host)[i];
}

/* How an image save stores its values (lib/io_sample.c): the sample type chosen, and for integer
 * samples the map from a value to what is stored. */
typedef struct clip_io_fit {
    clip_sample sample; /* never AUTO once chosen */
    clip_fit fit;
    double lo, hi;     /* the integer type's range */
    double off, scale; /* CLIP_FIT_SCALE: stored = round(lo + (v - off) * scale) */
} clip_io_fit;

/* Chooses the sample type of an image save of data `host` (n real values of type t) and checks
 * that every value fits it (io.h: "Saves keep the values they were given, or refuse"). float_ok:
 * the format is TIFF (float and signed and 32-bit integer samples); otherwise PNG (8/16-bit
 * unsigned). `op`/`path` name the save in messages. On CLIP_OK *f is ready for
 * clip_io_fit_value and, when report is not NULL, report->sample, changed and text are filled.
 * CLIP_ERR_TYPE when values do not fit and fit is EXACT; CLIP_ERR_INVALID_ARG for a sample type
 * the format lacks or an unknown fit. */
clip_status clip_io_choose_sample(clip_app *app, const char *op, const char *path, const void *host,
                                  clip_type t, size_t n, clip_sample want, clip_fit fit,
                                  int float_ok, clip_io_fit *f, clip_save_report *report);

/* The integer stored for value v under *f (an integer sample type): scaled where asked, clamped
 * to the range, rounded half away from zero (as MATLAB's integer conversions); NaN is 0. Exact
 * for a value that fits. */
static inline double clip_io_fit_value(const clip_io_fit *f, double v) {
    if (f->fit == CLIP_FIT_SCALE) v = f->lo + (v - f->off) * f->scale;
    if (v != v) return f->lo > 0 || f->hi < 0 ? f->lo : 0.0;
    if (v <= f->lo) return f->lo;
    if (v >= f->hi) return f->hi;
    return v < 0 ? -floor(-v + 0.5) : floor(v + 0.5);
}

/* The formats' entries with options (clip_load_with, clip_save_with); the public per-format
 * calls are these with default options. page: clip_load_opts.page. */
clip_status clip_io_load_tiff(clip_app *app, const char *path, size_t page, clip_data **out);
clip_status clip_io_load_png(clip_app *app, const char *path, size_t page, clip_data **out);
clip_status clip_io_save_tiff(clip_app *app, const char *path, clip_data *d,
                              const clip_save_opts *opts, clip_save_report *report);
clip_status clip_io_save_png(clip_app *app, const char *path, clip_data *d,
                             const clip_save_opts *opts, clip_save_report *report);

/* Checks the structure of a MAT v4 or v5 file of `size` bytes before matio reads it, because
 * matio trusts the lengths and counts a file declares (lib/io_mat_check.c says what is checked).
 * CLIP_ERR_FORMAT with the offending element's offset; v7.3 (HDF5) files pass unchecked. */
clip_status clip_io_mat_check(clip_app *app, const char *path, uint64_t size);

/* Reads variable `var` (NULL: the first numeric one, else the first logical) of the MAT 7.3 file
 * at `path` through HDF5 directly (lib/io_mat73.c: matio misreads hdf5storage's class
 * attribute). *found = 0 when HDF5 finds no such dataset, or clip was built without HDF5: then
 * nothing is set, the caller's message stands. *found = 1: the result of reading it (*out on
 * CLIP_OK). */
clip_status clip_io_mat73_read(clip_app *app, const char *path, const char *var, uint64_t file_size,
                               clip_data **out, int *found);

/* Non-zero when matio can write v7.3 (HDF5) files; probed once, then cached. */
int clip_io_mat73_available(void);

/* MATLAB's rule for a variable's name: a letter, then letters, digits or underscores, at most 63
 * in all (lib/io_mat.c). 0 when built without matio. */
int clip_io_mat_valid_name(const char *s);

/* Makes `tmp` an empty MAT 7.3 file as clip_save_mat does (matio: the 512-byte MAT header in
 * HDF5's user block, then an HDF5 file with no variable); messages name `path`, the target.
 * Errors: CLIP_ERR_UNSUPPORTED (no matio, or matio without HDF5), CLIP_ERR_IO. */
clip_status clip_io_mat73_create(clip_app *app, const char *path, const char *tmp);

/* Rereads the first variable's header from the written MAT 7.3 file `tmp` (matio), as
 * clip_save_mat checks its own v7.3 saves: CLIP_ERR_IO unless it is `var`, of rank `rank` and
 * dims, single (dbl 0) or double (dbl 1). */
clip_status clip_io_mat73_check(clip_app *app, const char *path, const char *tmp, const char *var,
                                int rank, const size_t *dims, int dbl);

/* Variable `var` of the MAT 7.3 file `tmp` laid out for writers by boxes (lib/io_mat73.c):
 * with `create`, a dataset of MATLAB's form as clip_save_mat's matio writes it (dims reversed,
 * native floats or a compound of "real" and "imag", the MATLAB_class attribute), contiguous and
 * allocated now (no fill written); without, the existing variable checked to be of that type
 * and shape and contiguous. *offset: the byte where its elements start in the file, stored as a
 * column-major array of `type`. Messages name `path`. Errors: CLIP_ERR_FORMAT (HDF5 failed, or
 * the variable is not as expected), CLIP_ERR_UNSUPPORTED (built without HDF5). */
clip_status clip_io_mat73_layout(clip_app *app, const char *path, const char *tmp, const char *var,
                                 int create, clip_type type, int ndims, const size_t *dims,
                                 uint64_t *offset);

/* Parses a CFL header's text (lib/io_cfl.c) as BART does: the sizes after "# Dimensions", those
 * past the last that is not 1 dropped. Errors: CLIP_ERR_FORMAT, CLIP_ERR_DIMS (naming path). */
clip_status clip_cfl_parse_header(clip_app *app, const char *path, const char *text, int *ndims,
                                  size_t dims[CLIP_MAX_DIMS]);

/* base + ext, malloc'd (NULL when out of memory): a CFL pair's file names (lib/io_cfl.c). */
char *clip_cfl_path(const char *base, const char *ext);

struct clip_save_file;
/* Writes a CFL header for dims (CLIP_MAX_DIMS sizes; BART's 16 written, the rest 1) into the
 * save file sf of path (lib/io_cfl.c). Errors: CLIP_ERR_IO, as clip_save_error. */
clip_status clip_cfl_write_header(clip_app *app, const char *path, struct clip_save_file *sf,
                                  const size_t dims[CLIP_MAX_DIMS]);

/* ---- Boxes of arrays in files (lib/io_box.c): a column-major array of CLIP_MAX_DIMS sizes
 * stored raw from some offset of a file (a CFL's samples, a MAT 7.3 variable's contiguous
 * dataset). A box is a set of runs of contiguous elements. */

/* The elements in one run of box (start, count) of an array of dims; *runs: how many runs. */
size_t clip_io_box_run(const size_t *dims, const size_t *start, const size_t *count, size_t *runs);
/* The element offset in the array of run r's first element (len: clip_io_box_run's). */
size_t clip_io_box_offset(const size_t *dims, const size_t *start, const size_t *count, size_t len,
                          size_t r);
/* Non-zero when box (start, count) lies inside an array of dims. */
int clip_io_box_fits(const size_t *dims, const size_t *start, const size_t *count);

/* Box `keep` of host (an array of `type` and dims) written through sf (lib/save_file.h) at box
 * `at` of the file's array (file_dims, elements of file_type from byte file_offset), converted
 * to file_type (real to complex with imaginary part 0); runs of the same type are written as
 * they are. Uses no app when app is NULL (errors to the calling thread's last error). Errors:
 * CLIP_ERR_INVALID_ARG (a box outside the data or the file, complex data for a real file type),
 * CLIP_ERR_IO (as clip_save_error, naming op and path). */
clip_status clip_io_box_put(clip_app *app, const char *op, const char *path,
                            struct clip_save_file *sf, const size_t *file_dims,
                            uint64_t file_offset, clip_type file_type, clip_type type,
                            const size_t *dims, const void *host, const clip_box *keep,
                            const size_t *at);

#endif
